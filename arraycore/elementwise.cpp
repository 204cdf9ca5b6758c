#include "arraycore/elementwise.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "arraycore/small_vector.h"
#include "arraycore/strided_plan.h"
#include "kiln/strided_index.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

// The cheap strided variant: 32-bit index arithmetic over at most this many
// (collapsed) dimensions.
constexpr int kSmallDims = 8;
constexpr uint32_t kBlock = 256;

enum class ArgKind : char { Array = 'a', Scalar = 's', Raw = 'r' };

// Per param of one launch: how it is bound and what is in memory.
struct Binding {
  ArgKind kind;
  std::string storage;  // element type in memory ("unsigned char" for bool arrays)
  bool bool_storage = false;
};

std::vector<Binding> bindings_of(const EwSpec& spec, std::span<const EwArg> args) {
  if (args.size() != spec.params.size())
    throw std::invalid_argument(spec.name + ": expected " + std::to_string(spec.params.size()) +
                                " arguments, got " + std::to_string(args.size()));
  std::vector<Binding> out;
  out.reserve(args.size());
  for (size_t k = 0; k < args.size(); ++k) {
    const EwParam& p = spec.params[k];
    const EwArg& a = args[k];
    Binding b;
    if (p.role == EwParam::Raw) {
      if (a.array == nullptr) throw std::invalid_argument(spec.name + ": raw param '" + p.name + "' needs an array");
      b.kind = ArgKind::Raw;
      b.storage = p.storage.empty() ? p.ctype : p.storage;
    } else if (a.array == nullptr) {
      if (p.role == EwParam::Output)
        throw std::invalid_argument(spec.name + ": output '" + p.name + "' needs an array");
      b.kind = ArgKind::Scalar;
      b.storage = p.ctype;
    } else {
      b.kind = ArgKind::Array;
      b.bool_storage = a.array->dtype() == DType::Bool;
      b.storage = b.bool_storage ? "unsigned char" : std::string(dtype_info(a.array->dtype()).c_type);
    }
    out.push_back(std::move(b));
  }
  return out;
}

// The expression reading element `at` (an lvalue of the storage type) as ctype.
std::string load_expr(const EwParam& p, const Binding& b, const std::string& at) {
  std::string v = b.bool_storage ? "(bool)(" + at + " != 0)" : at;
  if (b.bool_storage && p.ctype == "bool") return v;
  if (!b.bool_storage && b.storage == p.ctype) return v;
  return "kiln::numpy_cast<" + p.ctype + ">(" + v + ")";
}

std::string store_expr(const EwParam& p, const Binding& b, const std::string& value) {
  if (b.bool_storage) return "(unsigned char)(bool)(" + value + ")";
  if (b.storage == p.ctype) return value;
  return "kiln::numpy_cast<" + b.storage + ">(" + value + ")";
}

// An output bound by reference when no conversion is involved; otherwise a
// local loaded (unless write-only) and stored after the operation.
bool output_by_reference(const EwParam& p, const Binding& b) {
  return !b.bool_storage ? b.storage == p.ctype : p.ctype == "bool";
}

// Kernel params of every variant: arrays as pointers, scalars by value, raw
// arrays as kiln::RawArray.
std::string param_list(const EwSpec& spec, const std::vector<Binding>& bs, bool typed_pointers) {
  std::string s;
  for (size_t k = 0; k < bs.size(); ++k) {
    const EwParam& p = spec.params[k];
    const Binding& b = bs[k];
    if (!s.empty()) s += ", ";
    if (b.kind == ArgKind::Scalar) {
      s += p.ctype + " _s_" + p.name;
    } else if (b.kind == ArgKind::Raw) {
      s += "kiln::RawArray<" + b.storage + "> " + p.name;
    } else if (typed_pointers) {
      s += (p.role == EwParam::Input ? "const " : "") + b.storage + "* _p_" + p.name;
    } else {
      s += std::string(p.role == EwParam::Input ? "const " : "") + "char* _p_" + p.name;
    }
  }
  return s;
}

