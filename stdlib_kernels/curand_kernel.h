// <curand_kernel.h> for kernels kiln compiles (RawKernel, RawModule).
//
// CUDA compilers (NVRTC, nvcc) get the CUDA toolkit's own header, found
// after kiln's include folder (#include_next; NVRTC's search path holds the
// toolkit's include folder: Note [CUDA toolkit headers] in
// runtime/cuda/cccl_include.h). The host backend's C++ compiler gets kiln's
// implementation of the cuRAND device API, which gives the same numbers:
// kiln/host_curand.h.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#include_next <curand_kernel.h>
#else
#include "kiln/host_curand.h"
#endif
