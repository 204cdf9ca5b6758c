// kiln.jit.rawkernel: the kernel object, its caches and its launch path.
//
// Note [JIT launch plans]
// A launch classifies each argument (a kiln array: dtype, ndim, C-contiguity;
// a Python bool/int/float/complex: weak; a NumPy scalar: its dtype), finds
// the plan for that signature on the current device (a short vector scanned
// in order), checks the captured globals (Note [Captured globals]), writes
// each argument into a stack buffer at its parameter's size and launches.
// No Python objects are created and nothing is allocated on the way. A miss
// imports the function once, transpiles (or finds the source in memory or
// on disk, Note [JIT source cache]) and compiles through the runtime's
// kernel cache.
//
// Note [JIT source cache]
// Generated source is cached in memory and on disk, as text entries of the
// one kernel cache (runtime/kernel_cache.h, Note [Cache files]: the same
// header, payload checksum and atomic rename as compiled modules), key = SHA-256 of the kiln and
// transpiler versions, every imported function's text and location, every
// captured value, the argument signature and the options, and the identity
// (path, size, mtime) of the binary holding the transpiler, so a rebuilt
// transpiler never reuses another build's output.
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <dlfcn.h>
#include <sys/stat.h>

#include "pyfrontend/bindings.h"
#include "pyfrontend/jit_import.h"
#include "runtime/kernel_cache.h"
#include "runtime/loaded_module.h"
#include "runtime/sha256.h"
#include "transpiler/builtins.h"
#include "transpiler/diagnostics.h"
#include "transpiler/transpile.h"

