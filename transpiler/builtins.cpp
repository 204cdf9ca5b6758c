#include "transpiler/builtins.h"

#include <deque>
#include <unordered_map>

#include "arraycore/ufunc.h"
#include "transpiler/cub.h"
#include "transpiler/diagnostics.h"
#include "transpiler/thrust.h"

namespace kiln::transpiler {
namespace {

using R = BuiltinRule;

// Note [Builtin dtypes]
// Atomics and shuffles take the dtypes CUDA has the operation for (int64 adds
// and bit operations go through the unsigned 64-bit instruction, which gives
// the same bits), and float16 and complex where kiln/jit.h builds them: a
// float16 add or exchange is a compare-and-swap loop on the 16-bit word, a
// complex add two atomic adds (each part is atomic, the pair is not one
// snapshot: the old value returned may mix two updates), a float64 exchange
// the 64-bit one on the bits, float16 and complex shuffles move the bits or
// the two parts. The dtype chars are NumPy's (i int32, I uint32, q int64,
// Q uint64, e float16, f float32, d float64, F complex64, D complex128).
std::vector<BuiltinInfo> make_table() {
  std::vector<BuiltinInfo> t = {
      // ---- thread indices and sizes ----
      {"kiln.jit.threadIdx", R::Namespace, "threadIdx", "", "index of the thread in its block (.x, .y, .z; uint32)"},
      {"kiln.jit.blockIdx", R::Namespace, "blockIdx", "", "index of the block in the grid (.x, .y, .z; uint32)"},
      {"kiln.jit.blockDim", R::Namespace, "blockDim", "", "threads per block (.x, .y, .z; uint32)"},
      {"kiln.jit.gridDim", R::Namespace, "gridDim", "", "blocks per grid (.x, .y, .z; uint32)"},
      {"kiln.jit.warpsize", R::IntValue, "warpSize", "", "threads per warp (32; int32)"},
      {"kiln.jit.laneid", R::LaneId, "kiln::jit::laneid()", "", "laneid(): the thread's lane in its warp (uint32)"},
      {"kiln.jit.grid", R::Grid, "", "", "grid(ndim): the thread's absolute index (a uint32, or a tuple of ndim)"},
      {"kiln.jit.gridsize", R::GridSize, "", "", "gridsize(ndim): threads in the grid (a uint32, or a tuple of ndim)"},
      // ---- barriers ----
      {"kiln.jit.syncthreads", R::Barrier, "__syncthreads()", "", "syncthreads(): barrier of the block"},
      {"kiln.jit.syncwarp", R::SyncWarp, "__syncwarp", "", "syncwarp(mask=0xffffffff): barrier of the warp's lanes in mask"},
      {"kiln.jit.threadfence", R::Barrier, "__threadfence()", "", "threadfence(): orders this thread's memory accesses for the whole device"},
      {"kiln.jit.threadfence_block", R::Barrier, "__threadfence_block()", "", "threadfence_block(): ... for the block"},
      {"kiln.jit.threadfence_system", R::Barrier, "__threadfence_system()", "", "threadfence_system(): ... for the device and the host"},
      // ---- memory ----
      {"kiln.jit.shared_memory", R::SharedMemory, "", "", "shared_memory(dtype, size): an array shared by the block; size=None: sized at launch by shared_mem= (bytes)"},
      {"kiln.jit.local_memory", R::LocalMemory, "", "", "local_memory(dtype, size): a thread-private array"},
      // ---- atomics (Note [Builtin dtypes]) ----
      {"kiln.jit.atomic_add", R::Atomic, "kiln::jit::atomic_add", "iIqQefdFD", "atomic_add(array, index, value): old value"},
      {"kiln.jit.atomic_sub", R::Atomic, "kiln::jit::atomic_sub", "iI", "atomic_sub(array, index, value): old value"},
      {"kiln.jit.atomic_exch", R::Atomic, "kiln::jit::atomic_exch", "iIqQefd", "atomic_exch(array, index, value): old value"},
      {"kiln.jit.atomic_min", R::Atomic, "kiln::jit::atomic_min", "iIqQ", "atomic_min(array, index, value): old value"},
      {"kiln.jit.atomic_max", R::Atomic, "kiln::jit::atomic_max", "iIqQ", "atomic_max(array, index, value): old value"},
      {"kiln.jit.atomic_inc", R::Atomic, "kiln::jit::atomic_inc", "I", "atomic_inc(array, index, limit): old; stores 0 at limit"},
      {"kiln.jit.atomic_dec", R::Atomic, "kiln::jit::atomic_dec", "I", "atomic_dec(array, index, limit): old; wraps to limit"},
      {"kiln.jit.atomic_and", R::Atomic, "kiln::jit::atomic_and", "iIqQ", "atomic_and(array, index, value): old value"},
      {"kiln.jit.atomic_or", R::Atomic, "kiln::jit::atomic_or", "iIqQ", "atomic_or(array, index, value): old value"},
      {"kiln.jit.atomic_xor", R::Atomic, "kiln::jit::atomic_xor", "iIqQ", "atomic_xor(array, index, value): old value"},
      {"kiln.jit.atomic_cas", R::AtomicCas, "kiln::jit::atomic_cas", "HiIqQ", "atomic_cas(array, index, compare, value): old value"},
      // ---- warp operations ----
      {"kiln.jit.shfl_sync", R::Shuffle, "kiln::jit::shfl_sync", "iIqQefdFD", "shfl_sync(mask, value, src_lane, width=32): warp shuffle (CUDA's __shfl_sync)"},
      {"kiln.jit.shfl_up_sync", R::Shuffle, "kiln::jit::shfl_up_sync", "iIqQefdFD", "shfl_up_sync(mask, value, delta, width=32): warp shuffle (CUDA's __shfl_up_sync)"},
      {"kiln.jit.shfl_down_sync", R::Shuffle, "kiln::jit::shfl_down_sync", "iIqQefdFD", "shfl_down_sync(mask, value, delta, width=32): warp shuffle (CUDA's __shfl_down_sync)"},
      {"kiln.jit.shfl_xor_sync", R::Shuffle, "kiln::jit::shfl_xor_sync", "iIqQefdFD", "shfl_xor_sync(mask, value, lane_mask, width=32): warp shuffle (CUDA's __shfl_xor_sync)"},
      {"kiln.jit.all_sync", R::Vote, "__all_sync", "", "all_sync(mask, predicate) -> bool"},
      {"kiln.jit.any_sync", R::Vote, "__any_sync", "", "any_sync(mask, predicate) -> bool"},
      {"kiln.jit.ballot_sync", R::Ballot, "__ballot_sync", "", "ballot_sync(mask, predicate) -> uint32"},
      // ---- cooperative groups ----
      {"kiln.jit.cg", R::Namespace, "", "", "cooperative groups"},
      {"kiln.jit.cg.this_thread_block", R::GroupCtor, "kiln.jit.cg.thread_block", "", "this_thread_block(): the block as a group"},
      {"kiln.jit.cg.this_grid", R::GroupCtor, "kiln.jit.cg.grid_group", "", "this_grid(): the grid as a group (needs a cooperative launch)"},
      {"kiln.jit.cg.thread_block.sync", R::GroupSync, "__syncthreads()", "", "block-wide barrier"},
      {"kiln.jit.cg.grid_group.sync", R::GroupSync, "kiln::jit::grid_sync()", "", "grid-wide barrier"},
      // Note [kiln.jit.cg] in kiln/jit.h: the groups' queries, as CUDA's cooperative_groups names them
      {"kiln.jit.cg.thread_block.thread_rank", R::GroupQuery, "kiln::jit::cg_block_thread_rank", "I", "thread_rank(): the thread's rank in the block"},
      {"kiln.jit.cg.thread_block.size", R::GroupQuery, "kiln::jit::cg_block_size", "I", "size(): threads in the block"},
      {"kiln.jit.cg.thread_block.num_threads", R::GroupQuery, "kiln::jit::cg_block_size", "I", "num_threads(): threads in the block"},
      {"kiln.jit.cg.thread_block.group_index", R::GroupQuery, "kiln::jit::cg_block_index", "3", "group_index(): the block's index in the grid (.x .y .z)"},
      {"kiln.jit.cg.thread_block.thread_index", R::GroupQuery, "kiln::jit::cg_thread_index", "3", "thread_index(): the thread's index in the block (.x .y .z)"},
      {"kiln.jit.cg.thread_block.group_dim", R::GroupQuery, "kiln::jit::cg_block_dim", "3", "group_dim(): the block's extents (.x .y .z)"},
      {"kiln.jit.cg.thread_block.dim_threads", R::GroupQuery, "kiln::jit::cg_block_dim", "3", "dim_threads(): the block's extents (.x .y .z)"},
      {"kiln.jit.cg.grid_group.thread_rank", R::GroupQuery, "kiln::jit::cg_grid_thread_rank", "Q", "thread_rank(): the thread's rank in the grid"},
      {"kiln.jit.cg.grid_group.size", R::GroupQuery, "kiln::jit::cg_grid_size", "Q", "size(): threads in the grid"},
      {"kiln.jit.cg.grid_group.num_threads", R::GroupQuery, "kiln::jit::cg_grid_size", "Q", "num_threads(): threads in the grid"},
      {"kiln.jit.cg.grid_group.is_valid", R::GroupQuery, "kiln::jit::cg_grid_is_valid", "?", "is_valid(): whether the grid can synchronise"},
      {"kiln.jit.cg.grid_group.group_dim", R::GroupQuery, "kiln::jit::cg_grid_dim", "3", "group_dim(): the grid's extents in blocks (.x .y .z)"},
      {"kiln.jit.cg.grid_group.dim_blocks", R::GroupQuery, "kiln::jit::cg_grid_dim", "3", "dim_blocks(): the grid's extents in blocks (.x .y .z)"},
      {"kiln.jit.cg.grid_group.block_rank", R::GroupQuery, "kiln::jit::cg_grid_block_rank", "I", "block_rank(): the block's rank in the grid"},
      {"kiln.jit.cg.grid_group.num_blocks", R::GroupQuery, "kiln::jit::cg_grid_num_blocks", "I", "num_blocks(): blocks in the grid"},
      {"kiln.jit.cg.grid_group.block_index", R::GroupQuery, "kiln::jit::cg_block_index", "3", "block_index(): the block's index in the grid (.x .y .z)"},
      {"kiln.jit.cg.sync", R::CgSync, "", "", "sync(group): the group's barrier"},
      {"kiln.jit.cg.memcpy_async", R::CgMemcpy, "kiln::jit::cg_memcpy_async", "",
       "memcpy_async(group, dst, dst_index, src, src_index, nbytes, aligned_size=None): the block copies nbytes "
       "from &src[src_index] to &dst[dst_index]; the data is there after wait(group)"},
      {"kiln.jit.cg.wait", R::CgWait, "__syncthreads()", "", "wait(group): every memcpy_async of the block has landed"},
      {"kiln.jit.cg.wait_prior", R::CgWait, "__syncthreads()", "", "wait_prior(group, n): all but the last n memcpy_async have landed (kiln waits for all)"},
      // ---- CUB's collectives (Note [kiln.jit.cub] in cub.h) ----
      {"kiln.jit.cub", R::Namespace, "", "", "CUB's warp and block collectives (cupyx.jit.cub)"},
      {"kiln.jit.cub.WarpReduce", R::CubClass, "cub::WarpReduce", "",
       "WarpReduce[dtype]: a reduction over the threads of a warp (CUB's cub::WarpReduce); "
       "WarpReduce[dtype](temp_storage).Sum(value) or .Reduce(value, op), the aggregate valid in lane 0"},
      {"kiln.jit.cub.BlockReduce", R::CubClass, "cub::BlockReduce", "",
       "BlockReduce[dtype, block_threads]: a reduction over the threads of a block (CUB's cub::BlockReduce); "
       "BlockReduce[dtype, n](temp_storage).Sum(value) or .Reduce(value, op), the aggregate valid in thread 0"},
      {"kiln.jit.cub.Sum", R::CubOperator, "kiln::jit::CubSum", "", "Sum(): the operator a + b, for Reduce"},
      {"kiln.jit.cub.Max", R::CubOperator, "kiln::jit::CubMax", "", "Max(): NumPy's maximum (NaN wins), for Reduce"},
      {"kiln.jit.cub.Min", R::CubOperator, "kiln::jit::CubMin", "", "Min(): NumPy's minimum (NaN wins), for Reduce"},
      {"kiln.jit.cub.WarpReduce.Sum", R::CubMethod, "Sum", "", "Sum(value): the warp's sum, valid in lane 0"},
      {"kiln.jit.cub.WarpReduce.Reduce", R::CubMethod, "Reduce", "", "Reduce(value, op): the warp's reduction by op, valid in lane 0"},
      {"kiln.jit.cub.BlockReduce.Sum", R::CubMethod, "Sum", "", "Sum(value): the block's sum, valid in thread 0"},
      {"kiln.jit.cub.BlockReduce.Reduce", R::CubMethod, "Reduce", "", "Reduce(value, op): the block's reduction by op, valid in thread 0"},
      // ---- Thrust's algorithms (Note [kiln.jit.thrust] in thrust.h) ----
      {"kiln.jit.thrust", R::Namespace, "", "", "Thrust's algorithms, run by the calling thread (cupyx.jit.thrust)"},
      {"kiln.jit.thrust.seq", R::ThrustPolicy, "", "", "the sequential policy: the algorithm runs in the calling thread"},
      {"kiln.jit.thrust.device", R::ThrustPolicy, "", "", "the device policy: in a kernel, the algorithm runs in the calling thread too"},
      {"kiln.jit.array.begin", R::ArrayIter, "begin", "", "array.begin(): an iterator at the first element (1-d arrays)"},
      {"kiln.jit.array.end", R::ArrayIter, "end", "", "array.end(): an iterator past the last element (1-d arrays)"},
      // ---- loops ----
      {"builtins.range", R::Range, "", "", "range(stop), range(start, stop[, step])"},
      {"kiln.jit.range", R::Range, "", "", "range(start, stop, step, unroll=True|n): range with #pragma unroll"},
      // ---- Python builtins ----
      {"builtins.abs", R::Abs, "kiln::jit::py_abs", "", "abs(x)"},
      {"builtins.min", R::MinMax, "kiln::jit::py_min", "", "min(a, b, ...)"},
      {"builtins.max", R::MinMax, "kiln::jit::py_max", "", "max(a, b, ...)"},
      {"builtins.round", R::Round, "", "", "round(x) -> int64 (half to even); round(x, n) -> float"},
      {"builtins.len", R::Len, "", "", "len(array): its first extent"},
      {"builtins.int", R::PyCast, "q", "", "int(x): int64, truncating"},
      {"builtins.float", R::PyCast, "d", "", "float(x): float64"},
      {"builtins.bool", R::PyCast, "?", "", "bool(x)"},
      {"builtins.complex", R::PyCast, "D", "", "complex(x) or complex(real, imag): complex128"},
      {"builtins.print", R::Print, "printf", "", "print(*values, sep=' ', end='\\n') on the device"},
  };
  // ---- the math module and kiln ufuncs on scalars ----
  struct M { const char* py; const char* cpp; R rule; };
  static const M math[] = {
      {"sqrt", "sqrt", R::Math1},   {"exp", "exp", R::Math1},     {"expm1", "expm1", R::Math1},
      {"log", "log", R::Math1},     {"log2", "log2", R::Math1},   {"log10", "log10", R::Math1},
      {"log1p", "log1p", R::Math1}, {"sin", "sin", R::Math1},     {"cos", "cos", R::Math1},
      {"tan", "tan", R::Math1},     {"asin", "asin", R::Math1},   {"acos", "acos", R::Math1},
      {"atan", "atan", R::Math1},   {"sinh", "sinh", R::Math1},   {"cosh", "cosh", R::Math1},
      {"tanh", "tanh", R::Math1},   {"asinh", "asinh", R::Math1}, {"acosh", "acosh", R::Math1},
      {"atanh", "atanh", R::Math1}, {"erf", "erf", R::Math1},     {"erfc", "erfc", R::Math1},
      {"gamma", "tgamma", R::Math1}, {"lgamma", "lgamma", R::Math1}, {"fabs", "fabs", R::Math1},
      {"cbrt", "cbrt", R::Math1},   {"exp2", "exp2", R::Math1},
      {"atan2", "atan2", R::Math2}, {"pow", "pow", R::Math2},     {"hypot", "hypot", R::Math2},
      {"fmod", "fmod", R::Math2},   {"copysign", "copysign", R::Math2},
      {"isnan", "isnan", R::MathPred}, {"isinf", "isinf", R::MathPred}, {"isfinite", "isfinite", R::MathPred},
      {"floor", "floor", R::MathToInt}, {"ceil", "ceil", R::MathToInt}, {"trunc", "trunc", R::MathToInt},
  };
  static std::deque<std::string> names;  // storage for the string_views below (never moves)
  for (const char* ns : {"threadIdx", "blockIdx", "blockDim", "gridDim"})
    for (const char* axis : {"x", "y", "z"}) {
      names.push_back(std::string("kiln.jit.") + ns + "." + axis);
      std::string_view n = names.back();
      names.push_back(std::string(ns) + "." + axis);
      t.push_back({n, R::IndexValue, names.back(), "", "a uint32 index or size"});
    }
  for (const M& m : math) {
    names.push_back(std::string("math.") + m.py);
    std::string_view n = names.back();
    names.push_back(std::string("kiln::jit::") + m.cpp);
    t.push_back({n, m.rule, names.back(), "", "the math module's function on a scalar"});
  }
  for (std::string_view a : thrust_algorithm_names()) {
    names.push_back("kiln.jit.thrust." + std::string(a));
    std::string_view n = names.back();
    names.push_back("kiln::jit::thr::" + std::string(a));
    std::string_view spelling = names.back();
    names.push_back("thrust::" + std::string(a) + "(policy, ...), run by the calling thread (Note [kiln.jit.thrust])");
    t.push_back({n, R::Thrust, spelling, "", names.back()});
  }
  for (const arraycore::UfuncDef& u : arraycore::all_ufuncs()) {
    if (u.nout != 1) continue;
    names.push_back("kiln." + u.name);
    t.push_back({names.back(), R::Ufunc, u.device_fn, "", "the kiln ufunc on scalars (NumPy's loop and result type)"});
  }
  return t;
}

}  // namespace

const std::vector<BuiltinInfo>& builtin_table() {
  static const std::vector<BuiltinInfo> table = make_table();
  return table;
}

const BuiltinInfo* find_builtin(std::string_view name) {
  static const auto index = [] {
    std::unordered_map<std::string_view, const BuiltinInfo*> m;
    for (const auto& b : builtin_table()) m.emplace(b.name, &b);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

const Type* CallSite::kwarg(std::string_view name) const {
  for (const auto& [k, t] : kwargs)
    if (k == name) return &t;
  return nullptr;
}

const Type* CallSite::param(size_t i, std::string_view name) const {
  return i < args.size() ? &args[i] : kwarg(name);
}

const Expr* CallSite::param_expr(size_t i, std::string_view name) const {
  if (i < args.size()) return &arg(i);
  for (const auto& k : call.keywords)
    if (k.name == name) return k.value.get();
  return nullptr;
}

bool dtype_allowed(std::string_view chars, DType d) {
  return chars.empty() || chars.find(arraycore::dtype_info(d).char_code) != std::string_view::npos;
}

std::string dtype_list(std::string_view chars) {
  std::string out;
  for (char c : chars) {
    auto d = arraycore::dtype_from_char(c);
    if (!d) continue;
    out += (out.empty() ? "" : ", ") + std::string(arraycore::dtype_info(*d).name);
  }
  return out;
}

UfuncCall ufunc_call(const BuiltinInfo& b, const std::vector<Type>& args, const Expr& call, const Type* dtype) {
  const arraycore::UfuncDef& u = arraycore::ufunc(b.name.substr(5));
  if (static_cast<int>(args.size()) != u.nin)
    fail(DiagKind::Type, call.span, "`kiln." + u.name + "` takes " + std::to_string(u.nin) + " argument" +
                                        (u.nin == 1 ? "" : "s") + " in a kernel, got " + std::to_string(args.size()));
  std::vector<arraycore::Operand> ops;
  for (const auto& a : args) {
    arraycore::WeakScalar w = arraycore::WeakScalar::None_;
    if (a.weak) {
      switch (dtype_kind(a.dtype)) {
        case 'b': w = arraycore::WeakScalar::Bool; break;
        case 'i': case 'u': w = arraycore::WeakScalar::Int; break;
        case 'f': w = arraycore::WeakScalar::Float; break;
        default: w = arraycore::WeakScalar::Complex; break;
      }
    }
    ops.push_back({a.dtype, w});
  }
  try {
    if (dtype && dtype->kind != TypeKind::DTypeObj)
      fail(DiagKind::Type, call.span, "`kiln." + u.name + "`: dtype= takes a dtype, got " + dtype->str());
    arraycore::LoopChoice c =
        arraycore::resolve_loop(u, ops, dtype ? std::optional<DType>(dtype->dtype) : std::nullopt);
    return UfuncCall{c.in, c.out.at(0)};
  } catch (const arraycore::UfuncTypeError& e) {
    fail(DiagKind::Type, call.span, "`kiln." + u.name + "`: " + e.message);
  }
}

Type builtin_value_type(const BuiltinInfo& b) {
  return b.rule == R::IndexValue ? Type::scalar(DType::UInt32) : Type::scalar(DType::Int32);
}

namespace {

std::string short_name(const BuiltinInfo& b) {
  std::string_view n = b.name;
  if (n.rfind("builtins.", 0) == 0) n.remove_prefix(9);
  return std::string(n);
}

[[noreturn]] void bad_call(const BuiltinInfo& b, const CallSite& s, const std::string& what) {
  fail(DiagKind::Type, s.call.span, "`" + short_name(b) + "`: " + what + " (" + std::string(b.doc) + ")");
}

void arity(const BuiltinInfo& b, const CallSite& s, size_t lo, size_t hi) {
  if (s.args.size() < lo || s.args.size() > hi) {
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    bad_call(b, s, "takes " + want + " argument" + (hi == 1 ? "" : "s") + ", got " + std::to_string(s.args.size()));
  }
}

void no_kwargs(const BuiltinInfo& b, const CallSite& s, std::initializer_list<std::string_view> allowed = {}) {
  for (const auto& [k, t] : s.kwargs) {
    bool ok = false;
    for (auto a : allowed) ok = ok || a == k;
    if (!ok) bad_call(b, s, "unexpected keyword argument `" + k + "`");
  }
}

const Type& scalar_arg(const BuiltinInfo& b, const CallSite& s, size_t i, const char* what = "a number") {
  if (!s.args[i].is_scalar())
    fail(DiagKind::Type, s.arg(i).span, "`" + short_name(b) + "` takes " + what + " here, got " + s.args[i].str());
  return s.args[i];
}

// float type for a math function's argument: ints and bools -> float64.
Type float_of(const Type& t) {
  if (t.is_float()) return t;
  return t.weak ? Type::weak_scalar(DType::Float64) : Type::scalar(DType::Float64);
}

Type real_only(const BuiltinInfo& b, const CallSite& s, size_t i) {
  const Type& t = scalar_arg(b, s, i, "a real number");
  if (t.is_complex()) fail(DiagKind::Type, s.arg(i).span, "`" + short_name(b) + "` takes real numbers, got " + t.str());
  return t;
}

void check_mask(const BuiltinInfo& b, const CallSite& s, size_t i) {
  if (!s.args[i].is_integral())
    fail(DiagKind::Type, s.arg(i).span, "`" + short_name(b) + "`: the mask must be an integer, got " + s.args[i].str());
}

void check_ndim_arg(const BuiltinInfo& b, const CallSite& s, long long* n) {
  arity(b, s, 1, 1);
  if (!s.args[0].is_integral())
    fail(DiagKind::Type, s.arg(0).span, "`" + short_name(b) + "` takes a constant 1, 2 or 3, got " + s.args[0].str());
  auto v = s.const_int(s.arg(0));
  if (!v || *v < 1 || *v > 3)
    fail(DiagKind::Value, s.arg(0).span, "`" + short_name(b) + "` takes a constant 1, 2 or 3");
  *n = *v;
}

}  // namespace

Type builtin_result(const BuiltinInfo& b, const CallSite& s) {
  switch (b.rule) {
    case R::Math1: {
      no_kwargs(b, s);
      arity(b, s, 1, 1);
      return float_of(real_only(b, s, 0));
    }
    case R::Math2: {
      no_kwargs(b, s);
      arity(b, s, 2, 2);
      return float_of(promote(real_only(b, s, 0), real_only(b, s, 1)));
    }
    case R::MathPred:
      no_kwargs(b, s);
      arity(b, s, 1, 1);
      real_only(b, s, 0);
      return Type::scalar(DType::Bool);
    case R::MathToInt:
      no_kwargs(b, s);
      arity(b, s, 1, 1);
      real_only(b, s, 0);
      return Type::scalar(DType::Int64);
    case R::Abs: {
      no_kwargs(b, s);
      arity(b, s, 1, 1);
      Type t = scalar_arg(b, s, 0);
      if (t.is_complex()) return Type::scalar(t.dtype == DType::Complex64 ? DType::Float32 : DType::Float64);
      if (t.is_bool()) return Type::scalar(DType::Int64);
      return t;
    }
    case R::MinMax: {
      no_kwargs(b, s);
      if (s.args.size() < 2) bad_call(b, s, "takes two or more numbers (iterables are not supported in kernels)");
      Type t = real_only(b, s, 0);
      for (size_t i = 1; i < s.args.size(); ++i) t = promote(t, real_only(b, s, i));
      return t;
    }
    case R::Round: {
      no_kwargs(b, s);
      arity(b, s, 1, 2);
      Type t = real_only(b, s, 0);
      if (s.args.size() == 2) {
        if (!s.args[1].is_integral()) fail(DiagKind::Type, s.arg(1).span, "`round`: ndigits must be an integer, got " + s.args[1].str());
        return t.is_integral() ? strong(t) : t;
      }
      return Type::scalar(DType::Int64);
    }
    case R::Len: {
      no_kwargs(b, s);
      arity(b, s, 1, 1);
      const Type& a = s.args[0];
      if (a.kind == TypeKind::Tuple) return Type::weak_scalar(DType::Int64);
      if (!a.is_array() || a.ndim == 0 || (a.storage == ArrayStorage::Raw && a.size < 0))
        fail(DiagKind::Type, s.arg(0).span, "`len` takes an array of one or more dimensions or a tuple, got " + a.str());
      return Type::scalar(DType::Int64);
    }
    case R::PyCast: {
      no_kwargs(b, s);
      DType to = *arraycore::dtype_from_char(b.spelling[0]);
      if (to == DType::Complex128 && s.args.size() == 2) {  // complex(real, imag)
        real_only(b, s, 0);
        real_only(b, s, 1);
        return Type::scalar(to);
      }
      arity(b, s, 1, 1);
      Type t = scalar_arg(b, s, 0);
      if (t.is_complex() && dtype_kind(to) != 'c' && to != DType::Bool)
        fail(DiagKind::Type, s.arg(0).span, "`" + short_name(b) + "` of a complex number is not defined (as in Python); take .real first");
      return Type::scalar(to);
    }
    case R::Range: {
      no_kwargs(b, s, {"unroll"});
      if (b.name == "builtins.range" && !s.kwargs.empty()) bad_call(b, s, "takes no keyword arguments; use kiln.jit.range for unroll=");
      arity(b, s, 1, 3);
      Type t;
      for (size_t i = 0; i < s.args.size(); ++i) {
        if (!s.args[i].is_integral())
          fail(DiagKind::Type, s.arg(i).span, "range() arguments must be integers, got " + s.args[i].str());
        t = t.valid() ? promote(t, s.args[i]) : s.args[i];
      }
      if (t.is_bool()) t = Type::weak_scalar(DType::Int64);
      return Type::range(strong(t).dtype);
    }
    case R::Print:
      no_kwargs(b, s, {"sep", "end"});
      for (size_t i = 0; i < s.args.size(); ++i) {
        const Expr& e = s.arg(i);
        bool text = e.kind == ExprKind::Const && e.value.kind == ConstValue::Kind::String;
        if (!text && !s.args[i].is_scalar())
          fail(DiagKind::Type, e.span, "`print` in a kernel prints numbers and string literals, got " + s.args[i].str());
      }
      return Type::void_();
    case R::Barrier:
      no_kwargs(b, s);
      arity(b, s, 0, 0);
      return Type::void_();
    case R::SyncWarp: {
      no_kwargs(b, s, {"mask"});
      arity(b, s, 0, 1);
      if (!s.args.empty() && s.kwarg("mask")) bad_call(b, s, "takes the mask once");
      if (const Type* m = s.param(0, "mask"); m && !m->is_integral())
        fail(DiagKind::Type, s.param_expr(0, "mask")->span, "`syncwarp`: the mask must be an integer, got " + m->str());
      return Type::void_();
    }
    case R::LaneId:
      no_kwargs(b, s);
      arity(b, s, 0, 0);
      return Type::scalar(DType::UInt32);
    case R::Grid: case R::GridSize: {
      no_kwargs(b, s);
      long long n;
      check_ndim_arg(b, s, &n);
      if (n == 1) return Type::scalar(DType::UInt32);
      return Type::tuple(std::vector<Type>(static_cast<size_t>(n), Type::scalar(DType::UInt32)));
    }
    case R::SharedMemory: case R::LocalMemory: {
      // (dtype, size[, alignment]), each by position or keyword, as CuPy's.
      const bool shared = b.rule == R::SharedMemory;
      if (shared) no_kwargs(b, s, {"dtype", "size", "alignment"});
      else no_kwargs(b, s, {"dtype", "size"});
      arity(b, s, 0, shared ? 3 : 2);
      const Type* dt = s.param(0, "dtype");
      const Expr* size = s.param_expr(1, "size");
      if (!dt || !size || (s.args.size() > 0 && s.kwarg("dtype")) || (s.args.size() > 1 && s.kwarg("size")) ||
          (s.args.size() > 2 && s.kwarg("alignment")))
        bad_call(b, s, "takes dtype and size once each");
      // A CUB collective's TempStorage is a shared-memory type too (Note [kiln.jit.cub]).
      const bool storage = shared && dt->kind == TypeKind::Class && cub_is_temp_storage(*dt);
      if (dt->kind != TypeKind::DTypeObj && !storage)
        fail(DiagKind::Type, s.param_expr(0, "dtype")->span, "`" + short_name(b) + "`: the dtype must be a dtype such as kiln.float32" +
             std::string(shared ? " or a jit.cub class's TempStorage" : "") + ", got " + dt->str());
      auto array = [&](long long n) {
        Type a = Type::array(dt->dtype, 1, ArrayStorage::Raw, n);
        if (storage) a.elems = {Type::object(dt->name, dt->dtype, dt->size)};
        return a;
      };
      bool none = size->kind == ExprKind::Const && size->value.kind == ConstValue::Kind::None;
      if (none && shared) return array(-1);
      auto v = s.const_int(*size);
      if (!v || *v <= 0)
        fail(DiagKind::Value, size->span, "`" + short_name(b) + "`: the size must be a positive constant integer" +
             std::string(shared ? " (or None for memory sized at launch by shared_mem=)" : ""));
      return array(*v);
    }
    case R::Atomic: case R::AtomicCas: {
      no_kwargs(b, s);
      size_t n = b.rule == R::AtomicCas ? 4 : 3;
      arity(b, s, n, n);
      const Type& a = s.args[0];
      if (!a.is_array() || !a.elems.empty())
        fail(DiagKind::Type, s.arg(0).span, "`" + short_name(b) + "`: the first argument must be an array of numbers, got " + a.str());
      if (!dtype_allowed(b.dtypes, a.dtype))
        fail(DiagKind::Type, s.arg(0).span, "`" + short_name(b) + "` is not available for " +
             std::string(arraycore::dtype_info(a.dtype).name) + " arrays; it takes " + dtype_list(b.dtypes));
      const Type& idx = s.args[1];
      bool ok = a.ndim <= 1 ? idx.is_integral() : (idx.kind == TypeKind::Tuple && static_cast<int>(idx.elems.size()) == a.ndim);
      if (idx.kind == TypeKind::Tuple)
        for (const auto& e : idx.elems) ok = ok && e.is_integral();
      if (!ok)
        fail(DiagKind::Type, s.arg(1).span, "`" + short_name(b) + "`: the index must be " +
             (a.ndim <= 1 ? std::string("an integer") : "a tuple of " + std::to_string(a.ndim) + " integers") + ", got " + idx.str());
      for (size_t i = 2; i < n; ++i) scalar_arg(b, s, i);
      return Type::scalar(a.dtype);
    }
    case R::Shuffle: {
      no_kwargs(b, s, {"width"});
      arity(b, s, 3, 4);
      check_mask(b, s, 0);
      Type v = strong(scalar_arg(b, s, 1));
      if (!dtype_allowed(b.dtypes, v.dtype))
        fail(DiagKind::Type, s.arg(1).span, "`" + short_name(b) + "` moves " + dtype_list(b.dtypes) + " values, got " + v.str());
      if (!s.args[2].is_integral())
        fail(DiagKind::Type, s.arg(2).span, "`" + short_name(b) + "`: the lane argument must be an integer, got " + s.args[2].str());
      return v;
    }
    case R::Vote: case R::Ballot:
      no_kwargs(b, s);
      arity(b, s, 2, 2);
      check_mask(b, s, 0);
      scalar_arg(b, s, 1);
      return Type::scalar(b.rule == R::Vote ? DType::Bool : DType::UInt32);
    case R::GroupCtor:
      no_kwargs(b, s);
      arity(b, s, 0, 0);
      return Type::builtin(std::string(b.spelling));
    case R::GroupSync:
      no_kwargs(b, s);
      arity(b, s, 0, 0);
      return Type::void_();
    case R::GroupQuery:
      no_kwargs(b, s);
      arity(b, s, 0, 0);
      if (b.dtypes == "3") return dim3_type();
      return Type::scalar(*arraycore::dtype_from_char(b.dtypes[0]));
    case R::CgSync: case R::CgWait: case R::CgMemcpy: {
      const bool wait_prior = b.name == "kiln.jit.cg.wait_prior";
      no_kwargs(b, s, {b.rule == R::CgMemcpy ? "aligned_size" : ""});
      size_t n = b.rule == R::CgMemcpy ? 6 : wait_prior ? 2 : 1;
      arity(b, s, n, n);
      const Type& g = s.args[0];
      bool block = g.kind == TypeKind::Builtin && g.name == "kiln.jit.cg.thread_block";
      bool grid = g.kind == TypeKind::Builtin && g.name == "kiln.jit.cg.grid_group";
      if (!block && !(grid && b.rule == R::CgSync))
        fail(DiagKind::Type, s.arg(0).span, "`" + short_name(b) + "` takes " +
             std::string(b.rule == R::CgSync ? "a group (cg.this_thread_block() or cg.this_grid())" : "the block (cg.this_thread_block())") +
             ", got " + g.str());
      if (wait_prior && !s.args[1].is_integral())
        fail(DiagKind::Type, s.arg(1).span, "`wait_prior`: the count must be an integer, got " + s.args[1].str());
      if (b.rule == R::CgMemcpy) {
        for (size_t i : {1, 3})
          if (!s.args[i].is_array() || s.args[i].ndim != 1 || !s.args[i].elems.empty())
            fail(DiagKind::Type, s.arg(i).span, "`memcpy_async` copies between 1-d arrays, got " + s.args[i].str());
        for (size_t i : {2, 4, 5})
          if (!s.args[i].is_integral())
            fail(DiagKind::Type, s.arg(i).span, "`memcpy_async`: indices and sizes are integers, got " + s.args[i].str());
      }
      return Type::void_();
    }
    case R::Ufunc: {
      no_kwargs(b, s, {"dtype"});
      for (size_t i = 0; i < s.args.size(); ++i) scalar_arg(b, s, i);
      return Type::scalar(ufunc_call(b, s.args, s.call, s.kwarg("dtype")).out);
    }
    case R::CubOperator: case R::CubMethod:
      return cub_call_result(b, s);
    case R::Thrust:
      return thrust_call_result(b, s);
    case R::ArrayIter:
      return array_iterator_result(b, s);
    case R::Namespace: case R::IndexValue: case R::IntValue: case R::CubClass: case R::ThrustPolicy:
      break;
  }
  fail(DiagKind::Type, s.call.span, "`" + short_name(b) + "` is not callable");
}

}  // namespace kiln::transpiler
