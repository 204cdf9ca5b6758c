// Maps runtime errors to Python exceptions:
//   CompileError   -> kiln.cuda.compiler.CompileException (RuntimeError)
//   OutOfMemory    -> kiln.cuda.memory.OutOfMemoryError (MemoryError)
//   InvalidArgument-> ValueError
//   other Error    -> kiln.cuda.driver.CUDADriverError (RuntimeError)
//   std::invalid_argument -> ValueError
#include <pybind11/pybind11.h>

#include "pyfrontend/bindings.h"
#include "runtime/errors.h"

namespace kiln::py_bind {

void register_errors(py::module_& m) {
  static py::exception<runtime::CompileError> compile_exc(m, "CompileException",
                                                          PyExc_RuntimeError);
  static py::exception<runtime::OutOfMemory> oom_exc(m, "OutOfMemoryError", PyExc_MemoryError);
  static py::exception<runtime::Error> driver_exc(m, "CUDADriverError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const runtime::CompileError& e) {
      py::set_error(compile_exc, e.what());
    } catch (const runtime::OutOfMemory& e) {
      py::set_error(oom_exc, e.what());
    } catch (const runtime::InvalidArgument& e) {
      py::set_error(PyExc_ValueError, e.what());
    } catch (const runtime::Error& e) {
      py::set_error(driver_exc, e.what());
    } catch (const std::invalid_argument& e) {
      py::set_error(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace kiln::py_bind