namespace kiln::py_bind {
namespace {

using arraycore::DType;
using transpiler::ArrayStorage;
using transpiler::Type;

enum class ArgKind : uint8_t { Array, Bool, Int, Float, Complex, NumpyScalar };

struct ArgKey {
  ArgKind kind = ArgKind::Int;
  DType dtype = DType::Int64;
  int8_t ndim = 0;
  bool contiguous = false;
  bool operator==(const ArgKey& o) const {
    return kind == o.kind && dtype == o.dtype && ndim == o.ndim && contiguous == o.contiguous;
  }
};

Type type_of(const ArgKey& k) {
  switch (k.kind) {
    case ArgKind::Array:
      return Type::array(k.dtype, k.ndim, k.contiguous ? ArrayStorage::Contiguous : ArrayStorage::Strided);
    case ArgKind::Bool: return Type::weak_scalar(DType::Bool);
    case ArgKind::Int: return Type::weak_scalar(DType::Int64);
    case ArgKind::Float: return Type::weak_scalar(DType::Float64);
    case ArgKind::Complex: return Type::weak_scalar(DType::Complex128);
    case ArgKind::NumpyScalar: return Type::scalar(k.dtype);
  }
  return Type();
}

struct Plan {
  std::vector<ArgKey> key;
  int device = 0;
  runtime::FunctionHandle handle = nullptr;
  std::vector<uint32_t> sizes;  // per parameter
  std::shared_ptr<runtime::LoadedModule> module;  // keeps the handle valid
  bool grid_sync = false;       // calls cg.this_grid().sync(): Note [Grid barrier] in kiln/jit.h
};

// Note [Grid barrier] (kiln/jit.h) needs every block resident at once. A GPU
// holds at most 2048 threads and 32 blocks per multiprocessor, so a larger
// grid never is: refuse it rather than wait forever (a grid under this bound
// may still not fit when registers or shared memory limit occupancy).
void check_grid_sync_fits(runtime::Backend& be, int device, runtime::Dim3 grid, runtime::Dim3 block) {
  if (!be.caps().multiprocessor_residency) return;  // the host's: kiln/jit.h checks against the worker count
  static std::vector<unsigned long long> sms;
  if (sms.size() <= static_cast<size_t>(device)) sms.resize(static_cast<size_t>(device) + 1, 0);
  unsigned long long& n = sms[static_cast<size_t>(device)];
  if (n == 0) n = static_cast<unsigned long long>(be.device_properties(device).multiprocessor_count);
  unsigned long long threads = 1ULL * block.x * block.y * block.z;
  unsigned long long per_sm = std::min<unsigned long long>(32, 2048 / std::max<unsigned long long>(threads, 1));
  unsigned long long blocks = 1ULL * grid.x * grid.y * grid.z;
  if (blocks > n * per_sm)
    throw py::value_error("a kernel calling cg.this_grid().sync() needs all its blocks running at once: this device runs at "
                          "most " + std::to_string(n * per_sm) + " blocks of " + std::to_string(threads) +
                          " threads at a time, the grid has " + std::to_string(blocks));
}

PyObject* numpy_generic() {
  static PyObject* g = py::object(py::module_::import("numpy").attr("generic")).release().ptr();
  return g;
}

// Process-wide memory cache of generated source by key (Note [JIT source cache]).
std::mutex g_source_mutex;
std::map<std::string, std::pair<std::string, std::string>> g_sources;  // key -> (kernel name, source)
struct JitStats {
  size_t memory_hits = 0, disk_hits = 0, transpiles = 0, imports = 0;
} g_stats;

const std::string& transpiler_identity() {
  static const std::string id = [] {
    Dl_info info;
    struct stat st {};
    if (dladdr(reinterpret_cast<void*>(&transpiler::transpile), &info) && info.dli_fname &&
        stat(info.dli_fname, &st) == 0)
      return std::string(info.dli_fname) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime);
    return std::string("unknown-build");
  }();
  return id;
}

// Generated source lives in the kernel cache's text entries (Note [Cache
// files] in runtime/kernel_cache.h), as "// kiln.jit kernel: <name>\n" + source.
std::string jit_cache_dir() {
  const std::string& root = runtime::kernel_cache().directory();
  return root.empty() ? std::string() : root + "/v1/text";
}

std::optional<std::pair<std::string, std::string>> disk_source(const std::string& key) {
  auto text = runtime::kernel_cache().load_text(key);
  if (!text) return std::nullopt;
  const std::string tag = "// kiln.jit kernel: ";
  size_t nl = text->find('\n');
  if (text->rfind(tag, 0) != 0 || nl == std::string::npos) return std::nullopt;
  return std::make_pair(text->substr(tag.size(), nl - tag.size()), text->substr(nl + 1));
}

void store_source(const std::string& key, const std::string& name, const std::string& source) {
  runtime::kernel_cache().store_text(key, "// kiln.jit kernel: " + name + "\n" + source);
}

[[noreturn]] void raise_diagnostic(const transpiler::TranspileError& e, const transpiler::Module& m) {
  std::string text = transpiler::render(e.diag(), m);
  PyObject* type = PyExc_TypeError;
  switch (e.diag().kind) {
    case transpiler::DiagKind::Type: type = PyExc_TypeError; break;
    case transpiler::DiagKind::Name: type = PyExc_NameError; break;
    case transpiler::DiagKind::Unbound: type = PyExc_UnboundLocalError; break;
    case transpiler::DiagKind::Unsupported: type = PyExc_NotImplementedError; break;
    case transpiler::DiagKind::Value: type = PyExc_ValueError; break;
    case transpiler::DiagKind::Overflow: type = PyExc_OverflowError; break;
    case transpiler::DiagKind::ComplexWarning: break;  // only ever a warning (warn_diagnostics)
  }
  PyErr_SetString(type, text.c_str());
  throw py::error_already_set();
}

void warn_diagnostics(const std::vector<transpiler::Diagnostic>& warnings, const transpiler::Module& m,
                      int stacklevel = 1) {
  for (const auto& d : warnings) {
    py::object category = py::module_::import("numpy.exceptions").attr("ComplexWarning");
    std::string text = transpiler::render(d, m);
    // Under a filter that makes the warning an error, the error propagates.
    if (PyErr_WarnEx(category.ptr(), text.c_str(), stacklevel) < 0) throw py::error_already_set();
  }
}

class JitKernel {
 public:
  JitKernel(py::object func, bool device, std::vector<std::string> options, py::object source)
      : func_(std::move(func)), device_(device), options_(std::move(options)), source_(std::move(source)) {}

