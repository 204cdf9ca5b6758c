#include "runtime/stream.h"

namespace kiln::runtime {
namespace {
thread_local StreamHandle tls_current_stream = nullptr;
}

StreamHandle current_stream() { return tls_current_stream; }
void set_current_stream(StreamHandle stream) { tls_current_stream = stream; }

}  // namespace kiln::runtime
