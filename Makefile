# leogym: two commands do all the set-up on a fresh machine.
#   make run    runs the main job on the embedded default scenario
#   make test   runs the tests
# Both create and reuse .venv/ in the repository root.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
NS3_WHEEL := ns3==3.44.post0
# A CPU build of PyTorch keeps CI lean. On machines whose package index serves the CUDA build
# under this version, point pip at PyTorch's CPU wheel index (PIP_EXTRA_INDEX_URL) first.
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.leogym-installed
# Ray and hydra-ray-launcher live outside the venv (the launcher pins cloudpickle<3): the Ray
# sweep test puts this folder on its own processes' PYTHONPATH only.
RAY_SITE := $(VENV)/ray-site
RAY_STAMP := $(RAY_SITE)/.installed
SOURCES := $(shell find cpp -name '*.cc' -o -name '*.h' 2>/dev/null) CMakeLists.txt pyproject.toml

.PHONY: all install run test bench clean distclean

all: install

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# The ns3 wheel is installed without its cppyy dependency: we use only its headers and
# libraries. The build needs them in the same environment, hence --no-build-isolation.
$(STAMP): $(VENV)/bin/python $(SOURCES)
	$(PIP) install --quiet "$(TORCH_SPEC)"
	$(PIP) install --quiet --no-deps "$(NS3_WHEEL)"
	$(PIP) install --quiet "scikit-build-core>=0.10" "pybind11>=2.12" ninja "cmake>=3.18"
	$(PIP) install --quiet --no-build-isolation -Cbuild-dir=build/editable -e ".[test]"
	@touch $(STAMP)

install: $(STAMP)

$(RAY_STAMP): $(VENV)/bin/python
	$(PIP) install --quiet --target $(RAY_SITE) "hydra-ray-launcher>=1.2.2"
	@touch $(RAY_STAMP)

# RUN_ARGS passes overrides to the main job, e.g. make run RUN_ARGS="experiment=quick".
run: install
	$(VENV)/bin/leogym-run $(RUN_ARGS)

test: install $(RAY_STAMP)
	LEOGYM_RAY_PATH=$(CURDIR)/$(RAY_SITE) $(PY) -m pytest $(PYTEST_ARGS)

bench: install $(RAY_STAMP)
	LEOGYM_RAY_PATH=$(CURDIR)/$(RAY_SITE) $(PY) -m benchmarks $(BENCH_ARGS)

clean:
	rm -rf build outputs multirun

distclean: clean
	rm -rf $(VENV)
