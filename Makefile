# hd's two commands: `make demo` and `make check`. Both install what is missing
# (scripts/bootstrap.sh), configure with CMake + Ninja into build/, then run.
BUILD ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all bootstrap configure build check demo docs models clean

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
