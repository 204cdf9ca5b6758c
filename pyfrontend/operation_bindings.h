// The binding files of the operations moved from Python into arraycore
// (selection, counting, math functions, statistics): their register
// functions (called from module.cpp) and the conversions and warnings they
// share.
#pragma once

#include "arraycore/statistics.h"
#include "arraycore/ufunc_apply.h"
#include "pyfrontend/bindings.h"

namespace kiln::py_bind {

// A ufunc operand (ufunc_binding.cpp): a kiln array (on the current device)
// or a Python/NumPy scalar. False for foreign objects; NumPy arrays, lists
// and tuples (and anything else when `strict`) raise TypeError.
bool to_input(py::handle obj, arraycore::UfuncInput& in, bool strict);

// Python's truth of v (statistics_binding.cpp), raising what bool(v) raises.
bool truth(py::handle v);
// NumPy's ComplexWarning for a complex -> real cast, attributed to the caller
// of the Python function that called the binding (stacklevel 2).
void warn_discarded_imaginary();
// A statistics result as Python returns it: NumPy's RuntimeWarnings arraycore
// decided on (and the ComplexWarning) given, then out= itself when given, else
// the new array.
py::object give(arraycore::StatResult r, const py::object& out);

// An axis= argument: None, an int or a tuple of ints (statistics_binding.cpp).
arraycore::AxisArg to_axis(py::handle obj);

void register_selection(py::module_& m);
void register_counting(py::module_& m);
void register_math_functions(py::module_& m);
void register_fusion(py::module_& m);
void register_polynomial(py::module_& m);
void register_numeric(py::module_& m);

}  // namespace kiln::py_bind
