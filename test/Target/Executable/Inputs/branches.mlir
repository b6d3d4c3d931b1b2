// Prints A and exits 0 with no arguments; prints B and exits 2 with any.
func.func private @putchar(i32) -> i32

func.func @main(%argc: i32, %argv: !llvm.ptr) -> i32 {
  %c1 = arith.constant 1 : i32
  %hasArgs = arith.cmpi sgt, %argc, %c1 : i32
  %letter = scf.if %hasArgs -> i32 {
    %b = arith.constant 66 : i32
    scf.yield %b : i32
  } else {
    %a = arith.constant 65 : i32
    scf.yield %a : i32
  }
  %0 = func.call @putchar(%letter) : (i32) -> i32
  %newline = arith.constant 10 : i32
  %1 = func.call @putchar(%newline) : (i32) -> i32
  cf.cond_br %hasArgs, ^withArgs, ^withoutArgs
^withArgs:
  %two = arith.constant 2 : i32
  return %two : i32
^withoutArgs:
  %zero = arith.constant 0 : i32
  return %zero : i32
}
