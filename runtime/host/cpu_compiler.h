// Compiles CUDA C++ for the host backend with the system C++ compiler.
//
// Note [Host module layout]
// The user's source is compiled as C++17 with kiln/host_prelude.h (the host
// execution model, kiln/host_kernel.h, and the engine headers; Note [Host
// precompiled prelude]) included first. Two rewrites keep it valid C++ with its line numbers unchanged:
// `extern __shared__ T name[];` becomes a per-worker pointer to the dynamic
// shared buffer, and a trailer (after `#line`) lists every extern "C"
// non-template kernel and every name expression as a kiln_host::KernelEntry,
// so parameter sizes and kinds come from the C++ types. The module exports
// kiln_host_kernels(), kiln_host_attach() and kiln_host_run_thread().
#pragma once

#include <string>

#include "runtime/backend.h"

namespace kiln::runtime::host {

// The compiler to run: $KILN_HOST_CXX, else $CXX, else c++ (resolved on PATH).
std::string host_compiler_path();
// path, size and mtime of the compiler binary (no compiler run).
std::string host_compiler_identity();
// The source handed to the compiler (rewrites + trailer), for tests and errors.
std::string host_module_source(const CompileRequest& request);
CompiledModule compile_host_module(const CompileRequest& request);

}  // namespace kiln::runtime::host