// The per-element statements: bind each param for element `i`, run the
// operation, store converted outputs. `at(k)` spells the storage lvalue of
// array param k.
template <class At>
std::string element_body(const EwSpec& spec, const std::vector<Binding>& bs, At at, bool write_only) {
  std::string pre, post;
  for (size_t k = 0; k < bs.size(); ++k) {
    const EwParam& p = spec.params[k];
    const Binding& b = bs[k];
    if (b.kind == ArgKind::Scalar) {
      pre += "    const " + p.ctype + " " + p.name + " = _s_" + p.name + ";\n";
    } else if (b.kind == ArgKind::Array && p.role == EwParam::Input) {
      pre += "    const " + p.ctype + " " + p.name + " = " + load_expr(p, b, at(k)) + ";\n";
    } else if (b.kind == ArgKind::Array) {
      if (output_by_reference(p, b)) {
        std::string lvalue = b.bool_storage ? "*(bool*)&" + at(k) : at(k);
        pre += "    " + p.ctype + "& " + p.name + " = " + lvalue + ";\n";
      } else {
        pre += "    " + p.ctype + " " + p.name + (write_only ? "" : " = " + load_expr(p, b, at(k))) + ";\n";
        post += "    " + at(k) + " = " + store_expr(p, b, p.name) + ";\n";
      }
    }
  }
  std::string op = spec.operation;
  if (!spec.operation_file.empty()) op = "#line 1 \"" + spec.operation_file + "\"\n" + op + "\n";
  return pre + "    {\n" + op + "\n    }\n" + post;
}

std::string vector_body(const EwSpec& spec, const std::vector<Binding>& bs) {
  // Loads of whole Vec4s, the operation 4 times on locals, whole-Vec4 stores.
  std::string s;
  for (size_t k = 0; k < bs.size(); ++k) {
    if (bs[k].kind != ArgKind::Array) continue;
    const EwParam& p = spec.params[k];
    if (p.role == EwParam::Input)
      s += "    const kiln::Vec4<" + bs[k].storage + "> _v_" + p.name + " = ((const kiln::Vec4<" + bs[k].storage +
           ">*)_p_" + p.name + ")[_j];\n";
    else
      s += "    kiln::Vec4<" + bs[k].storage + "> _v_" + p.name + ";\n";
  }
  s += "#pragma unroll\n    for (int _k = 0; _k < 4; ++_k) {\n    const long long i = _j * 4 + _k;\n";
  s += element_body(spec, bs, [&](size_t k) { return "_v_" + spec.params[k].name + ".v[_k]"; }, true);
  s += "    }\n";
  for (size_t k = 0; k < bs.size(); ++k) {
    const EwParam& p = spec.params[k];
    if (bs[k].kind == ArgKind::Array && p.role == EwParam::Output)
      s += "    ((kiln::Vec4<" + bs[k].storage + ">*)_p_" + p.name + ")[_j] = _v_" + p.name + ";\n";
  }
  return s;
}

int count_arrays(const std::vector<Binding>& bs) {
  return static_cast<int>(std::count_if(bs.begin(), bs.end(), [](const Binding& b) { return b.kind == ArgKind::Array; }));
}

bool vectorizable(const EwSpec& spec, const std::vector<Binding>& bs) {
  // Records (Note [Record kernel types]) have sizes a Vec4 cannot align.
  return spec.outputs_write_only && count_arrays(bs) > 0 &&
         std::none_of(bs.begin(), bs.end(), [](const Binding& b) {
           return b.kind == ArgKind::Raw || b.storage.starts_with("kiln::record<");
         });
}

// The four kernels of a spec (Note [Elementwise kernels]); bit k of a mask
// selects kPathSuffix[k].
enum Path { kContig, kContig4, kStrided32, kStrided64, kNumPaths };
constexpr const char* kPathSuffix[kNumPaths] = {"_contig", "_contig4", "_strided32", "_strided64"};

