// Every layer kind's descriptor: the op's attributes, by name, in the
// field order of the runtime's struct (runtime/include/hdrt/LayerKinds.def).
// Integers, booleans and enums as i64, floats as f64, an unset optional
// attribute (a pool's `global`) as 0. A kind without fields takes none.
// RUN: hd-opt %s --layerwise-parallelize="devices=1" --hd-insert-transfers --hd-lower-to-runtime | FileCheck %s
// RUN: hd-opt %s --layerwise-parallelize="devices=1" --hd-insert-transfers --hd-lower-to-runtime | FileCheck %s --check-prefix=NONE
// NONE-NOT: @hd_layer{{(2|4|5|10|17)}}_desc

module attributes {hd.model = "kinds"} {
  func.func @kinds(%x: tensor<2x4x8x8xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %c = hd.conv2d %x {bias = false, dilation = array<i64: 1, 1>, groups = 2 : i64, kernel = array<i64: 3, 3>, out_channels = 4 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xf32> loc("conv")
    %b = hd.batchnorm %c {epsilon = 1.0e-05 : f64, momentum = 0.9 : f64} : tensor<2x4x8x8xf32> loc("bn")
    %r = hd.relu %b : tensor<2x4x8x8xf32> loc("relu")
    %p = hd.pool2d max %r {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, ceil_mode = true} : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32> loc("maxpool")
    %a = hd.add %p, %p : tensor<2x4x4x4xf32> loc("add")
    %cat = hd.concat %a, %p : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x8x4x4xf32> loc("concat")
    %n = hd.layer_norm %cat {epsilon = 1.0e-06 : f64} : tensor<2x8x4x4xf32> loc("layernorm")
    %sh = hd.channel_shuffle %n {groups = 2 : i64} : tensor<2x8x4x4xf32> loc("shuffle")
    %sl = hd.slice %sh {offset = 4 : i64} : tensor<2x8x4x4xf32> -> tensor<2x4x4x4xf32> loc("slice")
    %g = hd.pool2d avg %sl {global, kernel = array<i64: 4, 4>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, count_include_pad = true} : tensor<2x4x4x4xf32> -> tensor<2x4x1x1xf32> loc("gap")
    %f = hd.flatten %g : tensor<2x4x1x1xf32> -> tensor<2x4xf32> loc("flatten")
    %d = hd.dropout %f {ratio = 0.25 : f64} : tensor<2x4xf32> loc("dropout")
    %l = hd.linear %d {bias = true, out_features = 3 : i64} : tensor<2x4xf32> -> tensor<2x3xf32> loc("fc")
    %h = hd.activation hardsigmoid %l {alpha = 0.2, beta = 0.5} : tensor<2x3xf32> loc("hardsigmoid")
    %m = hd.binary mul %l, %h : tensor<2x3xf32>, tensor<2x3xf32> loc("mul")
    %cd = hd.channel_binary div %m {frozen} : tensor<2x3xf32> loc("channel_div")
    %cs = hd.channel_binary sub %cd : tensor<2x3xf32> loc("channel_sub")
    %loss = hd.softmax_cross_entropy %cs, %y : tensor<2x3xf32>, tensor<2xi32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
}

// out_channels, kernel, stride, padding, dilation, groups, bias
// CHECK-DAG: @hd_layer0_desc([4, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 2, 0]) {{.*}} : !llvm.struct<"hdrt.conv2d.desc", (i64, array<2 x i64>, array<2 x i64>, array<4 x i64>, array<2 x i64>, i64, i64)>
// epsilon, momentum
// CHECK-DAG: @hd_layer1_desc([1.000000e-05, 9.000000e-01]) {{.*}} : !llvm.struct<"hdrt.batchnorm.desc", (f64, f64)>
// kind (0: max), kernel, stride, padding, ceil_mode, count_include_pad, global
// CHECK-DAG: @hd_layer3_desc([0, [3, 3], [2, 2], [0, 0, 0, 0], 1, 0, 0]) {{.*}} : !llvm.struct<"hdrt.pool2d.desc", (i64, array<2 x i64>, array<2 x i64>, array<4 x i64>, i64, i64, i64)>
// epsilon
// CHECK-DAG: @hd_layer6_desc([9.9999999999999995E-7]) {{.*}} : !llvm.struct<"hdrt.layer_norm.desc", (f64)>
// groups
// CHECK-DAG: @hd_layer7_desc([2]) {{.*}} : !llvm.struct<"hdrt.channel_shuffle.desc", (i64)>
// offset
// CHECK-DAG: @hd_layer8_desc([4]) {{.*}} : !llvm.struct<"hdrt.slice.desc", (i64)>
// CHECK-DAG: @hd_layer9_desc([1, [4, 4], [1, 1], [0, 0, 0, 0], 0, 1, 1])
// ratio
// CHECK-DAG: @hd_layer11_desc([2.500000e-01]) {{.*}} : !llvm.struct<"hdrt.dropout.desc", (f64)>
// function (2: hardsigmoid), alpha, beta
// CHECK-DAG: @hd_layer13_desc([2, 2.000000e-01, 5.000000e-01]) {{.*}} : !llvm.struct<"hdrt.activation.desc", (i64, f64, f64)>
// function (2: mul)
// CHECK-DAG: @hd_layer14_desc([2]) {{.*}} : !llvm.struct<"hdrt.binary.desc", (i64)>
// function (3: div, 1: sub), frozen
// CHECK-DAG: @hd_layer15_desc([3, 1]) {{.*}} : !llvm.struct<"hdrt.channel_binary.desc", (i64, i64)>
// CHECK-DAG: @hd_layer16_desc([1, 0]) {{.*}} : !llvm.struct<"hdrt.channel_binary.desc", (i64, i64)>
// out_features, bias
// CHECK-DAG: @hd_layer12_desc([3, 1]) {{.*}} : !llvm.struct<"hdrt.linear.desc", (i64, i64)>
