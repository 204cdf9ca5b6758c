// ReleaseGil: running C++ without the GIL, safely at interpreter exit
// (Note [Releasing the GIL at interpreter exit], bindings.h).
#include <unistd.h>

#include "pyfrontend/bindings.h"

namespace kiln::py_bind {
namespace {

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

}  // namespace

ReleaseGil::~ReleaseGil() noexcept(false) {
  if (interpreter_finalizing()) {
    for (;;) pause();  // a daemon thread at exit: never back into Python
  }
  PyEval_RestoreThread(state_);
}

}  // namespace kiln::py_bind
