// The CUDA backend: CUDA Driver API and NVRTC, both loaded with dlopen at run
// time (never linked), using each device's primary context so memory and
// streams are shared with PyTorch and every other CUDA library.
#pragma once

#include <memory>
#include <string>

#include "runtime/backend.h"

namespace kiln::runtime {

// nullptr (and `why_not` filled) when no driver or no device answers.
std::unique_ptr<Backend> make_cuda_backend(std::string* why_not);
// The CUDA backend's traits (Note [Backend traits]), known without starting it.
const BackendCaps& cuda_backend_caps();

// NVRTC alone, for compiling without a GPU (CI proves generated source builds
// for sm_90 this way). Throws Error if libnvrtc cannot be loaded, CompileError
// with NVRTC's log if the source does not compile.
CompiledModule nvrtc_compile(const CompileRequest& request, const std::string& arch);
bool nvrtc_available(std::string* why_not);

// The CUDA toolkit's nvcc (RawModule(backend='nvcc')): $NVCC, else
// $CUDA_PATH/bin/nvcc, else nvcc on PATH, else /usr/local/cuda/bin/nvcc.
// Throws CompileError saying where it looked when there is none, and with
// nvcc's output when the source does not compile. Name expressions are
// NVRTC's: a request with any is InvalidArgument.
CompiledModule nvcc_compile(const CompileRequest& request, const std::string& arch);

// Extra folders for NVRTC and the other CUDA libraries (pip's nvidia wheels):
// cuda::add_library_search_dir, runtime/cuda/library_search.h.

}  // namespace kiln::runtime
