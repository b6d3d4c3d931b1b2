# hd's two commands: `make demo` and `make check`. Both install what is missing
# (scripts/bootstrap.sh), configure with CMake + Ninja into build/, then run.
BUILD ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all bootstrap configure build check check-sanitize fuzz demo docs models clean

all: build

bootstrap:
	@scripts/bootstrap.sh

$(BUILD)/build.ninja: CMakeLists.txt | bootstrap
	cmake -G Ninja -S . -B $(BUILD) $(CMAKE_FLAGS) \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit

configure: bootstrap $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD) -j $(JOBS) hd-all

# Builds everything, then runs every suite (lit: dialect, passes, import, docs,
# models; GoogleTest unit tests) and ends with one summary line.
check: build
	@scripts/run-tests.sh $(BUILD)

# The whole suite, MPI integration tests included, on a build with
# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer in every hd
# target, the runtime and the programs it links. Asserts stay off: the MLIR
# headers must match the libraries' NDEBUG.
SANITIZE_BUILD ?= build-sanitize
check-sanitize:
	$(MAKE) check BUILD=$(SANITIZE_BUILD) CMAKE_FLAGS='-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1 -DNDEBUG" -DHD_SANITIZE=address,undefined'

# Runs each libFuzzer target (tools/hd-fuzzers) for FUZZ_SECONDS on a clang
# build with coverage, ASan and UBSan; new crashes land in
# test/Fuzz/Regressions/, which `make check` replays. The table goes into
# docs/results.md.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
fuzz: build
	@scripts/bootstrap.sh fuzz
	cmake -G Ninja -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1 -DNDEBUG" \
	  -DHD_SANITIZE=address,undefined -DHD_FUZZ=ON \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit
	ninja -C $(FUZZ_BUILD) -j $(JOBS) hd-pipeline-fuzzer hd-onnx-fuzzer hd-json-fuzzer \
	  hd-data-fuzzer hd-onnx-weights-fuzzer
	scripts/fuzz.py --fuzz-build $(FUZZ_BUILD) --tools $(BUILD)/bin \
	  --seconds $(FUZZ_SECONDS) --results docs/results.md

demo: build
	@scripts/demo.sh $(BUILD)

# Regenerates the checked-in dialect/pass docs from TableGen.
docs: build
	ninja -C $(BUILD) mlir-doc
	scripts/update-docs.sh $(BUILD)

# Regenerates models/*.mlir from models/*.onnx.
models: build
	models/regenerate.sh $(BUILD)/bin/hd-translate

clean:
	rm -rf $(BUILD)
