# Sanitizer settings for a build configured with -DHD_SANITIZE=...: the
# regression and unit test suites both load this.
import os


# LLVM's BumpPtrAllocator poisons its slabs in instrumented code, but
# libMLIR.so's uninstrumented copy allocates from them without unpoisoning:
# every hd process that links MLIR needs this (scripts/fuzz.py too).
MLIR_ASAN_OPTIONS = "allow_user_poisoning=0"
# A report ends the process with SIGABRT, not with an exit status a tool
# could have chosen (ASan's and UBSan's default is 1, every hd tool's
# error): a test that expects a tool to fail then sees a signal, and fails,
# where the tool's error path leaks or reads freed memory.
ABORT_ON_ERROR = "abort_on_error=1"
ASAN_OPTIONS = ":".join([
    "detect_leaks=1", "strict_string_checks=1", "fast_unwind_on_malloc=0",
    "check_initialization_order=1", "detect_stack_use_after_return=1",
    ABORT_ON_ERROR, MLIR_ASAN_OPTIONS])


def configure(config):
    if not config.hd_sanitize:
        return
    here = os.path.dirname(os.path.abspath(__file__))
    config.available_features.add("sanitize")
    env = config.environment
    # Errors end the process with a report; leaks are errors too. The slow
    # unwinder sees through libraries built without frame pointers (Open
    # MPI), so their leaks match the suppressions by library.
    env["ASAN_OPTIONS"] = ASAN_OPTIONS
    # Open MPI and its plugins keep allocations until exit by design.
    env["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0:%s" % (
        os.path.join(here, "lsan.supp"), ABORT_ON_ERROR)
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:" + \
        ABORT_ON_ERROR
