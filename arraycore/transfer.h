// Copies between arrays and host memory, in the current stream's order.
#pragma once

#include "arraycore/ndarray.h"
#include "runtime/backend.h"

namespace kiln::arraycore {

// Writes `src` into host memory `dst` laid out C-contiguously (size * itemsize
// bytes). Any layout of src (strided, negative strides) is accepted. With
// `blocking` it returns after the data has arrived (large copies go through
// pinned staging, Note [Staged transfers]); otherwise the copy is only queued
// on `stream` and `dst` must stay valid until the stream reaches it (truly
// asynchronous when dst is page-locked).
void copy_to_host(const NDArray& src, void* dst, runtime::StreamHandle stream, bool blocking = true);

// Fills C-contiguous `dst` from C-contiguous host memory `src`, queued on
// `stream`; `src` may be reused as soon as this returns.
void copy_from_host(const NDArray& dst, const void* src, runtime::StreamHandle stream);

// Transfers of at least this many bytes go through pinned staging (default
// 32 MiB; 0 disables staging). For benchmarks and tests.
void set_staging_threshold(size_t bytes);
size_t staging_threshold();

}  // namespace kiln::arraycore
