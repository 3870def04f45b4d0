# leogym: two commands do all the set-up on a fresh machine.
#   make run    runs the main job on the embedded default scenario
#   make test   runs the tests
# Both create and reuse .venv/ in the repository root. Also:
#   make test-fast  the tests that need no compiled core (-m "not native"), about a minute
#   make lint       ruff check, ruff format --check, nbstripout --verify, mypy (CI runs it)
#   make hooks      installs the pre-commit hooks (.pre-commit-config.yaml)

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
NS3_WHEEL := ns3==3.44.post0
# A CPU build of PyTorch keeps CI lean. On machines whose package index serves the CUDA build
# under this version, point pip at PyTorch's CPU wheel index (PIP_EXTRA_INDEX_URL) first.
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.leogym-installed
# The editable install maps every Python module to its file, so a module added, moved or
# removed must re-run it: MODULES lists them and is rewritten only when the list changes.
MODULES := $(VENV)/.leogym-modules
$(shell mkdir -p $(VENV) && find -L src -name '*.py' | sort > $(MODULES).new && \
	(cmp -s $(MODULES).new $(MODULES) || mv $(MODULES).new $(MODULES)); rm -f $(MODULES).new)
SOURCES := $(shell find cpp -name '*.cc' -o -name '*.h' -o -name CMakeLists.txt 2>/dev/null) \
	CMakeLists.txt pyproject.toml $(MODULES)

.PHONY: all install run test test-fast lint hooks bench clean distclean

all: install

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# The ns3 wheel is installed without its cppyy dependency: we use only its headers and
# libraries. The build needs them in the same environment, hence --no-build-isolation.
# LEOGYM_TESTING=ON builds the test and benchmark probes (_core.testing) that `make test` and
# `make bench` need; a wheel built without the flag leaves them out. The `distributed` extra
# (Ray) is what the Ray tests and the bench's `ray` and `sweep` sections need.
$(STAMP): $(VENV)/bin/python $(SOURCES)
	$(PIP) install --quiet "$(TORCH_SPEC)"
	$(PIP) install --quiet --no-deps "$(NS3_WHEEL)"
	$(PIP) install --quiet "scikit-build-core>=0.10" "pybind11>=2.12" ninja "cmake>=3.18"
	$(PIP) install --quiet --no-build-isolation -Cbuild-dir=build/editable \
		-Ccmake.define.LEOGYM_TESTING=ON -e ".[test,lint,distributed]"
	@touch $(STAMP)

install: $(STAMP)

# RUN_ARGS passes overrides to the main job, e.g. make run RUN_ARGS="experiment=quick".
run: install
	$(VENV)/bin/leogym-run $(RUN_ARGS)

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

# The pure-Python layer only: tests marked `native` (they load leogym._core) are deselected.
test-fast: install
	$(PY) -m pytest -m "not native" $(PYTEST_ARGS)

# Notebooks are committed without outputs, but keep their cell ids (nbformat 4.5 needs them).
lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/nbstripout --verify --keep-id notebooks/*.ipynb
	$(VENV)/bin/clang-format --dry-run --Werror --style=file $$(find cpp -name '*.cc' -o -name '*.h')
	$(PY) tools/typecheck.py

hooks: install
	$(PIP) install --quiet "pre-commit>=3.5"
	$(VENV)/bin/pre-commit install

bench: install
	$(PY) -m benchmarks $(BENCH_ARGS)

clean:
	rm -rf build outputs multirun

distclean: clean
	rm -rf $(VENV)
