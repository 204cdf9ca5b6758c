// kiln.cuda.MemoryPointer: a position in device memory that keeps it alive.
#pragma once

#include <memory>

#include "arraycore/memory.h"

namespace kiln::py_bind {

struct MemoryPointer {
  std::shared_ptr<arraycore::Memory> memory;
  int64_t offset = 0;
  uintptr_t ptr() const {
    return memory ? reinterpret_cast<uintptr_t>(memory->ptr()) + offset : 0;
  }
};

}  // namespace kiln::py_bind