std::string generate(const EwSpec& spec, const std::vector<Binding>& bs, unsigned paths) {
  const int narr = count_arrays(bs);
  const std::string n_arr = std::to_string(std::max(narr, 1));
  const std::string& name = spec.name;
  std::string src = "#include <kiln/elementwise.h>\n" + spec.preamble + "\n";
  auto kernel_open = [&](const std::string& suffix, const std::string& extra) {
    std::string params = param_list(spec, bs, suffix.rfind("_contig", 0) == 0);
    return "extern \"C\" __global__ void " + name + suffix + "(" + params + (params.empty() ? "" : ", ") + extra +
           ") {\n  const kiln::ElementIndex _ind{(long long)_n};\n" + spec.loop_prep + "\n";
  };
  const std::string grid_loop =
      "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)_n;"
      " i += (long long)blockDim.x * gridDim.x) {\n";
  // Contiguous: element i of every array is _p_x[i].
  if (paths & (1u << kContig)) {
    src += kernel_open("_contig", "long long _n") + grid_loop;
    src += element_body(spec, bs, [&](size_t k) { return "_p_" + spec.params[k].name + "[i]"; },
                        spec.outputs_write_only);
    src += "  }\n" + spec.after_loop + "\n}\n";
  }
  if ((paths & (1u << kContig4)) && vectorizable(spec, bs)) {
    src += kernel_open("_contig4", "long long _n");
    src += "  const long long _nv = _n / 4;\n"
           "  for (long long _j = (long long)blockIdx.x * blockDim.x + threadIdx.x; _j < _nv;"
           " _j += (long long)blockDim.x * gridDim.x) {\n";
    src += vector_body(spec, bs);
    src += "  }\n  for (long long i = _nv * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < _n;"
           " i += (long long)blockDim.x * gridDim.x) {\n";
    src += element_body(spec, bs, [&](size_t k) { return "_p_" + spec.params[k].name + "[i]"; }, true);
    src += "  }\n" + spec.after_loop + "\n}\n";
  }
  // Strided: byte offsets from the layout, in 32-bit or 64-bit arithmetic.
  auto strided = [&](const std::string& suffix, const std::string& index, const std::string& dims) {
    std::string s = kernel_open(suffix, index + " _n, const kiln::Layout<" + n_arr + ", " + index + ", " + dims + "> _L");
    s += "  for (" + index + " i = (" + index + ")blockIdx.x * blockDim.x + threadIdx.x; i < _n; i += (" + index +
         ")blockDim.x * gridDim.x) {\n    " + index + " _off[" + n_arr + "];\n    _L.offsets(i, _off);\n";
    int slot = 0;
    std::vector<int> slots(bs.size(), -1);
    for (size_t k = 0; k < bs.size(); ++k)
      if (bs[k].kind == ArgKind::Array) slots[k] = slot++;
    s += element_body(spec, bs, [&](size_t k) {
      const EwParam& p = spec.params[k];
      return "(*(" + std::string(p.role == EwParam::Input ? "const " : "") + bs[k].storage + "*)(_p_" + p.name +
             " + _off[" + std::to_string(slots[k]) + "]))";
    }, spec.outputs_write_only);
    return s + "  }\n" + spec.after_loop + "\n}\n";
  };
  if (paths & (1u << kStrided32)) src += strided("_strided32", "int", std::to_string(kSmallDims));
  if (paths & (1u << kStrided64)) src += strided("_strided64", "long long", std::to_string(kMaxDims));
  return src;
}

// Everything that selects a module for a spec: per param its kind and, for
// arrays, its dtype (bool and uint8 differ: Note [Bool bytes]), and the device.
// Packed into 64 bits when it fits (5 bits per param: a dtype, or 30 for a raw
// param, 31 for a scalar; 8 bits for the device), the common case, so a warm
// launch builds no string.
constexpr size_t kPackedParams = 11;
constexpr uint64_t kRawCode = 30, kScalarCode = 31;
constexpr int kPackedDevices = 256;

// The packed key, or nullopt when the call does not fit one: too many
// params, a device past 255, or a record dtype (Note [Record dtypes]), whose
// number does not fit 5 bits.
std::optional<uint64_t> packed_variant_key(const EwSpec& spec, std::span<const EwArg> args, int device) {
  if (args.size() > kPackedParams || device < 0 || device >= kPackedDevices) return std::nullopt;
  uint64_t key = static_cast<uint64_t>(device);
  for (size_t k = 0; k < args.size(); ++k) {
    uint64_t code = spec.params[k].role == EwParam::Raw ? kRawCode
                    : args[k].array == nullptr         ? kScalarCode
                                                       : static_cast<uint64_t>(args[k].array->dtype());
    if (code >= kRawCode && args[k].array != nullptr) return std::nullopt;
    key |= code << (8 + 5 * k);
  }
  return key;
}

