// Errors raised by the runtime. Each carries what failed (the call, the kernel,
// the argument) in its message; pyfrontend maps each class to one Python
// exception type.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::runtime {

// Note [No iostreams]
// Runtime messages are built with std::string and std::to_string, never with
// iostreams: on a machine whose Python extension ends up with its own copy of
// libstdc++ (seen on the GPU image), ostream number formatting reached the
// other copy's locale facets and crashed.

// "0x7f..." for messages.
inline std::string pointer_text(const void* p) {
  static const char kHex[] = "0123456789abcdef";
  auto v = reinterpret_cast<uintptr_t>(p);
  std::string digits;
  do {
    digits.insert(digits.begin(), kHex[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + digits;
}

// Base of every runtime failure (a backend call returned an error code).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The backend could not allocate device or pinned memory.
class OutOfMemory : public Error {
 public:
  OutOfMemory(const std::string& what, size_t requested)
      : Error(what), requested_bytes(requested) {}
  size_t requested_bytes;
};

// Compilation of kernel source failed. `log` is the compiler's own output.
class CompileError : public Error {
 public:
  CompileError(const std::string& what, std::string compiler_log)
      : Error(what), log(std::move(compiler_log)) {}
  std::string log;
};

// A symbol (kernel name, name expression) that the module does not define.
class NotFound : public Error {
 public:
  using Error::Error;
};

// A kernel launch was rejected or the kernel failed while running
// (assertion, trap, deadlocked barrier on the host backend).
class LaunchError : public Error {
 public:
  using Error::Error;
};

// Invalid argument to a runtime call (bad device id, bad launch dims, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

}  // namespace kiln::runtime
