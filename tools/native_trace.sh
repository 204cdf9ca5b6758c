#!/usr/bin/env bash
# A native backtrace of a Python script that crashes or aborts, on machines
# without gdb (the GPU machine has none): tools/segv_trace.c is loaded with
# LD_PRELOAD, and each "module+offset" frame it prints is named by addr2line
# (function, file:line, inlined frames). For names inside kiln's _core, build
# it with debug information first, e.g.
#   pip install --no-build-isolation --no-deps --target DIR -C cmake.build-type=RelWithDebInfo .
#
#   tools/native_trace.sh SCRIPT.py [RUNS]    (environment passes through: KILN_BACKEND, PYTHONPATH...)
# prints the script's output and, for each run that ends on a fatal signal,
# the named frames. Exit status: that of the last run.
set -uo pipefail
script=$1
runs=${2:-1}
py=${PYTHON:-python3}
lib=/tmp/segv_trace.so
cc -shared -fPIC -O1 -o "$lib" "$(dirname "$0")/segv_trace.c" || exit 1
rc=0
for ((i = 1; i <= runs; ++i)); do
  log=$(mktemp)
  LD_PRELOAD=$lib timeout 300 "$py" "$script" >"$log" 2>&1
  rc=$?
  echo "=== run $i: exit status $rc ==="
  grep -v "^segv_trace" "$log" | tail -20
  grep -E "^segv_trace" "$log" | while read -r _ idx where sym; do
    echo "$idx $where $sym"
    case "$where" in
      /*+0x*) addr2line -f -C -i -e "${where%+0x*}" "0x${where##*+0x}" 2>/dev/null | sed 's/^/    /' ;;
    esac
  done
  rm -f "$log"
done
exit "$rc"
