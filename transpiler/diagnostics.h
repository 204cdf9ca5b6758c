// Transpile errors as values: a kind (which Python exception it becomes), a
// span, a message and notes, rendered once with the source line and a caret.
//
//   throw TranspileError(Diagnostic{DiagKind::Type, e.span,
//       "`n` is an array at line 7 but a float64 at line 9", {}});
//   std::string text = render(diag, function);   // file:line:col, line, caret
//
// Rendered form:
//   k.py:9:8: `n` is an array at line 7 but a float64 at line 9
//       n = 2.5
//           ^~~
//   k.py:7:4: note: `n` is assigned here
//       n = x
//       ^
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "transpiler/ast.h"

namespace kiln::transpiler {

// The Python exception each kind is raised as (pyfrontend maps them).
enum class DiagKind : uint8_t {
  Type,         // TypeError
  Name,         // NameError: unknown name
  Unbound,      // UnboundLocalError: local may be used before assignment
  Unsupported,  // NotImplementedError: syntax or feature kernels do not have
  Value,        // ValueError: a wrong value (e.g. non-constant shared memory size)
  Overflow,     // OverflowError: an integer constant out of bounds (Note [Python integer constants])
  ComplexWarning,  // a warning, not an error: numpy.exceptions.ComplexWarning (a cast drops an imaginary part)
};

struct Note {
  Span span;
  std::string message;
};

struct Diagnostic {
  DiagKind kind = DiagKind::Type;
  Span span;
  std::string message;
  std::vector<Note> notes;
  int function = -1;  // index in Module::functions of where the spans are (-1: not yet known)
};

class TranspileError : public std::runtime_error {
 public:
  explicit TranspileError(Diagnostic d) : std::runtime_error(d.message), diag_(std::move(d)) {}
  const Diagnostic& diag() const { return diag_; }

 Diagnostic& diag() { return diag_; }

 private:
  Diagnostic diag_;
};

[[noreturn]] inline void fail(DiagKind kind, Span span, std::string message, std::vector<Note> notes = {}) {
  throw TranspileError(Diagnostic{kind, span, std::move(message), std::move(notes)});
}

// "file:line:col: message", the source line and a caret under the span
// (^ then ~ to its end on that line), then each note the same way.
std::string render(const Diagnostic& d, const FunctionDef& f);
std::string render(const Diagnostic& d, const Module& m);  // d.function's (the kernel if -1)

}  // namespace kiln::transpiler
