// RUN: hd-opt %s --hd-insert-transfers --hd-lower-to-runtime | FileCheck %s
// The lowered program parses and verifies again.
// RUN: hd-opt %s --hd-insert-transfers --hd-lower-to-runtime | hd-opt | FileCheck %s --check-prefix=ROUNDTRIP
// Kinds without fields (relu, flatten, the loss) take no descriptor.
// RUN: hd-opt %s --hd-insert-transfers --hd-lower-to-runtime | FileCheck %s --check-prefix=NODESC
// NODESC-NOT: @hd_layer{{[124]}}_desc
// ROUNDTRIP: func.func @main

// A sample split, then a channel split that needs a transfer, a linear layer
// on fewer devices, and the loss.
module attributes {hd.devices = 2 : i64, hd.model = "tiny", hd.source = dense_resource<tiny_onnx> : tensor<4xi8>} {
  func.func @tiny(%x: tensor<2x3x4x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %0 = hd.conv2d %x {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, hd.tensors = {bias = "conv.b", weight = "conv.w"}, kernel = array<i64: 3, 3>, out_channels = 4 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, parallel = #hd.pconfig<n = 2, c = 1, h = 1, w = 1>} : tensor<2x3x4x4xf32> -> tensor<2x4x4x4xf32> loc("conv")
    %1 = hd.relu %0 {parallel = #hd.pconfig<n = 1, c = 2, h = 1, w = 1>} : tensor<2x4x4x4xf32> loc("relu")
    %2 = hd.flatten %1 {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4x4x4xf32> -> tensor<2x64xf32> loc("flatten")
    %3 = hd.linear %2 {bias = false, hd.tensors = {weight = "fc.w"}, hd.tensors_transposed = ["weight"], out_features = 5 : i64, parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x64xf32> -> tensor<2x5xf32> loc("fc")
    %4 = hd.softmax_cross_entropy %3, %y {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x5xf32>, tensor<2xi32> -> tensor<f32> loc("loss")
    return %4 : tensor<f32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      tiny_onnx: "0x0400000001020304"
    }
  }
#-}

// Constants: names, shapes, configurations, descriptors, plans, groups.
// CHECK-DAG: llvm.mlir.global internal constant @hd_model_name("tiny\00")
// CHECK-DAG: llvm.mlir.global internal constant @hd_layer0_name("conv\00")
// CHECK-DAG: llvm.mlir.global internal constant @hd_layer0_degrees(dense<[2, 1, 1, 1]> : tensor<4xi64>) {{.*}} : !llvm.array<4 x i64>
// The conv's descriptor, the runtime's struct: out_channels, kernel, stride,
// padding, dilation, groups, bias.
// CHECK-DAG: llvm.mlir.global internal constant @hd_layer0_desc([4, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1, 1]) {{.*}} : !llvm.struct<"hdrt.conv2d.desc", (i64, array<2 x i64>, array<2 x i64>, array<4 x i64>, array<2 x i64>, i64, i64)>
// CHECK-DAG: llvm.mlir.global internal constant @hd_layer3_desc([5, 0]) {{.*}} : !llvm.struct<"hdrt.linear.desc", (i64, i64)>
// The source model's bytes, and where the layers' parameters are in it.
// CHECK-DAG: llvm.mlir.global internal constant @hd_source("\01\02\03\04")
// CHECK-DAG: llvm.mlir.global internal constant @hd_layer0_tensors("bias\09conv.b\0Aweight\09conv.w\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @hd_layer3_tensors("weight\09fc.w\09transposed\0A\00")

// The transfer conv -> relu: each device sends the other its sample's other
// two channels (src, dst, lo, hi).
// CHECK-DAG: llvm.mlir.global internal constant @hd_edge1_moves(dense<[1, 0, 1, 0, 0, 0, 2, 2, 4, 4, 0, 1, 0, 2, 0, 0, 1, 4, 4, 4]> : tensor<20xi64>)
// The graph inputs: images (-1) and labels (-2) are loaded where needed.
// CHECK-DAG: llvm.mlir.global internal constant @hd_sync0_groups(dense<[2, 0, 1]> : tensor<3xi64>)
// The ABI, declared from the runtime's table.
// CHECK-DAG: func.func private @hdrt_init(i32, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64)
// CHECK-DAG: func.func private @hdrt_define_layer(i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-DAG: func.func private @hdrt_finalize() -> i32

// CHECK-LABEL: func.func @main(%{{.*}}: i32, %{{.*}}: !llvm.ptr) -> i32
// CHECK-NOT: func.func @tiny
// CHECK: call @hdrt_init(%{{.*}}, %{{.*}}, %c2_i64,
// CHECK: %[[SOURCE:.*]] = llvm.mlir.addressof @hd_source
// CHECK: call @hdrt_define_source(%[[SOURCE]], %c4_i64)
// Definitions: every layer (its kind, then its descriptor and its size),
// every operand's edge, the replicated conv's sync.
// CHECK: %[[CONV:.*]] = llvm.mlir.addressof @hd_layer0_desc
// CHECK: call @hdrt_define_layer(%c0_i64, %c0_i64, {{.*}}, %[[CONV]], %c104_i64)
// CHECK: call @hdrt_define_tensors(%c0_i64,
// CHECK: %[[NONE:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @hdrt_define_layer(%c1_i64, %c3_i64, {{.*}}, %[[NONE]], %c0_i64)
// CHECK: call @hdrt_define_layer(%c2_i64, %c7_i64, {{.*}}, %c0_i64)
// CHECK: call @hdrt_define_layer(%c3_i64, %c2_i64, {{.*}}, %c16_i64)
// CHECK: call @hdrt_define_layer(%c4_i64, %c9_i64, {{.*}}, %c0_i64)
// CHECK: call @hdrt_define_edge(%c0_i64, %c0_i64, %c0_i64, %c-1_i64,
// CHECK: call @hdrt_define_edge(%c1_i64, %c1_i64, %c0_i64, %c0_i64,
// CHECK: call @hdrt_define_edge(%c5_i64, %c4_i64, %c1_i64, %c-2_i64,
// CHECK: call @hdrt_define_grad_sync(%c0_i64,
// CHECK-NOT: hdrt_define_grad_sync
// CHECK: call @hdrt_prepare()
// CHECK: %[[FIRST:.*]] = call @hdrt_first_step()
// CHECK: %[[LAST:.*]] = call @hdrt_last_step()
// CHECK: scf.for %[[STEP:.*]] = %[[FIRST]] to %[[LAST]] step %c1_i64
// CHECK-NEXT: call @hdrt_step_begin(%[[STEP]])
// Forward in program order, the transfer right before its consumer; the
// loss is the last layer's forward.
// CHECK-NEXT: call @hdrt_forward(%c0_i64)
// CHECK-NEXT: call @hdrt_transfer_forward(%c1_i64)
// CHECK-NEXT: call @hdrt_forward(%c1_i64)
// CHECK-NEXT: call @hdrt_forward(%c2_i64)
// CHECK-NEXT: call @hdrt_transfer_forward(%c3_i64)
// CHECK-NEXT: call @hdrt_forward(%c3_i64)
// CHECK-NEXT: call @hdrt_forward(%c4_i64)
// Backward in reverse, each transfer reversed after its consumer, the
// gradient sync right after the layer's backward.
// CHECK-NEXT: call @hdrt_backward(%c4_i64)
// CHECK-NEXT: call @hdrt_backward(%c3_i64)
// CHECK-NEXT: call @hdrt_transfer_backward(%c3_i64)
// CHECK-NEXT: call @hdrt_backward(%c2_i64)
// CHECK-NEXT: call @hdrt_backward(%c1_i64)
// CHECK-NEXT: call @hdrt_transfer_backward(%c1_i64)
// CHECK-NEXT: call @hdrt_backward(%c0_i64)
// CHECK-NEXT: call @hdrt_grad_sync(%c0_i64)
// Then the optimizer on every layer with parameters, in backward order (the
// order their gradient sums started).
// CHECK-NEXT: call @hdrt_sgd_update(%c3_i64)
// CHECK-NEXT: call @hdrt_sgd_update(%c0_i64)
// CHECK-NEXT: call @hdrt_step_end(%[[STEP]])
// CHECK-NEXT: }
// CHECK-NEXT: %[[RC:.*]] = call @hdrt_finalize()
// CHECK-NEXT: return %[[RC]] : i32
