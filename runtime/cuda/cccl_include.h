// Where NVRTC finds the CCCL headers (CUB, libcu++, Thrust) that kernels
// include as <cub/...> (kiln.jit.cub's kernels, RawKernels using CUB).
//
//   std::string dir = cccl_include_dir(nvrtc_api());   // "/usr/local/cuda-13.0/include/cccl", or ""
//
// Note [CCCL headers]
// NVRTC carries CUDA's own headers (cuda_fp16.h ...) but not CCCL's. kiln
// looks for them once per process, first found wins: $KILN_CCCL_INCLUDE;
// then beside the NVRTC library loaded (its folder's parent P: P/include/cccl,
// CUDA 13's layout, then P/include, CUDA 12's; pip's wheels put them in
// P/../cuda_cccl/include); then $CUDA_PATH/include and /usr/local/cuda/include
// (each with /cccl first). A folder counts when it holds cub/cub.cuh.
// nvrtc_compile adds it with -I after kiln's own headers, to every compile:
// the compile options a kernel's cache key holds do not change, and a source
// that includes nothing from CCCL compiles as before.
#pragma once

#include <string>

#include "runtime/cuda/nvrtc_api.h"

namespace kiln::runtime::cuda {

const std::string& cccl_include_dir(const NvrtcApi& rtc);

// Note [CUDA toolkit headers]
// NVRTC carries cuda_runtime.h and the other headers a kernel needs without an
// include, but not the CUDA libraries' device headers: <curand_kernel.h> (and
// the curand_*.h it includes) live in the toolkit's include folder, or in pip's
// nvidia/curand/include. kiln looks for that folder once per process, first
// found wins: $KILN_CUDA_INCLUDE; beside the NVRTC library loaded (its
// folder's parent P: P/include, then P/../curand/include); $CUDA_PATH/include;
// /usr/local/cuda/include. A folder counts when it holds curand_kernel.h.
// nvrtc_compile adds it with -I after kiln's headers and CCCL's, so kiln's own
// headers come first and a kernel's cache key does not change; kiln's
// stdlib_kernels/curand_kernel.h sends NVRTC on to it with #include_next (the
// host backend gets kiln/host_curand.h there instead).
const std::string& toolkit_include_dir(const NvrtcApi& rtc);

}  // namespace kiln::runtime::cuda
