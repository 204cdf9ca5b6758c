// The Driver API for kiln.cuda's own surface (graphs, stream attributes,
// kiln.cuda.runtime's functions), outside the Backend interface:
//
//   const DriverApi& cu = driver_for("kiln.cuda.runtime.mallocManaged");  // host backend: throws
//   CuDevicePtr p = 0;
//   check_call(cu, entry(cu.mem_alloc_managed, "cuMemAllocManaged")(&p, n, kMemAttachGlobal),
//              "cuMemAllocManaged");
//
// driver_for makes the current device's primary context current, as the
// backend does (Note [Contexts] in cuda_backend.cpp). On a backend whose
// streams are not CUDA's (BackendCaps::cuda_interop false: the host backend)
// it throws Error "<what>: the host backend has no CUDA runtime".
#pragma once

#include <string>

#include "runtime/cuda/driver_api.h"
#include "runtime/errors.h"

namespace kiln::runtime::cuda {

const DriverApi& driver_for(const std::string& what);

// Throws Error when the loaded driver lacks an optional entry point
// (Note [Optional driver entries]).
template <class Fn>
Fn entry(Fn fn, const char* name) {
  if (!fn) throw Error(std::string("the CUDA driver has no ") + name + " (driver too old for this kiln.cuda call)");
  return fn;
}

// Throws OutOfMemory or Error (kiln.cuda.runtime.CUDARuntimeError, as CuPy
// raises for every runtime call), naming `call` and the driver's error.
void check_call(const DriverApi& cu, CuResult r, const std::string& call);

// The driver's handle of device ordinal `device` (Error when out of range).
CuDevice device_handle(const DriverApi& cu, int device);

}  // namespace kiln::runtime::cuda
