// A module already fully in the LLVM dialect links as it is; so does control
// flow in scf and cf.

// RUN: rm -f %t.exe
// RUN: hd-translate --hd-to-executable %s -o %t.exe --hd-runtime-dir=%hd_lib_dir
// RUN: sh -c '%t.exe; echo "exit=$?"' | FileCheck %s
// CHECK: all llvm
// CHECK-NEXT: exit=7

// RUN: rm -f %t.cf.exe
// RUN: hd-translate --hd-to-executable %S/Inputs/branches.mlir -o %t.cf.exe --hd-runtime-dir=%hd_lib_dir
// RUN: sh -c '%t.cf.exe; echo "exit=$?"' | FileCheck %s --check-prefix=ONE
// RUN: sh -c '%t.cf.exe x; echo "exit=$?"' | FileCheck %s --check-prefix=TWO
// ONE: A
// ONE-NEXT: exit=0
// TWO: B
// TWO-NEXT: exit=2

llvm.mlir.global internal constant @msg("all llvm\00") {addr_space = 0 : i32}
llvm.func @puts(!llvm.ptr) -> i32
llvm.func @main() -> i32 {
  %s = llvm.mlir.addressof @msg : !llvm.ptr
  %0 = llvm.call @puts(%s) : (!llvm.ptr) -> i32
  %c = llvm.mlir.constant(7 : i32) : i32
  llvm.return %c : i32
}
