// Stream hand-off between kiln and other libraries (DLPack, the CUDA Array
// Interface): one stream waits on the device for the work queued so far on
// another, never blocking the host.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "runtime/backend.h"
#include "runtime/stream.h"

namespace kiln::py_bind {

// Note [Interop stream values]
// The protocols name streams by integers: 1 is CUDA's legacy default stream,
// 2 the per-thread default stream, others a CUstream handle (0 is
// disallowed). The driver takes 1 and 2 as the handles CU_STREAM_LEGACY and
// CU_STREAM_PER_THREAD, so these integers are StreamHandles as they are.
// kiln's own null stream (handle 0) is the legacy default stream: it is
// exported as 1, and 0 and 1 name the same stream here.
inline runtime::StreamHandle stream_from_int(uintptr_t value) { return reinterpret_cast<runtime::StreamHandle>(value); }
inline uintptr_t stream_to_int(runtime::StreamHandle s) {
  return s == nullptr ? 1 : reinterpret_cast<uintptr_t>(s);
}

// Later work on `waiter` waits for the work queued so far on `signaler`: an
// event recorded on `signaler` and waited for by `waiter` (cuStreamWaitEvent
// takes the event's state at the call, so one event per device and thread is
// reused). A backend without concurrent streams (the host's) runs all work
// in order: nothing to do.
inline void stream_wait(runtime::StreamHandle waiter, runtime::StreamHandle signaler) {
  runtime::Backend& be = runtime::backend();
  if (!be.caps().concurrent_streams) return;
  if (stream_to_int(waiter) == stream_to_int(signaler)) return;
  thread_local std::unordered_map<int, runtime::EventHandle> events;  // device -> event (kept for the thread's life)
  runtime::EventHandle& event = events[be.current_device()];
  if (event == nullptr) event = be.create_event(false);
  be.record_event(event, signaler);
  be.stream_wait_event(waiter, event);
}

}  // namespace kiln::py_bind
