#!/usr/bin/env bash
# On the GPU machine (NVIDIA GPU, no network; Python 3.12 with NumPy 2,
# pybind11, scikit-build-core, cmake, ninja, CuPy, PyTorch preinstalled):
# build kiln with that machine's python, run the whole pytest suite with
# KILN_BACKEND=cuda, then the benchmarks, and print a short summary last.
# Logs go to $OUT (the device tool's output folder) or ./gpu-logs.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/gpu-logs}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 KILN_CACHE_DIR=/tmp/kiln-cache
py=python3

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
site=/tmp/kiln_site
rm -rf "$site"
t0=$(date +%s)
if ! $py -m pip install --no-build-isolation --no-deps --no-cache-dir --target "$site" . >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  echo "SUMMARY: build FAILED (see build.log)"
  exit 1
fi
build_s=$(( $(date +%s) - t0 ))
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"

# Test dependencies the GPU machine (no network) may lack come from the wheels
# in tools/wheels, installed into a private target:
#   wheels_if_missing NAME "imports" "packages" "module:package ..."
# installs the packages (and each module:package whose module does not
# import, so the machine's own copies are not shadowed) when the imports fail.
wheels_if_missing() {
  local name=$1 imports=$2 need=$3 deps=/tmp/kiln_$1_site mod
  $py -c "import $imports" 2>/dev/null && return
  rm -rf "$deps"
  for mod in $4; do
    $py -c "import ${mod%%:*}" 2>/dev/null || need="$need ${mod##*:}"
  done
  # shellcheck disable=SC2086
  if $py -m pip install -q --no-index --no-deps --find-links tools/wheels --target "$deps" $need \
      >"$out/${name}_install.log" 2>&1; then
    export PYTHONPATH="$PYTHONPATH:$deps"
  else
    echo "$name install from tools/wheels failed (see ${name}_install.log): its tests will skip"
  fi
}
# Dask (tests/python/interop/test_interop_dask.py) and its pure-Python dependencies.
wheels_if_missing dask dask.array "dask toolz cloudpickle partd locket fsspec" \
  "yaml:pyyaml packaging:packaging click:click"
# scikit-learn and array-api-compat (tests/python/interop/test_interop_sklearn.py).
wheels_if_missing sklearn "sklearn, array_api_compat" "scikit-learn array-api-compat" \
  "joblib:joblib threadpoolctl:threadpoolctl"

# A kiln.jit and kiln.vectorize smoke test first: should the transpiler
# crash, jit_smoke.log keeps the Python frames (faulthandler) and, where the
# machine has gdb, the C++ backtrace.
KILN_BACKEND=cuda timeout 120 $py -X faulthandler tools/jit_smoke.py >"$out/jit_smoke.log" 2>&1
smoke_rc=$?
if [ "$smoke_rc" != 0 ]; then
  echo "=== jit smoke test FAILED (rc=$smoke_rc), see jit_smoke.log ==="
  tail -25 "$out/jit_smoke.log"
  # The native backtrace: gdb where the machine has it, else tools/segv_trace.c
  # (LD_PRELOAD), its module+offset frames named by addr2line.
  if command -v gdb >/dev/null; then
    KILN_BACKEND=cuda timeout 180 gdb -q -batch -ex run -ex bt -ex "info registers rip" --args $py tools/jit_smoke.py \
      >>"$out/jit_smoke.log" 2>&1
    grep -E "^#[0-9]+ " "$out/jit_smoke.log" | head -30
  else
    for backend in cuda host; do
      echo "=== KILN_BACKEND=$backend under tools/native_trace.sh ===" >>"$out/jit_smoke.log"
      KILN_BACKEND=$backend PYTHON=$py bash tools/native_trace.sh tools/jit_smoke.py >>"$out/jit_smoke.log" 2>&1
    done
    tail -80 "$out/jit_smoke.log"
  fi
fi

# KILN_GPU_PROBE="command" runs a command (a measurement script) against this
# build before the tests, its output in probe.log.
if [ -n "${KILN_GPU_PROBE:-}" ]; then
  KILN_BACKEND=cuda timeout "${KILN_GPU_PROBE_S:-300}" bash -c "$KILN_GPU_PROBE" >"$out/probe.log" 2>&1
  echo "=== probe (rc=$?) ==="
  tail -40 "$out/probe.log"
fi

# KILN_GPU_BENCH_ONLY=1 skips the test suite; KILN_BENCH="a b" picks benchmarks
# (KILN_BENCH_ROUNDS=N runs them N times and prints the medians);
# KILN_GPU_TEST_S=N stops pytest after N seconds (so the benchmarks still run
# within the device tool's per-call limit).
if [ "${KILN_GPU_BENCH_ONLY:-0}" = 1 ]; then
  echo "(tests skipped)" >"$out/pytest.log"
  test_rc=0