  const py::object& func() const { return func_; }
  bool device() const { return device_; }
  const std::vector<std::string>& options() const { return options_; }
  const std::string& cached_code() const { return last_source_; }
  const std::map<std::string, std::string>& cached_codes() const { return codes_; }

  // Note [JIT launch plans]
  void launch(runtime::Dim3 grid, runtime::Dim3 block, PyObject* const* args, size_t nargs, uint32_t shared_mem,
              py::handle stream) {
    if (device_)
      throw py::type_error("`" + name() + "` is a device function (rawkernel(device=True)): call it from a kernel");
    constexpr size_t kMax = 64;
    if (nargs > kMax) throw py::type_error("kernels take at most 64 arguments");
    ArgKey keys[kMax];
    for (size_t i = 0; i < nargs; ++i) classify(args[i], i, keys[i]);
    runtime::Backend& be = runtime::backend();
    int dev = be.current_device();
    if (imported_ && !transpiler_captures_ok()) invalidate();
    const Plan* p = find(keys, nargs, dev);
    if (!p) p = &build(keys, nargs, dev);
    if (p->grid_sync) check_grid_sync_fits(be, dev, grid, block);
    runtime::StreamHandle s = to_stream(stream);
    alignas(16) unsigned char storage[kMax * 16 + 4096];
    void* pointers[kMax];
    size_t offset = 0;
    for (size_t i = 0; i < nargs; ++i) {
      size_t size = p->sizes[i];
      if (offset + size > sizeof storage) throw py::type_error("kernel arguments take more than 4 KiB");
      pointers[i] = storage + offset;
      write(args[i], keys[i], i, storage + offset);
      offset += (size + 15) & ~size_t{15};
    }
    if (be.caps().runs_kernels_on_calling_thread) {  // let Python threads go on
      // A Ctrl-C that came before the launch (during a compile) is not missed
      // by it (Note [Cancelling host launches], runtime/host/launch_watch.h).
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      ReleaseGil nogil;
      be.launch(p->handle, grid, block, shared_mem, s, pointers);
    } else if (p->grid_sync) {  // Note [Grid barrier]: every block resident, or an error
      be.launch_cooperative(p->handle, grid, block, shared_mem, s, pointers);
    } else {
      be.launch(p->handle, grid, block, shared_mem, s, pointers);
    }
  }

  std::string inspect_source(PyObject* const* args, size_t nargs) {
    std::vector<ArgKey> keys(nargs);
    for (size_t i = 0; i < nargs; ++i) classify(args[i], i, keys[i]);
    return source_for(keys.data(), nargs).second;
  }

  std::string name() const { return py::str(func_.attr("__name__")); }

 private:
  bool transpiler_captures_ok() { return captures_unchanged(imported_->captures); }

  void invalidate() {
    imported_.reset();
    plans_.clear();
  }

  std::string param_name(size_t i) {
    try {
      py::tuple names = func_.attr("__code__").attr("co_varnames");
      int argc = func_.attr("__code__").attr("co_argcount").cast<int>();
      if (static_cast<int>(i) < argc) return names[i].cast<std::string>();
    } catch (...) {
    }
    return "?";
  }

  [[noreturn]] void bad_argument(size_t i, PyObject* o, const std::string& what) {
    throw py::type_error("`" + name() + "` argument `" + param_name(i) + "` (position " + std::to_string(i) + "): " +
                         what + ", got " + Py_TYPE(o)->tp_name);
  }

