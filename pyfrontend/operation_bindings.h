// The binding files of the operations moved from Python into arraycore
// (selection, counting, math functions): their register functions (called
// from module.cpp) and the operand conversion they share with the ufuncs.
#pragma once

#include "arraycore/ufunc_apply.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

// A ufunc operand (ufunc_binding.cpp): a kiln array (on the current device)
// or a Python/NumPy scalar. False for foreign objects; NumPy arrays, lists
// and tuples (and anything else when `strict`) raise TypeError.
bool to_input(py::handle obj, arraycore::UfuncInput& in, bool strict);

void register_selection(py::module_& m);
void register_counting(py::module_& m);
void register_math_functions(py::module_& m);
void register_fusion(py::module_& m);

}  // namespace kiln::py_bind
