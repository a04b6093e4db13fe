# The two commands of the README, and a few conveniences around CMake.
#   make demo   configure, build, run `bitonic-sort demo` (GPU, or the CPU reference without one)
#   make test   configure, build, run every test (GPU tests skip cleanly without a GPU)
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
BIN := $(BUILD_DIR)/bin
SOURCES := $(shell git ls-files '*.hpp' '*.cpp' '*.cu' '*.cuh' 2>/dev/null)

.PHONY: all configure build demo test bench install format check-format check-includes clean

all: build

configure:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BIN)/bitonic-sort demo

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure

# Full benchmark (needs a GPU): CSV and plots under docs/results/.
bench: build
	scripts/bench-full $(BUILD_DIR) docs/results

install: build
	cmake --install $(BUILD_DIR) $(if $(PREFIX),--prefix $(PREFIX))

format:
	clang-format -i $(SOURCES)

check-format:
	clang-format --dry-run -Werror $(SOURCES)

check-includes:
	scripts/check-includes

clean:
	rm -rf $(BUILD_DIR)
