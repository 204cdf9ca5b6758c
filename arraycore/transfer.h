// Copies between arrays and host memory, in the current stream's order.
#pragma once

#include "arraycore/ndarray.h"
#include "runtime/backend.h"

namespace kiln::arraycore {

// Writes `src` into host memory `dst` laid out C-contiguously (size * itemsize
// bytes). Any layout of src (strided, negative strides) is accepted. Returns
// after the data has arrived.
void copy_to_host(const NDArray& src, void* dst, runtime::StreamHandle stream);

// Fills C-contiguous `dst` from C-contiguous host memory `src`.
void copy_from_host(const NDArray& dst, const void* src, runtime::StreamHandle stream);

}  // namespace kiln::arraycore
