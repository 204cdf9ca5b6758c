// The cuda backend's libraries (runtime/libraries.h, Note [Libraries]):
// cuBLAS, cuSOLVER and cuFFT through their dlopen tables (cublas_api.h,
// cusolver_api.h, cufft_api.h), each handle of the calling thread and the
// current device with the device's primary context current.
#pragma once

#include "runtime/libraries.h"

namespace kiln::runtime::cuda {

// The provider of the cuda backend; never destroyed.
Libraries& cuda_libraries();

// cuSOLVER (and, where KILN_CUBLAS_PATH names one, cuBLAS's batched LU)
// over HOST memory: no device, no primary context, a handle per session.
// Only for a test double that works on host memory (Note [cuSOLVER test
// double] in runtime/host/host_libraries.cpp); nullptr, with `why_not`
// filled, when libcusolver does not load. Never destroyed.
SolverLibrary* host_memory_solver(std::string* why_not);

}  // namespace kiln::runtime::cuda