std::string variant_key(const EwSpec& spec, std::span<const EwArg> args, int device) {
  std::string key;
  key.reserve(2 * args.size() + 4);
  for (size_t k = 0; k < args.size() && k < spec.params.size(); ++k) {
    if (spec.params[k].role == EwParam::Raw) key += 'r';
    else if (args[k].array == nullptr) key += 's';
    else key += static_cast<char>('A' + static_cast<int>(args[k].array->dtype()));
  }
  return key + '@' + std::to_string(device);
}

// One spec's compiled kernels for one variant key: all four from one module
// on the host backend (each host compile is a process: one per variant), each
// from its own module on CUDA (NVRTC time grows with the kernels in a module,
// and most calls need only the contiguous one: the cold first call stays short).
struct Variant {
  std::vector<std::shared_ptr<runtime::LoadedModule>> modules;
  runtime::FunctionHandle fn[kNumPaths] = {};
};

struct VariantMap {
  std::unordered_map<uint64_t, Variant> packed;
  std::unordered_map<std::string, Variant> named;
};

std::string spec_key(const EwSpec& spec) {
  std::string k = spec.name;
  k += '\0';
  for (const EwParam& p : spec.params) {
    k += p.name + ':' + p.ctype + ':' + p.storage + ':' + static_cast<char>('0' + p.role) + ',';
  }
  k += '\0' + spec.operation + '\0' + spec.preamble + '\0' + spec.loop_prep + '\0' + spec.after_loop + '\0';
  for (const auto& o : spec.options) k += o + '\1';
  k += '\0' + std::string(spec.outputs_write_only ? "w" : "r") + spec.operation_file + '\0';
  return k;
}

runtime::FunctionHandle kernel_for(const EwSpec& spec, std::span<const EwArg> args, Path path) {
  static std::mutex mutex;
  static std::unordered_map<std::string, VariantMap> slots;
  auto& be = runtime::backend();
  const int device = be.current_device();
  static_assert(kNumDTypes <= int(kRawCode), "5 bits per param in packed variant keys");
  const std::optional<uint64_t> packed = packed_variant_key(spec, args, device);
  std::unique_lock<std::mutex> lock(mutex);
  if (spec.cache_slot == nullptr) spec.cache_slot = &slots[spec_key(spec)];
  auto& variants = *static_cast<VariantMap*>(spec.cache_slot);
  Variant& v = packed ? variants.packed[*packed] : variants.named[variant_key(spec, args, device)];
  if (v.fn[path] != nullptr) return v.fn[path];
  lock.unlock();
  const std::vector<Binding> bs = bindings_of(spec, args);
  const bool one_module = be.caps().one_module_per_source;
  unsigned paths = one_module ? (1u << kNumPaths) - 1 : 1u << path;
  if (!vectorizable(spec, bs)) paths &= ~(1u << kContig4);
  runtime::CompileRequest req;
  req.source = generate(spec, bs, paths);
  req.options = spec.options;
  req.source_name = spec.name + ".cu";
  auto module = runtime::load_module_cached(req, be.current_device());
  lock.lock();
  v.modules.push_back(module);
  for (int k = 0; k < kNumPaths; ++k)
    if (paths & (1u << k)) v.fn[k] = module->function(spec.name + kPathSuffix[k]).handle;
  return v.fn[path];
}

uint32_t grid_for(int64_t work_items) { return grid_stride_blocks(work_items, kBlock); }

using KernelArgs = SmallVector<void*, 12>;

template <class Index, int Dims, int N>
void fill_layout(kiln::Layout<N, Index, Dims>& layout, const StridedPlan& plan) {
  layout.ndim = static_cast<int>(plan.shape.size());
  for (size_t d = 0; d < plan.shape.size(); ++d) {
    layout.shape[d] = static_cast<Index>(plan.shape[d]);
    for (int k = 0; k < N; ++k) layout.strides[k][d] = static_cast<Index>(plan.strides[k][d]);
  }
}

