// Stream capture (CUDA graphs) as the rest of kiln sees it: is a capture
// open, does a stream belong to one, may the pool grow now.
//
//   if (runtime::captures_open()) {                       // one atomic load
//     uint64_t id = runtime::capture_id(stream);          // 0: not capturing
//   }
//   runtime::check_not_capturing(stream, "copying to the host");   // throws CaptureError
//
// Note [Stream capture]
// Captures begin and end through runtime/cuda/graph.h (kiln.cuda.Stream.
// begin_capture/end_capture). While one is open, work queued on a capturing
// stream is recorded into a graph instead of running, so kiln refuses, with a
// CaptureError that says "is capturing", whatever would wait for the device
// or read results on the host (downloads, item(), bool(), sizes that depend
// on data), reads host memory at replay time (uploads from NumPy), or calls a
// vendor library (cuBLAS, cuSOLVER, cuFFT): refused before the driver sees
// it, so the capture stays valid and can still be ended. Explicit waits the
// user asks for (Stream.synchronize, Event.synchronize) go to the driver,
// which answers cudaErrorStreamCaptureUnsupported and invalidates the capture,
// as in CuPy. The pool's rules are Note [Pool and graph capture] in
// memory_pool.h. Outside any capture the checks cost one relaxed atomic load.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/backend.h"

namespace kiln::runtime {

// Work that a stream capture cannot record (Note [Stream capture]); Python
// sees it as a RuntimeError that is also a NotImplementedError.
class CaptureError : public Error {
 public:
  using Error::Error;
};

// True while any capture begun through kiln is open, in any thread.
bool captures_open();

// The id of the capture sequence `stream` belongs to, 0 when it belongs to
// none (also when the driver cannot say, e.g. the legacy null stream while a
// blocking stream captures). Asks the driver only while captures_open().
uint64_t capture_id(StreamHandle stream);

// False while an open capture forbids cuMemAlloc on this thread (a capture in
// global mode anywhere, or in thread-local mode on this thread): the pool
// must not grow then.
bool may_allocate_during_capture();

// Throws CaptureError naming `what` when `stream` is capturing.
void check_not_capturing(StreamHandle stream, const std::string& what);

}  // namespace kiln::runtime
