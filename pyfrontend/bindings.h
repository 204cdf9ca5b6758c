// The one door between Python and the C++ layers: helpers shared by the
// binding files, and each file's register function (called from module.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "arraycore/advanced_indexing.h"
#include "arraycore/dtype.h"
#include "arraycore/ndarray.h"
#include "arraycore/promotion.h"
#include "arraycore/ufunc.h"
#include "runtime/backend.h"

namespace kiln::py_bind {

namespace py = pybind11;

// Note [Releasing the GIL at interpreter exit]
// py::gil_scoped_release takes the GIL back in a noexcept destructor. When
// the interpreter is finalizing, a daemon thread that takes the GIL back is
// ended by pthread_exit, whose forced unwinding through a noexcept frame is
// std::terminate ("terminate called without an active exception", rc 134).
// ReleaseGil and AcquireGil park such a thread instead (the process is
// exiting and nothing waits for it): before taking the GIL when finalization
// has begun, and by catching the forced unwinding when it begins while the
// thread waits for the GIL. Every binding that runs C++ without the GIL uses
// ReleaseGil; every C++ callback that takes the GIL, AcquireGil.
class ReleaseGil {
 public:
  ReleaseGil() : state_(PyEval_SaveThread()) {}
  ~ReleaseGil() noexcept(false);
  ReleaseGil(const ReleaseGil&) = delete;
  ReleaseGil& operator=(const ReleaseGil&) = delete;

 private:
  PyThreadState* state_;
};

// Registers the atexit callback ReleaseGil and AcquireGil check (module init).
void register_exit_flag();

class AcquireGil {
 public:
  AcquireGil();
  ~AcquireGil();
  AcquireGil(const AcquireGil&) = delete;
  AcquireGil& operator=(const AcquireGil&) = delete;

 private:
  PyGILState_STATE state_;
};

// Anything numpy.dtype() accepts -> DType; TypeError for non-numeric dtypes,
// ValueError for a byte-swapped one unless `any_byte_order` (the dtype of host
// values, which kiln swaps as it uploads them).
arraycore::DType to_dtype(py::handle obj, bool any_byte_order = false);
// The kiln dtype of a numpy.dtype object (any byte order), if kiln has it (Note [User dtype chars]).
std::optional<arraycore::DType> kiln_dtype_of(py::handle descr);
// DType -> the numpy.dtype object (cached singletons).
py::object to_numpy_dtype(arraycore::DType dtype);
// int or sequence of ints -> Shape; TypeError/ValueError like NumPy.
arraycore::Shape to_shape(py::handle obj);
py::tuple to_tuple(const std::vector<int64_t>& values);
// operator.index(obj) as int64; Python's own TypeError/OverflowError otherwise.
int64_t to_index(py::handle obj);
// A launch's grid or block: an int or a tuple/list of 1 to 3 positive ints
// below 2^32 (`what` names it in the TypeError/ValueError).
runtime::Dim3 to_dim3(PyObject* o, const char* what);
// The array inside a kiln.ndarray object (subclasses too), nullptr for any
// other object: a type check and a pointer read, for the call fast paths
// (pybind11's isinstance + cast cost far more per operand).
const arraycore::NDArray* ndarray_of(PyObject* obj);
// A kiln.ndarray for `view`, a view of `source`'s memory: its `base` is the
// array that owns the memory (Note [View bases], ndarray_binding.cpp).
py::object make_view(py::handle source, arraycore::NDArray view);
// Note [Array subclasses]: an instance of `type` (a Python subclass of
// kiln.ndarray) holding `value`, its __array_finalize__(source) called when
// the class defines one; `base` (may be null) as make_view's.
py::object subclass_instance(py::handle type, arraycore::NDArray value, py::handle source, py::handle base);
// The first of objs whose type is a strict subclass of kiln.ndarray (whose
// type a ufunc's new outputs take), or a null handle.
py::handle first_subclass_instance(std::span<const py::handle> objs);
// The Python type name of obj, for messages.
std::string type_name(py::handle obj);
// numpy's casting= strings; ValueError naming the allowed values otherwise.
arraycore::Casting to_casting(py::handle obj);
// 'C' / 'F' (None = 'C'); ValueError otherwise.
arraycore::Order to_order(py::handle obj);

// Keeps a Python object alive from C++; the last owner drops it under the GIL.
std::shared_ptr<void> keep_alive(py::object obj);
// Note [Foreign device operands]: a kiln array for an object that is not one but
// stands for device memory (__cupy_get_ndarray__, __cuda_array_interface__);
// an empty object for anything else.
py::object foreign_device_array(py::handle obj);

// A new kiln array with a NumPy array's values (any byte order), its memory
// holding the axes in axis_order (outermost first; 0..ndim-1 = C order).
arraycore::NDArray upload_host_array(py::handle host, const std::vector<int>& axis_order);

// Stream argument: None = current stream, else a kiln.cuda.Stream.
runtime::StreamHandle to_stream(py::handle obj);

// Installs a C function (METH_FASTCALL etc.) as the method def->ml_name of a
// pybind11 class: the call paths that skip pybind11's dispatcher (Note
// [Launch fast path]). `def` must outlive the class (a static).
void install_method(py::handle cls, PyMethodDef* def);

// Sets the Python error for a C++ exception, as the registered translator
// does (for entry points that bypass pybind11's dispatcher).
void set_python_error(std::exception_ptr p);

// Sets the Python error for a ufunc type error: kiln._core.UFuncTypeError or
// its subclasses (TypeErrors), with NumPy's messages (ufunc_types_binding.cpp).
void set_ufunc_type_error(const arraycore::UfuncTypeError& e);

// The TypeError for an operand that is not a kiln array or a scalar (host
// arrays, lists): move host data to the device first (ufunc_binding.cpp).
[[noreturn]] void unsupported_operand(py::handle obj);

// Advanced indexing keys (advanced_indexing_binding.cpp): whether obj is a
// NumPy array or NumPy bool (never a basic index), and a key as items;
// `keep` holds host copies the items point into.
bool is_host_index_array(PyObject* obj);
std::vector<arraycore::AdvancedItem> to_advanced_key(py::handle key, std::vector<py::object>& keep);

void register_errors(py::module_& m);
void register_ndarray(py::module_& m);
void register_views(py::module_& m);
void register_memory(py::module_& m);
void register_cuda(py::module_& m);
void register_raw_kernel(py::module_& m);
void register_promotion(py::module_& m);
void register_creation(py::module_& m);
void register_copy(py::module_& m);
void register_elementwise(py::module_& m);
void register_reduction(py::module_& m);
void register_statistics(py::module_& m);
void register_order_statistics(py::module_& m);
void register_ufunc_types(py::module_& m);
void register_ufunc(py::module_& m);
void register_scan(py::module_& m);
void register_advanced_indexing(py::module_& m);
void register_sort(py::module_& m);
void register_matmul(py::module_& m);
void register_solver(py::module_& m);
void register_fft(py::module_& m);
void register_jit(py::module_& m);
void register_jit_device(py::module_& m);
void register_dlpack(py::module_& m);
void register_interop(py::module_& m);

}  // namespace kiln::py_bind
