#!/bin/sh
# Builds the fake driver and runs the cuda backend's tests against it.
#   tests/cpp/cuda_fake/run.sh [extra g++ flags, e.g. -fsanitize=address,undefined]
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=$root/build/cuda-fake
mkdir -p "$out"
cat > "$out/host_stub.cpp" <<'CPP'
#include "runtime/host/host_backend.h"
namespace kiln::runtime { std::unique_ptr<Backend> make_host_backend() { return nullptr; } }
CPP
g++ -std=c++17 -shared -fPIC -O1 "$root/tests/cpp/cuda_fake/fake_libcuda.cpp" -o "$out/libfakecuda.so"
g++ -std=c++20 -O2 -g -Wall -Wextra -Wno-unused-parameter "$@" -I"$root" \
  "$root"/runtime/cuda/*.cpp "$root/runtime/backend_select.cpp" "$root/runtime/files.cpp" "$root/runtime/memory_pool.cpp" "$out/host_stub.cpp" \
  "$root/tests/cpp/cuda_fake/test_cuda_backend_fake.cpp" -lgtest -lpthread -ldl -o "$out/test_cuda_backend_fake"
KILN_FAKE_LIBCUDA="$out/libfakecuda.so" "$out/test_cuda_backend_fake"
