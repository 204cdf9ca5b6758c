// Maps runtime errors to Python exceptions:
//   CompileError   -> kiln.cuda.compiler.CompileException (RuntimeError)
//   OutOfMemory    -> kiln.cuda.memory.OutOfMemoryError (MemoryError)
//   InvalidArgument-> ValueError
//   LaunchError    -> kiln.cuda.LaunchError (a CUDADriverError)
//   Interrupted    -> what Python's SIGINT handler raises (KeyboardInterrupt)
//   CaptureError   -> kiln.cuda.StreamCaptureError (a CUDADriverError and a NotImplementedError)
//   other Error    -> kiln.cuda.driver.CUDADriverError (RuntimeError)
//   std::invalid_argument -> ValueError
//   arraycore::UfuncTypeError -> kiln's UFuncTypeError classes (ufunc_types_binding.cpp)
//   arraycore::AxisError  -> numpy.exceptions.AxisError(axis, ndim, argname)
//   arraycore::TypeError  -> TypeError
//   arraycore::DTypePromotionError -> numpy.exceptions.DTypePromotionError (a TypeError)
//   arraycore::ScalarOverflow -> OverflowError
#include <pybind11/pybind11.h>

#include "pyfrontend/bindings.h"
#include "arraycore/axes.h"
#include "arraycore/promotion.h"
#include "arraycore/ufunc_apply.h"
#include "runtime/capture.h"
#include "runtime/errors.h"
#include "runtime/interrupted.h"

namespace kiln::py_bind {

namespace {
PyObject* g_compile_exc = nullptr;
PyObject* g_oom_exc = nullptr;
PyObject* g_driver_exc = nullptr;
PyObject* g_launch_exc = nullptr;
PyObject* g_capture_exc = nullptr;
}  // namespace

void set_axis_error(const arraycore::AxisError& e) {
  try {
    py::object cls = py::module_::import("numpy").attr("exceptions").attr("AxisError");
    py::object err = e.argname.empty() ? cls(e.axis, e.ndim) : cls(e.axis, e.ndim, e.argname);
    PyErr_SetObject(cls.ptr(), err.ptr());
  } catch (py::error_already_set& pe) {
    pe.restore();
  }
}

void set_python_error(std::exception_ptr p) {
  try {
    std::rethrow_exception(p);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const arraycore::UfuncTypeError& e) {
    set_ufunc_type_error(e);
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const arraycore::AxisError& e) {
    set_axis_error(e);
  } catch (const arraycore::DTypePromotionError& e) {
    try {
      py::object cls = py::module_::import("numpy").attr("exceptions").attr("DTypePromotionError");
      PyErr_SetString(cls.ptr(), e.what());
    } catch (py::error_already_set& pe) {
      pe.restore();
    }
  } catch (const arraycore::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const arraycore::ScalarOverflow& e) {
    PyErr_SetString(PyExc_OverflowError, e.what());
  } catch (const runtime::CompileError& e) {
    PyErr_SetString(g_compile_exc, e.what());
  } catch (const runtime::OutOfMemory& e) {
    PyErr_SetString(g_oom_exc, e.what());
  } catch (const runtime::InvalidArgument& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const runtime::LaunchError& e) {
    PyErr_SetString(g_launch_exc, e.what());
  } catch (const runtime::CaptureError& e) {
    PyErr_SetString(g_capture_exc, e.what());
  } catch (const runtime::Interrupted& e) {
    // Note [Cancelling host launches]: Python's SIGINT handler says what to
    // raise (KeyboardInterrupt by default); if it raises nothing, the launch
    // still did not complete: a LaunchError.
    if (PyErr_CheckSignals() == 0) PyErr_SetString(g_launch_exc, e.what());
  } catch (const runtime::Error& e) {
    PyErr_SetString(g_driver_exc, e.what());
  } catch (const std::invalid_argument& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "out of host memory");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception in kiln");
  }
}

void register_errors(py::module_& m) {
  static py::exception<runtime::CompileError> compile_exc(m, "CompileException",
                                                          PyExc_RuntimeError);
  static py::exception<runtime::OutOfMemory> oom_exc(m, "OutOfMemoryError", PyExc_MemoryError);
  static py::exception<runtime::Error> driver_exc(m, "CUDADriverError", PyExc_RuntimeError);
  g_compile_exc = compile_exc.ptr();
  g_oom_exc = oom_exc.ptr();
  g_driver_exc = driver_exc.ptr();
  // A kernel that failed while running (a fault, a trap, a deadlock): a
  // CUDADriverError, so handlers of that still catch it.
  static py::exception<runtime::LaunchError> launch_exc(m, "LaunchError", driver_exc.ptr());
  g_launch_exc = launch_exc.ptr();
  // Work a CUDA graph capture cannot record (Note [Stream capture]): CuPy
  // raises RuntimeError for waits and NotImplementedError for libraries.
  py::tuple capture_bases = py::make_tuple(driver_exc, py::handle(PyExc_NotImplementedError));
  g_capture_exc = PyErr_NewException("kiln._core.StreamCaptureError", capture_bases.ptr(), nullptr);
  if (g_capture_exc == nullptr) throw py::error_already_set();
  m.attr("StreamCaptureError") = py::handle(g_capture_exc);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const runtime::Error&) {
      set_python_error(std::current_exception());
    } catch (const std::invalid_argument&) {
      set_python_error(std::current_exception());
    } catch (const arraycore::AxisError&) {
      set_python_error(std::current_exception());
    } catch (const arraycore::ScalarOverflow&) {
      set_python_error(std::current_exception());
    }
  });
}

}  // namespace kiln::py_bind
