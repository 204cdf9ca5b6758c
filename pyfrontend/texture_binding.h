// Texture and surface objects as kernel arguments (texture_binding.cpp).
#pragma once

#include <Python.h>

#include <cstdint>
#include <optional>

namespace kiln::py_bind {

// The cudaTextureObject_t / cudaSurfaceObject_t value of a
// kiln.cuda.texture.TextureObject or SurfaceObject, which RawKernel and
// ElementwiseKernel pass as a 64-bit unsigned integer; nullopt for any other
// object.
std::optional<uint64_t> texture_handle_of(PyObject* obj);

}  // namespace kiln::py_bind
