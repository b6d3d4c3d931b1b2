// RUN: hd-opt %s --hd-layer-summary -o /dev/null | FileCheck %s
// RUN: hd-opt %s --hd-layer-summary | FileCheck %s --check-prefix=IR

// One row per layer in program order, named by location (or op@line), with
// parameters and forward FLOPs computed by hand below.

// CHECK: layer op output params fwd FLOPs
func.func @net(%x: tensor<2x3x8x8xf32>, %y: tensor<2xi32>) -> tensor<f32> {
  // weights 4*3*3*3 = 108 + bias 4; FLOPs 2*(2*4*6*6)*27 + 288 = 15840
  // CHECK-NEXT: stem conv2d 2x4x6x6 112 15.8K{{$}}
  %c = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x6x6xf32> loc("stem")
  // scale and shift: 2*4; FLOPs 7 per element
  // CHECK-NEXT: bn batchnorm 2x4x6x6 8 2.02K{{$}}
  %b = hd.batchnorm %c {epsilon = 1.0e-5 : f64, momentum = 0.9 : f64} : tensor<2x4x6x6xf32> loc("bn")
  // CHECK-NEXT: relu@[[@LINE+1]] relu 2x4x6x6 0 288{{$}}
  %r = hd.relu %b : tensor<2x4x6x6xf32>
  // CHECK-NEXT: gap pool2d 2x4x1x1 0 288{{$}}
  %g = hd.pool2d avg %r {global, kernel = array<i64: 6, 6>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<2x4x6x6xf32> -> tensor<2x4x1x1xf32> loc("gap")
  // CHECK-NEXT: flat flatten 2x4 0 0{{$}}
  %f = hd.flatten %g : tensor<2x4x1x1xf32> -> tensor<2x4xf32> loc("flat")
  // weights 5*4 + bias 5 = 25; FLOPs 2*10*4 + 10
  // CHECK-NEXT: fc linear 2x5 25 90{{$}}
  %l = hd.linear %f {out_features = 5 : i64, bias = true} : tensor<2x4xf32> -> tensor<2x5xf32> loc("fc")
  // 4 FLOPs per logit
  // CHECK-NEXT: loss softmax_cross_entropy scalar 0 40{{$}}
  %loss = hd.softmax_cross_entropy %l, %y : tensor<2x5xf32>, tensor<2xi32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
// CHECK-NEXT: total: 7 layers, 145 parameters, 18.6K FLOPs forward

// The pass only reads: the IR comes out unchanged.
// IR: hd.conv2d
// IR: hd.softmax_cross_entropy