  void classify(PyObject* o, size_t i, ArgKey& k) {
    if (const arraycore::NDArray* a = ndarray_of(o)) {
      if (a->ndim() > 32) bad_argument(i, o, "expected an array of at most 32 dimensions");
      k.kind = ArgKind::Array;
      k.dtype = a->dtype();
      k.ndim = static_cast<int8_t>(a->ndim());
      k.contiguous = a->c_contiguous();
      return;
    }
    k.ndim = 0;
    k.contiguous = false;
    if (PyBool_Check(o)) { k.kind = ArgKind::Bool; k.dtype = DType::Bool; return; }
    if (PyLong_CheckExact(o)) { k.kind = ArgKind::Int; k.dtype = DType::Int64; return; }
    if (PyFloat_CheckExact(o)) { k.kind = ArgKind::Float; k.dtype = DType::Float64; return; }
    if (PyComplex_CheckExact(o)) { k.kind = ArgKind::Complex; k.dtype = DType::Complex128; return; }
    // NumPy scalar types, remembered by type object (a handful exist).
    static std::vector<std::pair<PyTypeObject*, DType>> numpy_types;
    for (const auto& [t, d] : numpy_types)
      if (Py_TYPE(o) == t) {
        k.kind = ArgKind::NumpyScalar;
        k.dtype = d;
        return;
      }
    if (PyObject_IsInstance(o, numpy_generic()) == 1) {
      py::object dt = py::reinterpret_borrow<py::object>(o).attr("dtype");
      std::string kind = py::str(dt.attr("kind"));
      if (kind.size() == 1 && std::string("biufc").find(kind[0]) != std::string::npos) {
        k.kind = ArgKind::NumpyScalar;
        k.dtype = to_dtype(dt);
        if (dt.attr("isnative").cast<bool>()) numpy_types.emplace_back(Py_TYPE(o), k.dtype);
        return;
      }
    }
    if (PyLong_Check(o)) { k.kind = ArgKind::Int; k.dtype = DType::Int64; return; }
    if (PyFloat_Check(o)) { k.kind = ArgKind::Float; k.dtype = DType::Float64; return; }
    PyErr_Clear();
    bad_argument(i, o, "expected a kiln array or a number (bool, int, float, complex or a NumPy scalar)");
  }

