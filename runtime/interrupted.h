// A launch cancelled because SIGINT arrived while it ran (host backend, Note
// [Cancelling host launches] in runtime/host/launch_watch.h); the binding
// raises what Python's SIGINT handler raises (KeyboardInterrupt by default).
#pragma once

#include "runtime/errors.h"

namespace kiln::runtime {

class Interrupted : public Error {
 public:
  using Error::Error;
};

}  // namespace kiln::runtime
