// ReleaseGil and AcquireGil: running C++ without the GIL and taking it back, safely at interpreter exit
// (Note [Releasing the GIL at interpreter exit], bindings.h).
#include <unistd.h>

#include <atomic>

#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

std::atomic<bool> g_exiting{false};  // set by an atexit callback (register_exit_flag)

bool interpreter_finalizing() {
  if (g_exiting.load(std::memory_order_relaxed)) return true;
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

[[noreturn]] void park() {
  for (;;) pause();  // a daemon thread at exit: never back into Python
}

}  // namespace

// The check alone is not enough: a thread that reached PyEval_RestoreThread
// before finalization began waits there for the GIL, and finalization then
// ends it with pthread_exit from inside the call (seen on the CUDA backend,
// where launches return quickly; that unwinding also needs the process's one
// unwinder: Note [Private libstdc++], CMakeLists.txt). It is caught here and
// the thread parked: catching it and never leaving the handler is allowed
// (only leaving it without a rethrow aborts), and no frame above, noexcept
// or not, is unwound.
ReleaseGil::~ReleaseGil() noexcept(false) {
  if (interpreter_finalizing()) park();
  try {
    PyEval_RestoreThread(state_);
  } catch (...) {  // abi::__forced_unwind: no other exception leaves CPython
    park();
  }
}

AcquireGil::AcquireGil() {
  if (interpreter_finalizing()) park();
  try {
    state_ = PyGILState_Ensure();
  } catch (...) {  // abi::__forced_unwind, as above
    park();
  }
}

AcquireGil::~AcquireGil() { PyGILState_Release(state_); }

// Python's atexit callbacks run before finalization begins: from then on a
// thread coming back from C++ is parked at once, which leaves only the
// threads already waiting for the GIL to the catch above.
void register_exit_flag() {
  py::module_::import("atexit").attr("register")(py::cpp_function([] { g_exiting = true; }));
}

}  // namespace kiln::py_bind
