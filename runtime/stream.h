// The current stream, per OS thread and per device; null = default stream.
#pragma once

#include "runtime/backend.h"

namespace kiln::runtime {

StreamHandle current_stream();
void set_current_stream(StreamHandle stream);

}  // namespace kiln::runtime
