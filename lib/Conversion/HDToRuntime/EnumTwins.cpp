//===- EnumTwins.cpp - the dialect's enums against the runtime's ----------===//
//
// A layer's descriptor carries an enum attribute as its number
// (hdrt/LayerKinds.def), and the runtime reads that number as its own enum,
// declared beside the kind's kernels. The two are written twice, once in
// HDBase.td and once in the runtime, which must not see compiler headers;
// this file makes the build fail where a case's number or the count of
// cases differ, before a program could carry a wrong number.
//
//===----------------------------------------------------------------------===//

#include "hd/Dialect/HD/IR/HDAttrs.h"

#include "kernels/Activation/ActivationKernels.h"
#include "kernels/Binary/BinaryKernels.h"
#include "kernels/Pool2d/Pool2dKernels.h"

#define HD_SAME_CASE(Enum, Case)                                               \
  static_assert(int64_t(::hd::Enum::Case) == int64_t(::hdrt::Enum::Case),      \
                #Enum "::" #Case " has another number in the runtime")

HD_SAME_CASE(PoolKind, Max);
HD_SAME_CASE(PoolKind, Avg);
static_assert(::hd::getMaxEnumValForPoolKind() + 1 == ::hdrt::kPoolKinds,
              "hd's PoolKind and the runtime's have different cases");

HD_SAME_CASE(ActivationFunction, Clip);
HD_SAME_CASE(ActivationFunction, Sigmoid);
HD_SAME_CASE(ActivationFunction, HardSigmoid);
HD_SAME_CASE(ActivationFunction, HardSwish);
HD_SAME_CASE(ActivationFunction, Silu);
HD_SAME_CASE(ActivationFunction, Gelu);
static_assert(::hd::getMaxEnumValForActivationFunction() + 1 ==
                  ::hdrt::kActivationFunctions,
              "hd's ActivationFunction and the runtime's have different cases");

HD_SAME_CASE(BinaryFunction, Add);
HD_SAME_CASE(BinaryFunction, Sub);
HD_SAME_CASE(BinaryFunction, Mul);
HD_SAME_CASE(BinaryFunction, Div);
static_assert(::hd::getMaxEnumValForBinaryFunction() + 1 ==
                  ::hdrt::kBinaryFunctions,
              "hd's BinaryFunction and the runtime's have different cases");