else
  # pytest-xdist, when the machine has it, spreads the NVRTC compiles over cores
  # (14 workers on the 16-core H100 machine: the whole suite in about 6 minutes).
  par=""
  if $py -c "import xdist" 2>/dev/null; then par="-n ${KILN_GPU_WORKERS:-14}"; fi
  # shellcheck disable=SC2086
  KILN_BACKEND=cuda timeout "${KILN_GPU_TEST_S:-0}" $py -m pytest -v -rfE -p no:cacheprovider --timeout=300 $par "${@:-tests/python}" \
    >"$out/pytest.log" 2>&1
  test_rc=$?
fi
# shellcheck disable=SC2086
KILN_BACKEND=cuda $py benchmarks/run.py ${KILN_BENCH:-} >"$out/bench.log" 2>&1
bench_rc=$?
# KILN_BASE_DIR=DIR (an older checkout, carried in an ignored folder) runs
# the same benchmarks on that build too, in this call on this card: the
# before/after figures of a change (bench_base.log).
if [ -n "${KILN_BASE_DIR:-}" ] && [ -d "${KILN_BASE_DIR}" ]; then
  base_site=/tmp/kiln_base_site
  rm -rf "$base_site"
  if $py -m pip install --no-build-isolation --no-deps --no-cache-dir --target "$base_site" "$KILN_BASE_DIR" \
      >"$out/build_base.log" 2>&1; then
    # shellcheck disable=SC2086
    PYTHONPATH="$base_site" KILN_BACKEND=cuda $py benchmarks/run.py ${KILN_BENCH:-} >"$out/bench_base.log" 2>&1
    echo "=== benchmarks of the base build (${KILN_BASE_DIR}) ==="
    tail -30 "$out/bench_base.log"
  else
    echo "base build FAILED (see build_base.log)"
  fi
fi
# KILN_CONFORMANCE="areas" (or "default") then runs CuPy's own suite
# (../shared/conformance, copied into the checkout's ignored .conformance:
# its README) against this build (KILN_CONFORMANCE_MODULE=cupy: against
# CuPy itself), each area's tally in conformance.log, the JUnit report in
# conformance_report.xml.gz.
if [ -n "${KILN_CONFORMANCE:-}" ] && [ -f .conformance/run_cupy_tests.sh ]; then
  areas="${KILN_CONFORMANCE}"; [ "$areas" = default ] && areas=""
  limit="${KILN_CONFORMANCE_S:-480}"
  # The runner interrupts pytest itself 90 s before the outer limit, so the
  # JUnit report of a cut-short run is still written and tallied per area.
  # shellcheck disable=SC2086
  PYTHON=$py KILN_BACKEND=cuda CUPY_WORKERS="${KILN_GPU_WORKERS:-14}" CUPY_EXTRA_PYTHONPATH="$site" \
    CUPY_OUT=/tmp/kiln_conformance CUPY_RUN_TIMEOUT=$((limit - 90)) \
    timeout "$limit" bash .conformance/run_cupy_tests.sh "${KILN_CONFORMANCE_MODULE:-kiln}" $areas \
    >"$out/conformance.log" 2>&1
  gzip -c /tmp/kiln_conformance/report.xml >"$out/conformance_report.xml.gz" 2>/dev/null
  echo "=== CuPy conformance (${KILN_CONFORMANCE_MODULE:-kiln}) ==="
  tail -40 "$out/conformance.log"
fi

echo "=== pytest (KILN_BACKEND=cuda), failures first ==="
# -v names every result as it comes, so failures are known even when KILN_GPU_TEST_S cuts the run short.
grep -E "(FAILED|ERROR) tests/" "$out/pytest.log" | head -30
tail -5 "$out/pytest.log"
echo "=== benchmarks ==="
cat "$out/bench.log" | tail -30
echo "SUMMARY: gpu=$(cat "$out/gpu.txt") build=${build_s}s jit_smoke_rc=$smoke_rc pytest_rc=$test_rc bench_rc=$bench_rc;" \
  "results: $(grep -cE ' PASSED ' "$out/pytest.log") passed, $(grep -cE ' FAILED ' "$out/pytest.log") failed," \
  "$(grep -cE ' SKIPPED ' "$out/pytest.log") skipped, $(grep -cE ' ERROR ' "$out/pytest.log") errors; $(tail -1 "$out/pytest.log")"
