// Python `ast` -> kiln's transpiler AST (ast_import.cpp), with the kernel's
// free names resolved against its globals, closure and builtins.
//
//   ImportedModule im = import_kernel(func, /*source=*/py::none(), /*device=*/false);
//   im.module->functions[0]   // the kernel; [1..] the Python functions it calls
//   captures_unchanged(im)    // the warm-path check (Note [Captured globals])
//
// Note [Captured globals]
// A kernel reads module globals and closure variables by value: numbers are
// folded into the generated source, functions become device functions,
// modules and builtins are looked up. Each such read is a Capture: where
// the root name lives (globals dict, closure cell or builtins), the
// attribute chain through modules (`cfg.N`), and the object found. The
// transpile cache key includes every captured value, and each launch checks
// that every chain still ends at the same object; when one does not, the
// kernel is imported and transpiled again (CuPy keys on argument types only
// and runs stale code after such a change).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "transpiler/ast.h"
#include "transpiler/diagnostics.h"

namespace kiln::py_bind {

namespace py = pybind11;

struct Capture {
  enum class Where : uint8_t { Globals, Cell, Builtins } where;
  py::object container;            // the globals dict, the cell, or the builtins dict
  std::string name;
  py::object key;                  // name as an interned str
  std::vector<std::string> attrs;  // through modules
  py::object value;                // what the chain ended at
  py::object shadow;               // Builtins: the globals dict, where a later global would shadow it
};

struct ImportedModule {
  std::shared_ptr<transpiler::Module> module;
  std::vector<Capture> captures;
  std::string key_text;  // every function's source and every captured value, for cache keys
};

ImportedModule import_kernel(py::handle func, py::handle source, bool device);

// Raises e as the Python exception its kind maps to (TypeError, NameError,
// UnboundLocalError, NotImplementedError, ValueError), the message rendered
// against m's source lines (jit_kernel.cpp).
[[noreturn]] void raise_transpile_error(const transpiler::TranspileError& e, const transpiler::Module& m);

// Raises a transpile's warnings (numpy.exceptions.ComplexWarning) as Python
// warnings, rendered as errors are, attributed to the Python frame
// `stacklevel` up (1: the one calling into _core); one a filter makes an
// error propagates.
void raise_transpile_warnings(const std::vector<transpiler::Diagnostic>& warnings, const transpiler::Module& m,
                              int stacklevel);

// Whether every capture still resolves to the same object (a warm-path check).
bool captures_unchanged(const std::vector<Capture>& captures);

}  // namespace kiln::py_bind
