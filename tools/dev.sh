#!/usr/bin/env bash
# Set up (virtual environment, dependencies from PyPI, build) and then:
#   tools/dev.sh example   run examples/quickstart.py on the default backend
#   tools/dev.sh test      run the whole test suite: ctest (C++) then pytest
# Works on a fresh machine with python3 (>= 3.9), a C++20 compiler and cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-test}"

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q numpy scipy ml_dtypes pytest pytest-xdist pybind11 scikit-build-core ninja dask scikit-learn array-api-compat

case "$what" in
  example)
    .venv/bin/python -m pip install -q --no-build-isolation --no-deps .
    .venv/bin/python examples/quickstart.py
    ;;
  test)
    .venv/bin/python tools/code_lines.py   # issue 20's layer sizes, in CI's log
    # One build for both: the package's build directory also builds the C++
    # tests (the same libraries), and ctest runs there.
    .venv/bin/python -m pip install -q --no-build-isolation --no-deps \
      --config-settings=build-dir=build/test --config-settings=cmake.define.KILN_BUILD_TESTS=ON .
    ctest --test-dir build/test --output-on-failure -j2
    .venv/bin/python -m pytest tests/python -q -p no:cacheprovider -n 2   # two workers: host kernel compiles dominate
    ;;
  *)
    echo "usage: tools/dev.sh example|test" >&2
    exit 2
    ;;
esac
