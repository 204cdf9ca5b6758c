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

// Pinned staging settings: transfers of at least `threshold` bytes are staged
// in chunks of `chunk` bytes. The default stages 32 MiB and up in 8 MiB chunks
// on GPU backends and never on the host backend; setting a threshold (0 =
// never) applies to every backend, so tests can exercise the path anywhere.
struct StagingSettings {
  size_t threshold;
  size_t chunk;
};
void set_staging(StagingSettings settings);
StagingSettings staging();

}  // namespace kiln::arraycore