  void write(PyObject* o, const ArgKey& k, size_t i, unsigned char* out) {
    switch (k.kind) {
      case ArgKind::Array: {
        const arraycore::NDArray* a = ndarray_of(o);
        void* data = a->data();
        std::memcpy(out, &data, 8);
        int n = a->ndim();
        int slots = n > 0 ? n : 1;
        long long* shape = reinterpret_cast<long long*>(out + 8);
        for (int d = 0; d < slots; ++d) shape[d] = d < n ? static_cast<long long>(a->shape()[static_cast<size_t>(d)]) : 1;
        if (!k.contiguous) {
          long long* strides = shape + slots;
          for (int d = 0; d < slots; ++d) strides[d] = d < n ? static_cast<long long>(a->strides()[static_cast<size_t>(d)]) : 0;
        }
        return;
      }
      case ArgKind::Bool: {
        bool b = o == Py_True;
        std::memcpy(out, &b, 1);
        return;
      }
      case ArgKind::Int: {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
          PyErr_Clear();
          throw py::value_error("`" + name() + "` argument `" + param_name(i) + "` (position " + std::to_string(i) +
                                "): a Python int reaches a kernel as int64, and " + std::string(py::str(o)) +
                                " does not fit; pass a numpy.uint64 for larger values");
        }
        std::memcpy(out, &v, 8);
        return;
      }
      case ArgKind::Float: {
        double d = PyFloat_AsDouble(o);
        std::memcpy(out, &d, 8);
        return;
      }
      case ArgKind::Complex: {
        double c[2] = {PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)};
        std::memcpy(out, c, 16);
        return;
      }
      case ArgKind::NumpyScalar: {
        Py_buffer view;
        if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
        std::memcpy(out, view.buf, std::min<size_t>(static_cast<size_t>(view.len), arraycore::itemsize(k.dtype)));
        PyBuffer_Release(&view);
        return;
      }
    }
  }

  const Plan* find(const ArgKey* keys, size_t nargs, int dev) const {
    for (const auto& p : plans_) {
      if (p->device != dev || p->key.size() != nargs) continue;
      bool same = true;
      for (size_t i = 0; i < nargs && same; ++i) same = p->key[i] == keys[i];
      if (same) return p.get();
    }
    return nullptr;
  }

  void ensure_imported() {
    if (imported_) return;
    imported_ = import_kernel(func_, source_, device_);
    ++g_stats.imports;
  }

  std::string signature_text(const ArgKey* keys, size_t nargs) const {
    std::string s = "(";
    for (size_t i = 0; i < nargs; ++i) s += (i ? ", " : "") + type_of(keys[i]).str();
    return s + ")";
  }

  // (kernel name, source) for this signature: memory, disk, or the transpiler.
  std::pair<std::string, std::string> source_for(const ArgKey* keys, size_t nargs) {
    ensure_imported();
    std::vector<Type> types;
    std::string key_text = "kiln " KILN_VERSION " transpiler " + std::to_string(transpiler::kTranspilerVersion) + " " +
                           transpiler_identity() + "\n" +
                           imported_->key_text + "sig|";
    for (size_t i = 0; i < nargs; ++i) {
      types.push_back(type_of(keys[i]));
      key_text += types.back().key() + ",";
    }
    for (const auto& o : options_) key_text += "\nopt|" + o;
    std::string key = runtime::sha256_hex(key_text);
    {
      std::lock_guard<std::mutex> lock(g_source_mutex);
      auto it = g_sources.find(key);
      if (it != g_sources.end()) {
        ++g_stats.memory_hits;
        return it->second;
      }
    }
    std::pair<std::string, std::string> result;
    if (auto d = disk_source(key)) {
      result = *d;
      ++g_stats.disk_hits;
    } else {
      ++g_stats.transpiles;
      try {
        transpiler::TranspileResult r = transpiler::transpile(*imported_->module, types);
        warn_diagnostics(r.warnings, *imported_->module);
        result = {r.kernel_name, r.source};
        // A kernel whose transpile warns stays out of the disk cache, so every process warns once.
        if (r.warnings.empty()) store_source(key, result.first, result.second);
      } catch (const transpiler::TranspileError& e) {
        raise_diagnostic(e, *imported_->module);
      }
    }
    std::lock_guard<std::mutex> lock(g_source_mutex);
    g_sources[key] = result;
    return result;
  }

  const Plan& build(const ArgKey* keys, size_t nargs, int dev) {
    ensure_imported();
    const auto& params = imported_->module->functions[0].params;
    if (nargs != params.size())
      throw py::type_error("`" + name() + "` takes " + std::to_string(params.size()) + " argument" +
                           (params.size() == 1 ? "" : "s") + ", got " + std::to_string(nargs));
    auto [kernel_name, source] = source_for(keys, nargs);
    runtime::CompileRequest req;
    req.source = source;
    req.options = options_;
    req.source_name = name() + ".cu";
    auto module = runtime::load_module_cached(req, dev);
    runtime::KernelFunction fn = module->function(kernel_name);
    auto plan = std::make_unique<Plan>();
    plan->key.assign(keys, keys + nargs);
    plan->device = dev;
    plan->handle = fn.handle;
    plan->module = module;
    plan->grid_sync = source.find("kiln::jit::grid_sync()") != std::string::npos;
    for (size_t i = 0; i < nargs; ++i) plan->sizes.push_back(transpiler::param_size(transpiler::strong(type_of(keys[i]))));
    // The compiled kernel's own parameter sizes (the host backend's from the
    // C++ types, CUDA's from cuFuncGetParamInfo) must be what the launcher
    // writes (Note [Kernel array parameters] in kiln/jit.h).
    if (fn.params.size() == nargs)
      for (size_t i = 0; i < nargs; ++i)
        if (fn.params[i].size != 0 && fn.params[i].size != plan->sizes[i])
          throw std::logic_error("kiln.jit internal error: `" + name() + "` parameter " + std::to_string(i) + " takes " +
                                 std::to_string(fn.params[i].size) + " bytes in the compiled kernel, the launcher writes " +
                                 std::to_string(plan->sizes[i]));
    last_source_ = source;
    codes_[signature_text(keys, nargs)] = source;
    plans_.push_back(std::move(plan));
    return *plans_.back();
  }

  py::object func_;
  bool device_;
  std::vector<std::string> options_;
  py::object source_;
  std::optional<ImportedModule> imported_;
  std::vector<std::unique_ptr<Plan>> plans_;
  std::string last_source_;
  std::map<std::string, std::string> codes_;
};

