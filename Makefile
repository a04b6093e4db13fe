# The two commands of the README, and a few conveniences around CMake.
#   make demo   configure, build, run `bitonic-sort demo` (GPU, or the CPU reference without one)
#   make test   configure, build, run every test (GPU tests skip cleanly without a GPU), the
#               Python package's pytest suite included
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
BIN := $(BUILD_DIR)/bin
SOURCES := $(shell git ls-files '*.hpp' '*.cpp' '*.cu' '*.cuh' 2>/dev/null)

# The Python package (python/) is built into the same CMake tree as its module bitonic._core and
# tested there by pytest, with a venv of its own under the build tree (nanobind, pytest, numpy,
# and dask with distributed for bitonic.dask where Python >= 3.10, from PyPI; the minimums of
# pyproject.toml), so nothing goes into the system's Python.
# BITONIC_PYTHON=OFF leaves it out; PYTHON picks the interpreter the venv is made from.
PYTHON ?= python3
BITONIC_PYTHON ?= ON
PY_ENV := $(BUILD_DIR)/python-env
PY := $(PY_ENV)/bin/python
PY_PACKAGES := 'nanobind>=2.4' 'scikit-build-core>=0.10' 'pytest>=7' 'numpy>=1.22' \
	'dask[array,dataframe]>=2024.12.1; python_version >= "3.10"' \
	'distributed>=2024.12.1; python_version >= "3.10"'
ifeq ($(BITONIC_PYTHON),ON)
PY_STAMP := $(PY_ENV)/.installed
PY_CMAKE_ARGS := -DBITONIC_PYTHON=ON -DPython_EXECUTABLE=$(abspath $(PY))
else
PY_CMAKE_ARGS := -DBITONIC_PYTHON=OFF
endif

.PHONY: all configure build demo test python-test wheel bench install format check-format \
	check-includes clean

all: build

configure: $(PY_STAMP)
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(PY_CMAKE_ARGS) $(CMAKE_ARGS)

$(PY_ENV)/.installed:
	$(PYTHON) -m venv $(PY_ENV)
	$(PY) -m pip install -q --disable-pip-version-check $(PY_PACKAGES)
	touch $@

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BIN)/bitonic-sort demo

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure

# The Python tests alone, against the module in the build tree.
python-test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -R python_tests

# The wheel `pip wheel .` makes, built with the venv's nanobind and scikit-build-core (no
# download of build tools): its own CMake build of the library and module, into $(BUILD_DIR)/wheels.
wheel: $(PY_ENV)/.installed
	$(PY) -m pip wheel --no-build-isolation --no-deps -w $(BUILD_DIR)/wheels .

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
