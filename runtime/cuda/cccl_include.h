// Where NVRTC finds the CCCL headers (CUB, libcu++, Thrust) that kernels
// include as <cub/...> (kiln.jit.cub's kernels, RawKernels using CUB), and
// the CUDA toolkit's own device headers (cuda_fp16.h, cooperative_groups.h).
//
//   std::string dir = cccl_include_dir(nvrtc_api());   // "/usr/local/cuda-13.0/include/cccl", or ""
//   std::string sdk = cuda_include_dir(nvrtc_api());   // "/usr/local/cuda-13.0/include", or ""
//
// Note [CCCL headers]
// NVRTC carries neither CCCL's headers nor (CUDA 13) cuda_fp16.h and
// cooperative_groups.h. kiln looks for CCCL once per process, first found
// wins: $KILN_CCCL_INCLUDE;
// then beside the NVRTC library loaded (its folder's parent P: P/include/cccl,
// CUDA 13's layout, then P/include, CUDA 12's; pip's wheels put them in
// P/../cuda_cccl/include); then $CUDA_PATH/include and /usr/local/cuda/include
// (each with /cccl first). A folder counts when it holds cub/cub.cuh.
// nvrtc_compile adds it with -I after kiln's own headers, to every compile:
// the compile options a kernel's cache key holds do not change, and a source
// that includes nothing from CCCL compiles as before. The toolkit's headers
// are found the same way ($KILN_CUDA_INCLUDE; beside NVRTC: P/include, pip's
// P/../cuda_runtime/include; $CUDA_PATH/include; /usr/local/cuda/include; a
// folder counts when it holds cuda_fp16.h) and added with -I after CCCL, as
// CuPy adds the toolkit's include folder, so RawKernels including
// <cuda_fp16.h> or <cooperative_groups.h> compile unchanged. (The host
// backend reads kiln's own versions of these: stdlib_kernels/host_cuda/.)
#pragma once

#include <string>

#include "runtime/cuda/nvrtc_api.h"

namespace kiln::runtime::cuda {

const std::string& cccl_include_dir(const NvrtcApi& rtc);
const std::string& cuda_include_dir(const NvrtcApi& rtc);

// Note [CUDA toolkit headers]
// The CUDA libraries' device headers, <curand_kernel.h> and the curand_*.h it
// includes, live in the toolkit's include folder (cuda_include_dir above) or,
// with pip's wheels, in nvidia/curand/include. kiln looks for the folder
// holding curand_kernel.h as it looks for the others ($KILN_CUDA_INCLUDE;
// beside NVRTC: P/../curand/include, P/include; $CUDA_PATH/include;
// /usr/local/cuda/include) and nvrtc_compile adds it with -I when it is not
// cuda_include_dir already, after kiln's headers and CCCL's, so a kernel's
// cache key does not change; kiln's stdlib_kernels/curand_kernel.h sends
// NVRTC on to it with #include_next (the host backend gets kiln/host_curand.h
// there instead).
const std::string& curand_include_dir(const NvrtcApi& rtc);

}  // namespace kiln::runtime::cuda