uint32_t to_shared_mem(PyObject* value) {
  long long v = to_index(value);
  if (v < 0 || v > std::numeric_limits<uint32_t>::max())
    throw py::value_error("shared_mem must be between 0 and 2**32 - 1 bytes, got " + std::to_string(v));
  return static_cast<uint32_t>(v);
}

// What kernel[grid, block] returns: dims bound, called with the arguments.
struct JitLaunch {
  std::shared_ptr<JitKernel> kernel;
  runtime::Dim3 grid, block;
  uint32_t shared_mem = 0;
  py::object stream = py::none();
};

PyObject* jit_kernel_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    if (nargs != 3)
      throw py::type_error("kernel(grid, block, args, *, shared_mem=0, stream=None) takes 3 positional arguments, got " +
                           std::to_string(nargs) + "; or launch as kernel[grid, block](*args)");
    uint32_t shared_mem = 0;
    py::handle stream = Py_None;
    if (kwnames) {
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i) {
        const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        PyObject* value = args[nargs + i];
        if (key && std::strcmp(key, "shared_mem") == 0) shared_mem = to_shared_mem(value);
        else if (key && std::strcmp(key, "stream") == 0) stream = value;
        else throw py::type_error(std::string("kernel call got an unexpected keyword argument '") + (key ? key : "?") + "'");
      }
    }
    PyObject* a = args[2];
    if (!PyTuple_Check(a) && !PyList_Check(a))
      throw py::type_error(std::string("kernel(grid, block, args): args must be a tuple, not '") + Py_TYPE(a)->tp_name + "'");
    auto& k = py::handle(self).cast<JitKernel&>();
    k.launch(to_dim3(args[0], "grid"), to_dim3(args[1], "block"), PySequence_Fast_ITEMS(a),
             static_cast<size_t>(PySequence_Fast_GET_SIZE(a)), shared_mem, stream);
    Py_RETURN_NONE;
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

PyObject* jit_launch_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    auto& l = py::handle(self).cast<JitLaunch&>();
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0)
      throw py::type_error("kernel[grid, block](*args) takes positional arguments only; give shared_mem and stream as "
                           "kernel[grid, block, stream, shared_mem]");
    l.kernel->launch(l.grid, l.block, args, static_cast<size_t>(nargs), l.shared_mem, l.stream);
    Py_RETURN_NONE;
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

PyMethodDef g_kernel_call = {"__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(jit_kernel_call)),
                             METH_FASTCALL | METH_KEYWORDS, "kernel(grid, block, args, *, shared_mem=0, stream=None)"};
PyMethodDef g_launch_call = {"__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(jit_launch_call)),
                             METH_FASTCALL | METH_KEYWORDS, "launch with the bound grid and block"};

}  // namespace

void raise_transpile_error(const transpiler::TranspileError& e, const transpiler::Module& m) { raise_diagnostic(e, m); }

void raise_transpile_warnings(const std::vector<transpiler::Diagnostic>& warnings, const transpiler::Module& m,
                              int stacklevel) {
  warn_diagnostics(warnings, m, stacklevel);
}

