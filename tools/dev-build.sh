#!/usr/bin/env bash
# Developer build of the native core without pip: configures and builds _core with CMake and
# Ninja into BUILD_DIR (default build/dev), using the repo's .venv for Python, pybind11 and ns-3.
# Use the result with:  LEOGYM_CORE_DIR=<BUILD_DIR> python ...
# The test probes (_core.testing) are on unless LEOGYM_TESTING=OFF is in the environment.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/dev}"
venv_py="${LEOGYM_VENV_PY:-/work/main/.venv/bin/python}"
[ -x "$venv_py" ] || venv_py="$here/.venv/bin/python"
pybind_dir="$("$venv_py" -c 'import pybind11; print(pybind11.get_cmake_dir())')"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSKBUILD_PROJECT_NAME=leogym -DSKBUILD_PROJECT_VERSION=0.1.0 \
    -DLEOGYM_TESTING="${LEOGYM_TESTING:-ON}" \
    -DPython_EXECUTABLE="$venv_py" -Dpybind11_DIR="$pybind_dir" >/dev/null
fi
ninja -C "$build" ${NINJA_ARGS:-}
echo "built: $(ls "$build"/_core*.so)"
