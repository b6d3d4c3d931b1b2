// A lowered program runs: @main prints through libc's puts, sums a constant
// table in an scf.for loop and returns the sum plus argc as its exit code.

// RUN: rm -f %t.exe
// RUN: hd-translate --hd-to-executable %s -o %t.exe --hd-runtime-dir=%hd_lib_dir
// RUN: test -x %t.exe
// RUN: sh -c '%t.exe; echo "exit=$?"' | FileCheck %s
// RUN: sh -c '%t.exe a b; echo "exit=$?"' | FileCheck %s --check-prefix=ARGS
// CHECK: hello from hd
// CHECK-NEXT: exit=11
// ARGS: exit=13

// The same through $HD_RUNTIME_DIR and the build's default, with --backend=cpu.
// RUN: rm -f %t.exe
// RUN: env HD_RUNTIME_DIR=%hd_lib_dir hd-translate --hd-to-executable %s -o %t.exe
// RUN: sh -c '%t.exe; echo "exit=$?"' | FileCheck %s
// RUN: rm -f %t.exe
// RUN: env -u HD_RUNTIME_DIR hd-translate --hd-to-executable %s -o %t.exe --backend=cpu
// RUN: sh -c '%t.exe; echo "exit=$?"' | FileCheck %s

llvm.mlir.global internal constant @greeting("hello from hd\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @table(dense<[1, 2, 3, 4]> : tensor<4xi64>) : !llvm.array<4 x i64>

func.func private @puts(!llvm.ptr) -> i32

func.func @main(%argc: i32, %argv: !llvm.ptr) -> i32 {
  %msg = llvm.mlir.addressof @greeting : !llvm.ptr
  %0 = func.call @puts(%msg) : (!llvm.ptr) -> i32
  %table = llvm.mlir.addressof @table : !llvm.ptr
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i64
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i64) {
    %idx = arith.index_cast %i : index to i64
    %p = llvm.getelementptr %table[0, %idx] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i64>
    %v = llvm.load %p : !llvm.ptr -> i64
    %next = arith.addi %acc, %v : i64
    scf.yield %next : i64
  }
  %sum32 = arith.trunci %sum : i64 to i32
  %code = arith.addi %sum32, %argc : i32
  return %code : i32
}