void register_jit(py::module_& m) {
  py::class_<JitKernel, std::shared_ptr<JitKernel>>(m, "_JitKernel", py::dynamic_attr())
      .def(py::init([](py::object func, bool device, std::vector<std::string> options, py::object source) {
             return std::make_shared<JitKernel>(std::move(func), device, std::move(options), std::move(source));
           }),
           py::arg("func"), py::arg("device") = false, py::arg("options") = std::vector<std::string>{},
           py::arg("source") = py::none())
      .def("__getitem__", [](std::shared_ptr<JitKernel> k, py::handle key) {
        auto l = std::make_shared<JitLaunch>();
        l->kernel = std::move(k);
        if (!PyTuple_Check(key.ptr()) || PyTuple_GET_SIZE(key.ptr()) < 2 || PyTuple_GET_SIZE(key.ptr()) > 4)
          throw py::type_error("launch as kernel[grid, block](*args) (or kernel[grid, block, stream, shared_mem])");
        PyObject** items = PySequence_Fast_ITEMS(key.ptr());
        l->grid = to_dim3(items[0], "grid");
        l->block = to_dim3(items[1], "block");
        if (PyTuple_GET_SIZE(key.ptr()) > 2) l->stream = py::reinterpret_borrow<py::object>(items[2]);
        if (PyTuple_GET_SIZE(key.ptr()) > 3) l->shared_mem = to_shared_mem(items[3]);
        return l;
      })
      .def("inspect_source", [](JitKernel& k, py::args args) {
        std::vector<PyObject*> items;
        for (py::handle a : args) items.push_back(a.ptr());
        return k.inspect_source(items.data(), items.size());
      }, "The CUDA C++ kiln generates for a call with these arguments (nothing is compiled).")
      .def_property_readonly("cached_code", &JitKernel::cached_code,
                             "The CUDA C++ of the most recently compiled signature ('' before the first launch).")
      .def_property_readonly("cached_codes", &JitKernel::cached_codes,
                             "{argument types: CUDA C++} for every signature compiled so far.")
      .def_property_readonly("_kiln_jit_function", &JitKernel::func)
      .def_property_readonly("__wrapped__", &JitKernel::func)
      .def_property_readonly("name", &JitKernel::name)
      .def_property_readonly("device", &JitKernel::device)
      .def_property_readonly("options", [](const JitKernel& k) {
        py::list l;
        for (const auto& o : k.options()) l.append(o);
        return py::tuple(l);
      })
      .def("__repr__", [](const JitKernel& k) { return "<kiln.jit.rawkernel " + k.name() + ">"; });
  py::class_<JitLaunch, std::shared_ptr<JitLaunch>>(m, "_JitLaunch");
  m.def("_jit_builtins", [] {
    py::list rows;
    for (const transpiler::BuiltinInfo& b : transpiler::builtin_table())
      rows.append(py::make_tuple(std::string(b.name), std::string(b.doc)));
    return rows;
  }, "(qualified name, doc) of every row of the transpiler's builtin table (transpiler/builtins.h): "
     "kiln.jit's objects and the Python builtins kernels may call are made from it.");
  m.def("_jit_cache_stats", [] {
    py::dict d;
    d["memory_hits"] = g_stats.memory_hits;
    d["disk_hits"] = g_stats.disk_hits;
    d["transpiles"] = g_stats.transpiles;
    d["imports"] = g_stats.imports;
    d["directory"] = jit_cache_dir();
    return d;
  });
  m.def("_jit_clear_memory_cache", [] {
    std::lock_guard<std::mutex> lock(g_source_mutex);
    g_sources.clear();
  }, "Forget generated source held in memory (tests use it to reach the disk cache).");
  install_method(m.attr("_JitKernel"), &g_kernel_call);
  install_method(m.attr("_JitLaunch"), &g_launch_call);
}

}  // namespace kiln::py_bind