// Launch of a strided variant with N array operands (N fixed at compile time
// here, as the kernel's Layout<N> is).
template <int N>
void launch_strided(runtime::FunctionHandle f, KernelArgs& kargs, const StridedPlan& plan, int64_t n,
                    bool small, runtime::StreamHandle stream) {
  auto& be = runtime::backend();
  if (small) {
    kiln::Layout<N, int, kSmallDims> layout{};
    fill_layout(layout, plan);
    int count = static_cast<int>(n);
    kargs.push_back(&count);
    kargs.push_back(&layout);
    be.launch(f, {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0, stream, kargs.data());
  } else {
    kiln::Layout<N, long long, kiln::kMaxDims> layout{};
    fill_layout(layout, plan);
    long long count = n;
    kargs.push_back(&count);
    kargs.push_back(&layout);
    be.launch(f, {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0, stream, kargs.data());
  }
}

template <int N = 1>
void dispatch_strided(int narr, runtime::FunctionHandle f, KernelArgs& kargs, const StridedPlan& plan, int64_t n,
                      bool small, runtime::StreamHandle stream) {
  if constexpr (N <= 24) {
    if (narr <= N) return launch_strided<N>(f, kargs, plan, n, small, stream);
    return dispatch_strided<N + 1>(narr, f, kargs, plan, n, small, stream);
  } else {
    throw std::invalid_argument("elementwise kernels take at most 24 array arguments");
  }
}

}  // namespace

RawArrayArg raw_array_arg(const NDArray& a) {
  if (a.ndim() > kiln::kMaxDims) throw std::invalid_argument("arrays of more than 32 dimensions are not supported");
  RawArrayArg r{};
  r.data = a.data();
  r.n = a.size();
  r.ndim = a.ndim();
  r.contiguous = a.c_contiguous();
  for (int d = 0; d < a.ndim(); ++d) {
    r.shape[d] = a.shape()[d];
    r.strides[d] = a.strides()[d];
  }
  return r;
}

uint32_t grid_stride_blocks(int64_t work_items, uint32_t block) {
  constexpr int kDevices = 64;
  static std::atomic<int> resident_threads[kDevices] = {};   // per device: 2048 threads per SM
  auto& be = runtime::backend();
  const int device = be.current_device();
  int threads = device >= 0 && device < kDevices ? resident_threads[device].load(std::memory_order_relaxed) : 0;
  if (threads == 0) {
    threads = std::max(1, be.device_properties(device).multiprocessor_count) * 2048;
    if (device >= 0 && device < kDevices) resident_threads[device].store(threads, std::memory_order_relaxed);
  }
  const int64_t blocks = (work_items + block - 1) / block;
  return static_cast<uint32_t>(std::clamp<int64_t>(blocks, 1, std::max<int64_t>(1, threads / block)));
}

const std::vector<std::string>& exact_fp_options() {
  static const std::vector<std::string> options{"--fmad=false"};
  return options;
}

std::string elementwise_source(const EwSpec& spec, std::span<const EwArg> args) {
  return generate(spec, bindings_of(spec, args), (1u << kNumPaths) - 1);
}

void elementwise_launch(const EwSpec& spec, std::span<const EwArg> args, const Shape& shape) {
  if (args.size() != spec.params.size())
    throw std::invalid_argument(spec.name + ": expected " + std::to_string(spec.params.size()) +
                                " arguments, got " + std::to_string(args.size()));
  // Note [Launch scratch]: everything per call lives in SmallVectors (no heap
  // allocation for up to 8 params), and C-contiguous operands skip the
  // dimension collapsing: a one-element `x + x` is host overhead, nothing else.
  SmallVector<ArgKind, 8> kinds(args.size());
  SmallVector<const NDArray*, 8> arrays;
  const int64_t n = shape_size(shape);
  bool contiguous = true;
  bool has_raw = false;
  for (size_t k = 0; k < args.size(); ++k) {
    const EwParam& p = spec.params[k];
    if (p.role == EwParam::Raw) {
      if (args[k].array == nullptr) throw std::invalid_argument(spec.name + ": raw param '" + p.name + "' needs an array");
      kinds[k] = ArgKind::Raw;
      has_raw = true;
      continue;
    }
    if (args[k].array == nullptr) {
      if (p.role == EwParam::Output) throw std::invalid_argument(spec.name + ": output '" + p.name + "' needs an array");
      kinds[k] = ArgKind::Scalar;
      continue;
    }
    kinds[k] = ArgKind::Array;
    const NDArray& a = *args[k].array;
    if (p.role == EwParam::Output) require_writeable(a, kReadOnlyOutput);   // Note [Read-only arrays]
    if (a.shape() != shape) throw std::invalid_argument(spec.name + ": argument '" + p.name + "' has the wrong shape");
    arrays.push_back(&a);
    contiguous = contiguous && a.c_contiguous();
  }
  if (n == 0) return;
  runtime::StreamHandle stream = runtime::current_stream();
  auto& be = runtime::backend();

  // Kernel arguments in param order: pointers, scalar values, raw structs
  // (both reserved up front: kargs point into them), then the loop's own.
  SmallVector<void*, 8> pointers(args.size());
  SmallVector<RawArrayArg, 1> raws;
  if (has_raw) raws.reserve(args.size());
  KernelArgs kargs;
  kargs.reserve(args.size() + 2);
  for (size_t k = 0; k < args.size(); ++k) {
    if (kinds[k] == ArgKind::Scalar) {
      kargs.push_back(const_cast<std::byte*>(args[k].scalar.data()));
    } else if (kinds[k] == ArgKind::Raw) {
      raws.push_back(raw_array_arg(*args[k].array));
      kargs.push_back(&raws.back());
    } else {
      pointers[k] = args[k].array->data();
      kargs.push_back(&pointers[k]);
    }
  }

  long long count = n;
  if (arrays.empty()) {  // only scalars and raw arrays: i runs over `shape`
    kargs.push_back(&count);
    be.launch(kernel_for(spec, args, kContig), {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0, stream, kargs.data());
    return;
  }
  StridedPlan plan;
  if (!contiguous) {
    std::vector<Strides> strides;
    strides.reserve(arrays.size());
    for (const NDArray* a : arrays) strides.push_back(a->strides());
    plan = collapse_dims(shape, strides);
    contiguous = plan.shape.size() <= 1;
    for (size_t j = 0; contiguous && j < arrays.size(); ++j)
      contiguous = plan.shape.empty() || plan.strides[j][0] == static_cast<int64_t>(arrays[j]->itemsize());
  }
  if (contiguous) {
    kargs.push_back(&count);
    bool aligned = spec.outputs_write_only && n >= 4 && !has_raw;
    for (size_t j = 0; aligned && j < arrays.size(); ++j) {
      size_t align = std::min<size_t>(16, arrays[j]->itemsize() * 4);
      aligned = reinterpret_cast<uintptr_t>(arrays[j]->data()) % align == 0;
    }
    if (aligned) {
      be.launch(kernel_for(spec, args, kContig4), {grid_for((n + 3) / 4), 1, 1}, {kBlock, 1, 1}, 0, stream,
                kargs.data());
    } else {
      be.launch(kernel_for(spec, args, kContig), {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0, stream, kargs.data());
    }
    return;
  }
  // i + blockDim * gridDim stays below 2^31 too (grids are far below 2^22 threads).
  bool small = plan.shape.size() <= static_cast<size_t>(kSmallDims) && n < (int64_t(1) << 31) - (int64_t(1) << 22);
  for (size_t j = 0; small && j < arrays.size(); ++j) {
    auto [low, high] = byte_extent(arrays[j]->shape(), arrays[j]->strides(), arrays[j]->itemsize());
    small = low > -(int64_t(1) << 31) && high < (int64_t(1) << 31);
  }
  if (plan.shape.size() > static_cast<size_t>(kiln::kMaxDims))
    throw std::invalid_argument("arrays of more than 32 dimensions are not supported");
  runtime::FunctionHandle f = kernel_for(spec, args, small ? kStrided32 : kStrided64);
  dispatch_strided(static_cast<int>(arrays.size()), f, kargs, plan, n, small, stream);
}

}  // namespace kiln::arraycore
