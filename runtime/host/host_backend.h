// The host backend: runs the CUDA C++ that every other backend runs, on the
// CPU. Source is compiled by the system C++ compiler ($KILN_HOST_CXX, else
// $CXX, else c++) against stdlib_kernels/kiln/host_kernel.h into a shared
// object; a launch runs each block's threads as fibers on a pool of worker
// threads, so __syncthreads, warp shuffles and shared memory are real.
#pragma once

#include <memory>

#include "runtime/backend.h"

namespace kiln::runtime {

std::unique_ptr<Backend> make_host_backend();

// The host backend's BLAS, solver and FFT (runtime/host/host_libraries.cpp):
// none in C++ today, so each reports why it is unavailable, except the
// cuSOLVER test double (Note [cuSOLVER test double] there).
Libraries& host_libraries();

}  // namespace kiln::runtime
