#include "arraycore/fusion.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <stdexcept>

#include "arraycore/axes.h"
#include "arraycore/copy.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/indexing.h"
#include "arraycore/transfer.h"
#include "arraycore/views.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

using Kind = FusionNode::Kind;

// Elements one thread of a reduction pass combines (Note [Fused reductions]).
constexpr int64_t kChunk = 256;

// An integer constant of dtype `to` (its bytes at `b`) as a C++ literal.
std::string int_literal(DType to, const std::byte* b) {
  const DTypeInfo& info = dtype_info(to);
  long long i = 0;
  unsigned long long u = 0;
  switch (to) {
    case DType::Int8: { int8_t v; std::memcpy(&v, b, 1); i = v; break; }
    case DType::Int16: { int16_t v; std::memcpy(&v, b, 2); i = v; break; }
    case DType::Int32: { int32_t v; std::memcpy(&v, b, 4); i = v; break; }
    case DType::Int64: std::memcpy(&i, b, 8); break;
    case DType::UInt8: { uint8_t v; std::memcpy(&v, b, 1); u = v; break; }
    case DType::UInt16: { uint16_t v; std::memcpy(&v, b, 2); u = v; break; }
    case DType::UInt32: { uint32_t v; std::memcpy(&v, b, 4); u = v; break; }
    default: std::memcpy(&u, b, 8); break;
  }
  const std::string ctype = "(" + std::string(info.c_type) + ")";
  if (info.kind == 'u') return ctype + std::to_string(u) + (u >= (1ULL << 63) ? "ULL" : "LL");
  if (i == std::numeric_limits<long long>::min()) return ctype + "(-9223372036854775807LL - 1)";
  return ctype + std::to_string(i) + "LL";
}

// Sign of a Python int constant that does not fit integer dtype `d` (0 when
// it fits or is no Python int).
int sign_outside(const ScalarValue& v, DType d) {
  const DTypeInfo& info = dtype_info(d);
  if (info.kind != 'i' && info.kind != 'u') return 0;
  if (v.kind == ScalarValue::Kind::UInt) return d == DType::UInt64 ? 0 : 1;
  if (v.kind == ScalarValue::Kind::BigInt) return v.re > 0 ? 1 : -1;
  if (v.kind != ScalarValue::Kind::Int) return 0;
  const int bits = 8 * info.itemsize;
  if (info.kind == 'u') {
    if (v.i < 0) return -1;
    return bits < 64 && static_cast<unsigned long long>(v.i) >> bits ? 1 : 0;
  }
  if (bits == 64) return 0;
  const long long hi = (1LL << (bits - 1)) - 1;
  return v.i > hi ? 1 : v.i < -hi - 1 ? -1 : 0;
}

void set_scalar_kind(FusionNode& n, const ScalarValue& v) {
  UfuncInput in;
  in.scalar = v;
  const Operand op = operand_of(in);
  n.dtype = op.dtype;
  n.weak = op.weak;
}


}  // namespace

namespace fusion_detail {

std::string cast_text(const std::string& expr, DType from, DType to) {
  return from == to ? expr : "kiln::numpy_cast<" + c_type(to) + ">(" + expr + ")";
}

const char* reduce_ufunc(const std::string& method) {
  if (method == "sum") return "add";
  if (method == "prod") return "multiply";
  if (method == "max") return "maximum";
  if (method == "min") return "minimum";
  if (method == "any") return "logical_or";
  if (method == "all") return "logical_and";
  throw std::invalid_argument("kiln.fuse: no final reduction '" + method + "'");
}

}  // namespace fusion_detail

using fusion_detail::cast_text;
using fusion_detail::kPreamble;
using fusion_detail::reduce_ufunc;

FusionTrace::FusionTrace(std::string kernel_name, std::span<const UfuncInput> args) : name_(std::move(kernel_name)) {
  for (const UfuncInput& a : args) argument(a);
}

int FusionTrace::argument(const UfuncInput& in) {
  FusionNode n;
  n.index = nargs_++;
  if (const NDArray* a = in.array) {
    n.kind = Kind::ArrayArg;
    n.dtype = a->dtype();
    n.ndim = a->ndim();
    n.leaves = {n.index};
    n.fonly = n.ndim > 1 && !a->c_contiguous() && a->f_contiguous();
    n.expr = "a" + std::to_string(n.index);
    params_.push_back({n.expr, c_type(n.dtype), 'a', n.index});
  } else {
    n.kind = Kind::ScalarArg;
    set_scalar_kind(n, in.scalar);
  }
  return add(std::move(n));
}

void FusionTrace::cannot(const std::string& what) const {
  throw TypeError("kiln.fuse: cannot fuse '" + name_ + "': " + what);
}

// Note [Reductions used inside]
// A reduction whose result is used again (x / x.sum(axis=1, keepdims=True))
// is read by later kernels as one more array argument, which the plan makes
// by running the reduction first (FusionPlan::run runs the outputs in
// stages: each once the arrays it reads exist).
int FusionTrace::operand(int id) {
  if (node(id).kind != Kind::Reduction) return id;
  if (auto it = reduced_.find(id); it != reduced_.end()) return it->second;
  FusionNode n;
  n.kind = Kind::ArrayArg;
  n.index = nargs_++;
  n.dtype = node(id).dtype;
  n.ndim = node(id).ndim;
  n.leaves = {n.index};
  n.expr = "a" + std::to_string(n.index);
  params_.push_back({n.expr, c_type(n.dtype), 'a', n.index});
  const int a = add(std::move(n));
  derived_[node(a).index] = id;
  return reduced_[id] = a;
}

int FusionTrace::add(FusionNode n) {
  nodes_.push_back(std::move(n));
  return static_cast<int>(nodes_.size()) - 1;
}

std::string FusionTrace::temp() { return "t" + std::to_string(ntemps_++); }

int FusionTrace::constant(const ScalarValue& v) {
  FusionNode n;
  n.kind = Kind::Constant;
  n.value = v;
  set_scalar_kind(n, v);
  return add(std::move(n));
}

int FusionTrace::host(const ScalarValue& seen) {
  FusionNode n;
  n.kind = Kind::Host;
  n.index = nhost_++;
  set_scalar_kind(n, seen);
  return add(std::move(n));
}

const std::string& FusionTrace::kernel_expr(int id) {
  // A NumPy scalar becomes a kernel param ("s<k>" or "h<j>") the first time the kernel reads it.
  FusionNode& n = nodes_[static_cast<size_t>(id)];
  if (n.expr.empty() && (n.kind == Kind::ScalarArg || n.kind == Kind::Host)) {
    n.expr = (n.kind == Kind::ScalarArg ? "s" : "h") + std::to_string(n.index);
    params_.push_back({n.expr, c_type(n.dtype), n.expr[0], n.index});
  }
  return n.expr;
}

std::string FusionTrace::code(int id, DType weak, DType to, std::set<std::string>& uses) {
  const FusionNode& n = nodes_[static_cast<size_t>(id)];
  if (n.kind == Kind::Constant) {
    // Note [Same values as the eager chain]
    // A constant takes the dtype NEP 50 gives it (OverflowError when a
    // Python int does not fit), then the loop's input dtype, as the eager
    // ufunc converts it; bools and integers are written as literals, other
    // constants passed as params "c<j>".
    std::array<std::byte, 16> b{};
    scalar_bytes(n.value, weak, to, b.data());
    const char kind = dtype_info(to).kind;
    if (kind == 'b') return b[0] != std::byte{0} ? "true" : "false";
    if (kind == 'i' || kind == 'u') return int_literal(to, b.data());
    std::string name = "c" + std::to_string(consts_.size());
    params_.push_back({name, c_type(to), 'c', static_cast<int>(consts_.size())});
    consts_.push_back(b);
    uses.insert(name);
    return name;
  }
  if (n.weak != WeakScalar::None_) {
    // A Python scalar argument or host value: param "w<j>" per (value, NEP 50 dtype, loop dtype).
    size_t j = 0;
    while (j < weak_params_.size() &&
           !(weak_params_[j].node == id && weak_params_[j].weak == weak && weak_params_[j].to == to))
      ++j;
    std::string name = "w" + std::to_string(j);
    if (j == weak_params_.size()) {
      weak_params_.push_back({id, weak, to});
      params_.push_back({name, c_type(to), 'w', static_cast<int>(j)});
    }
    uses.insert(name);
    return name;
  }
  const DType dtype = n.dtype;
  const std::string& e = kernel_expr(id);
  uses.insert(e);
  return cast_text(e, dtype, to);
}

FusionNode FusionTrace::strong_result(std::span<const int> inputs, DType dtype, std::string expr) const {
  FusionNode r;
  r.dtype = dtype;
  r.expr = std::move(expr);
  bool ordered = false, all_f = true;
  for (int id : inputs) {
    const FusionNode& x = nodes_[static_cast<size_t>(id)];
    r.leaves.insert(x.leaves.begin(), x.leaves.end());
    r.ndim = std::max(r.ndim, x.ndim);
    if (x.weak == WeakScalar::None_ && x.ndim > 1) {
      ordered = true;
      all_f = all_f && x.fonly;
    }
  }
  r.fonly = ordered && all_f;
  return r;
}

std::vector<int> FusionTrace::ufunc(const std::string& name, std::span<const int> inputs_given, std::optional<DType> dtype,
                                    Casting casting, std::span<const std::optional<DType>> out_dtypes) {
  const UfuncDef& uf = arraycore::ufunc(name);
  std::vector<int> ids;
  for (int id : inputs_given) ids.push_back(operand(id));
  const std::span<const int> inputs = ids;
  std::vector<Operand> ops;
  for (int id : inputs) ops.push_back({node(id).dtype, node(id).weak});
  const LoopChoice c = resolve_loop(uf, ops, dtype, casting, out_dtypes);
  if (uf.resolver == Resolver::Comparison) {
    // A Python int constant its integer dtype cannot hold compares the same
    // with every element (NumPy compares exactly): the result is one value.
    for (size_t k = 0; k < inputs.size(); ++k) {
      const FusionNode& x = node(inputs[k]);
      if (x.kind != Kind::Constant) continue;
      const int sign = sign_outside(x.value, c.weak_dtypes[k]);
      if (sign == 0) continue;
      const int diff = k == 0 ? sign : -sign;   // the sign of lhs - rhs, the other operand being in range
      const bool v = name == "less" ? diff < 0 : name == "less_equal" ? diff <= 0 : name == "greater" ? diff > 0
                   : name == "greater_equal" ? diff >= 0 : name == "not_equal";
      return {add(strong_result(inputs, DType::Bool, v ? "true" : "false"))};
    }
  }
  std::set<std::string> uses;
  std::string args;
  for (size_t k = 0; k < inputs.size(); ++k) args += (k ? ", " : "") + code(inputs[k], c.weak_dtypes[k], c.in[k], uses);
  std::vector<std::string> names;
  for (size_t k = 0; k < c.out.size(); ++k) names.push_back(temp());
  std::string text;
  if (names.size() == 1) {
    text = "const " + c_type(c.out[0]) + " " + names[0] + " = " + uf.device_fn + "(" + args + ");";
  } else {
    for (size_t k = 0; k < names.size(); ++k) text += c_type(c.out[k]) + " " + names[k] + "; ";
    text += uf.device_fn + "(" + args;
    for (const std::string& n : names) text += ", " + n;
    text += ");";
  }
  stmts_.push_back({names, std::move(uses), std::move(text)});
  std::vector<int> results;
  for (size_t k = 0; k < names.size(); ++k) results.push_back(add(strong_result(inputs, c.out[k], names[k])));
  return results;
}

int FusionTrace::where(int cond, int x, int y) {
  // The common dtype is maximum's loop, which every dtype pair has (weak scalars as NEP 50).
  cond = operand(cond);
  x = operand(x);
  y = operand(y);
  const Operand ops[] = {{node(x).dtype, node(x).weak}, {node(y).dtype, node(y).weak}};
  const LoopChoice c = resolve_loop(arraycore::ufunc("maximum"), ops, std::nullopt, Casting::SameKind, {});
  std::set<std::string> uses;
  const std::string text = code(cond, DType::Bool, DType::Bool, uses) + " ? " +
                           code(x, c.weak_dtypes[0], c.in[0], uses) + " : " + code(y, c.weak_dtypes[1], c.in[1], uses);
  const std::string name = temp();
  stmts_.push_back({{name}, std::move(uses), "const " + c_type(c.in[0]) + " " + name + " = " + text + ";"});
  const int ids[] = {cond, x, y};
  return add(strong_result(ids, c.in[0], name));
}

int FusionTrace::astype(int id, DType dtype) {
  id = operand(id);
  const std::string e = kernel_expr(id);
  const std::string name = temp();
  const std::string ct = c_type(dtype);
  stmts_.push_back({{name}, {e}, "const " + ct + " " + name + " = kiln::numpy_cast<" + ct + ">(" + e + ");"});
  FusionNode r = node(id);
  r.kind = Kind::Value;
  r.index = -1;
  r.dtype = dtype;
  r.expr = name;
  return add(std::move(r));
}

int FusionTrace::inplace(const std::string& name, int target, int other) {
  target = operand(target);
  const FusionNode a = node(target);
  const int ids[] = {target, operand(other)};
  const std::optional<DType> out[] = {a.dtype};
  return store(target, ufunc(name, ids, std::nullopt, Casting::SameKind, out)[0]);
}

// Note [Stores]
// `x += y`, `x[...] = v` and ufunc out= update their target in place, as
// eager calls do: names bound to it see the change, and it keeps its dtype,
// ndim and memory order. When the target is an array argument (or a value
// already stored into one), the plan writes the last value stored into it
// back into the argument's memory (an output of the kernel whose shape is
// the argument's: ValueError, as NumPy's, when the other operands broadcast
// to another shape), and a returned stored value is the argument itself.
// Kernels that write arguments run after those that do not, so values
// computed from an argument's old contents read them first.
//
// Note [Arguments sharing memory]
// A plan reads and writes its arguments as separate arrays, so an argument
// it writes must not share memory with another one it touches: with x and
// x.T, `x += z` reads elements that other threads write (NumPy copies an
// overlapping operand first), and a later read of z must see the new x.
// FusionPlan::run checks the pairs (by the bytes their views span) before
// it launches anything and throws FusionArgumentsShareMemory. kiln/_fusion.py
// then traces once more with one value for each array passed several times
// (f(x, x): the function sees the same value twice, as it sees the same
// object, and the duplicates are not passed to the plan), and when memory
// is still shared (x and x.T, or a view x[1:] the function made) runs the
// function unfused, one eager call after another. Plans that only read
// their arguments need no check: reads of shared memory are safe.
int FusionTrace::store(int target, int value) {
  target = operand(target);
  value = operand(value);
  const FusionNode a = node(target);
  const FusionNode v = node(value);
  const int arg = a.kind == Kind::ArrayArg && !derived_.count(a.index) ? a.index : a.stored;
  if (arg < 0 && v.ndim > a.ndim) cannot("an in-place operator broadcasts its target to more dimensions");
  std::set<std::string> uses;
  const std::string e = code(value, a.dtype, a.dtype, uses);
  const std::string name = temp();
  stmts_.push_back({{name}, std::move(uses), "const " + c_type(a.dtype) + " " + name + " = " + e + ";"});
  const int ids[] = {target, value};
  FusionNode r = strong_result(ids, a.dtype, name);
  r.ndim = a.ndim;
  r.fonly = a.fonly;
  r.stored = arg;
  const int id = add(std::move(r));
  if (arg >= 0) stores_[arg] = id;
  return id;
}

int FusionTrace::reduce(int id, const std::string& method, const std::optional<std::vector<int64_t>>& axis,
                        std::optional<DType> dtype, bool keepdims) {
  id = operand(id);
  const FusionNode v = node(id);
  FusionNode r;
  r.kind = Kind::Reduction;
  r.method = method;
  reduce_ufunc(method);
  r.source = id;
  if (axis) {
    r.axes = normalize_axes(*axis, v.ndim);
    std::sort(r.axes.begin(), r.axes.end());
  } else {
    for (int a = 0; a < v.ndim; ++a) r.axes.push_back(a);
  }
  const DTypeInfo& src = dtype_info(v.dtype);
  if (dtype) r.dtype = *dtype;
  else if (method == "any" || method == "all") r.dtype = DType::Bool;
  else if ((method == "sum" || method == "prod") && (src.kind == 'b' || src.kind == 'i' || src.kind == 'u') &&
           src.itemsize < 8)
    r.dtype = src.kind == 'u' ? DType::UInt64 : DType::Int64;
  else r.dtype = v.dtype;
  // Note [Fused reductions]: float16 sums accumulate in float32, as NumPy's do.
  r.acc = method == "sum" && (r.dtype == DType::Float16 || r.dtype == DType::BFloat16) ? DType::Float32 : r.dtype;
  r.keepdims = keepdims;
  r.ndim = keepdims ? v.ndim : v.ndim - static_cast<int>(r.axes.size());
  r.leaves = v.leaves;
  return add(std::move(r));
}

FusionPlan FusionTrace::plan(std::span<const int> results) const {
  auto s = std::shared_ptr<FusionPlan::State>(new FusionPlan::State{*this, {}, {}, {}, {}, {}, {}});
  std::map<int, int> index;
  for (int id : results) {
    const FusionNode& n = node(id);
    using R = FusionPlan::Result::Kind;
    switch (n.kind) {
      case Kind::Reduction:
        s->results.push_back({R::Output, static_cast<int>(s->outputs.size())});
        s->outputs.push_back({n.source, n.acc, id});
        break;
      case Kind::ArrayArg:
      case Kind::ScalarArg: s->results.push_back({R::Arg, n.index}); break;
      case Kind::Host: s->results.push_back({R::Host, n.index}); break;
      case Kind::Value: {
        if (n.stored >= 0 && stores_.at(n.stored) == id) {
          s->results.push_back({R::Arg, n.stored});
          break;
        }
        auto [it, fresh] = index.emplace(id, static_cast<int>(s->outputs.size()));
        if (fresh) s->outputs.push_back({id, n.dtype, -1});
        s->results.push_back({R::Output, it->second});
        break;
      }
      case Kind::Constant: throw std::invalid_argument("kiln.fuse: a constant node is not a result");
    }
  }
  for (const auto& [arg, id] : stores_) s->outputs.push_back({id, node(id).dtype, -1, arg});
  for (const auto& [arg, id] : derived_) s->outputs.push_back({node(id).source, node(id).acc, id, -1, arg});
  for (const FusionNode& n : nodes_)
    if (n.kind == Kind::ArrayArg && !derived_.count(n.index)) s->array_args.push_back(n.index);
  // Note [Arguments sharing memory]: the arguments the kernels read or write.
  std::set<int> touched;
  for (const FusionPlan::Output& o : s->outputs) {
    const std::set<int>& leaves = node(o.node).leaves;
    for (int k : leaves)
      if (!derived_.count(k)) touched.insert(k);
    if (o.arg >= 0) touched.insert(o.arg);
  }
  for (const auto& [arg, id] : stores_)
    for (int k : touched)
      if (k != arg && !(stores_.count(k) && k < arg)) s->must_not_overlap.push_back({arg, k});
  s->rows = FusionPlan::row_kernel(*s);
  return FusionPlan(std::move(s));
}

std::vector<const std::string*> FusionTrace::body(std::set<std::string>& needed, const std::set<std::string>& given) const {
  std::vector<const std::string*> r;
  for (auto st = stmts_.rbegin(); st != stmts_.rend(); ++st) {
    if (std::none_of(st->defines.begin(), st->defines.end(),
                     [&](const std::string& d) { return needed.count(d) && !given.count(d); }))
      continue;
    r.push_back(&st->text);
    needed.insert(st->uses.begin(), st->uses.end());
  }
  std::reverse(r.begin(), r.end());
  return r;
}

const FusionPlan::Kernel& FusionPlan::kernel(const std::vector<int>& outs) const {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.kernels.find(outs);
  if (it != s.kernels.end()) return it->second;
  // The statements the outputs need (walking back from the outputs), the params those read.
  const FusionTrace& t = s.trace;
  std::set<std::string> needed;
  std::vector<std::string> assigns;
  for (int j : outs) {
    const Output& o = s.outputs[static_cast<size_t>(j)];
    const FusionNode& v = t.node(o.node);
    needed.insert(v.expr);
    assigns.push_back("o" + std::to_string(j) + " = " + cast_text(v.expr, v.dtype, o.dtype) + ";");
  }
  const std::vector<const std::string*> body = t.body(needed);
  Kernel k;
  k.spec = exact_spec(t.name_, kPreamble);
  k.spec.outputs_write_only = true;
  for (const FusionTrace::Param& p : t.params_) {
    if (!needed.count(p.name)) continue;
    k.spec.params.push_back(input_param(p.name, p.ctype));
    k.sources.push_back({p.source, p.index});
  }
  for (int j : outs) {
    k.spec.params.push_back(output_param("o" + std::to_string(j), s.outputs[static_cast<size_t>(j)].dtype));
    k.sources.push_back({'o', j});
  }
  std::string op;
  for (const std::string* b : body) op += (op.empty() ? "" : "\n") + *b;
  for (const std::string& a : assigns) op += (op.empty() ? "" : "\n") + a;
  k.spec.operation = std::move(op);
  return s.kernels.emplace(outs, std::move(k)).first->second;
}

// (array kept, view the kernel writes) for output j: a reduction's values
// with the reduced axes last, C order (Note [Fused reductions]); else as an
// eager ufunc allocates its output.
std::pair<NDArray, NDArray> FusionPlan::allocate(int j, const Shape& shape) const {
  const Output& o = state_->outputs[static_cast<size_t>(j)];
  if (o.reduction < 0) {
    NDArray a = NDArray::empty(shape, o.dtype, state_->trace.node(o.node).fonly ? Order::F : Order::C);
    return {a, a};
  }
  const FusionNode& r = state_->trace.node(o.reduction);
  std::vector<int64_t> perm;
  for (int a = 0; a < static_cast<int>(shape.size()); ++a)
    if (!std::binary_search(r.axes.begin(), r.axes.end(), a)) perm.push_back(a);
  perm.insert(perm.end(), r.axes.begin(), r.axes.end());
  Shape permuted;
  for (int64_t a : perm) permuted.push_back(shape[static_cast<size_t>(a)]);
  NDArray buf = NDArray::empty(permuted, o.dtype);
  if (std::is_sorted(perm.begin(), perm.end())) return {buf, buf};
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return {buf, transpose(buf, inverse)};
}

namespace {

// Note [Fused reductions]
// The kernel writes the values to reduce (in the accumulator dtype) with the
// reduced axes last, so each output element owns one contiguous row. Each
// pass then combines, per row, the elements c, c + n, c + 2n, ... into
// element c of n = ceil(row / kChunk) partial results (neighbouring threads
// read neighbouring elements), until one is left per row; the last pass casts
// to the result dtype. Every combination is the ufunc's own loop function
// (kiln::ufn::add, multiply, maximum, minimum), so NaNs and integer wrapping
// are the ufunc's; float sums are in a different order than NumPy's pairwise
// summation, so they agree to rounding, not bit for bit.
const EwSpec& reduce_spec(const std::string& method, DType acc, DType out) {
  const std::string name = "kiln_fuse_" + method + "_" + std::string(dtype_info(acc).name);
  return generated_spec(name + "_to_" + std::string(dtype_info(out).name), [&] {
    const std::string ca = c_type(acc);
    EwSpec s = exact_spec(name, kPreamble);
    s.outputs_write_only = true;
    s.params = {raw_param("src", ca), input_param("row_len", "long long"), input_param("nchunks", "long long"),
                output_param("dst", out)};
    s.operation = "const long long fz_base = (i / nchunks) * row_len;\n" + ca +
                  " fz_acc = src[fz_base + i % nchunks];\n"
                  "for (long long fz_k = fz_base + i % nchunks + nchunks; fz_k < fz_base + row_len; "
                  "fz_k += nchunks)\n  fz_acc = " +
                  ufunc(reduce_ufunc(method)).device_fn + "(fz_acc, src[fz_k]);\ndst = " +
                  cast_text("fz_acc", acc, out) + ";";
    return s;
  });
}

NDArray reduce_rows(NDArray values, const Shape& shape, const FusionNode& r) {
  Shape kept, out_shape;
  int64_t rows = 1, row_len = 1;
  for (int a = 0; a < static_cast<int>(shape.size()); ++a) {
    const int64_t n = shape[static_cast<size_t>(a)];
    if (std::binary_search(r.axes.begin(), r.axes.end(), a)) {
      row_len *= n;
      if (r.keepdims) out_shape.push_back(1);
    } else {
      rows *= n;
      out_shape.push_back(n);
    }
  }
  if (row_len == 0) {
    if (r.method == "max" || r.method == "min")
      throw std::invalid_argument(std::string("zero-size array to reduction operation ") + reduce_ufunc(r.method) +
                                  " which has no identity");
    NDArray z = NDArray::zeros(out_shape, r.dtype);
    if (r.method == "prod" || r.method == "all") {
      NDArray one = NDArray::empty({}, r.dtype);
      const long long v = 1;
      unsigned char bytes[16] = {};
      cast_scalar(&v, DType::Int64, bytes, r.dtype);
      copy_from_host(one, bytes, runtime::current_stream());
      assign(z, one);
    }
    return z;
  }
  if (rows == 0) return NDArray::empty(out_shape, r.dtype);
  while (true) {
    const int64_t nchunks = (row_len + kChunk - 1) / kChunk;
    const DType to = nchunks == 1 ? r.dtype : r.acc;
    NDArray dst = NDArray::empty({rows * nchunks}, to);
    const EwArg args[] = {EwArg::of(values), EwArg::value<long long>(row_len), EwArg::value<long long>(nchunks),
                          EwArg::of(dst)};
    elementwise_launch(reduce_spec(r.method, r.acc, to), args, {rows * nchunks});
    if (nchunks == 1) return dst.reshape(out_shape);
    values = dst;
    row_len = nchunks;
  }
}

}  // namespace

std::vector<NDArray> FusionPlan::run(std::span<const UfuncInput> args, std::span<const ScalarValue> host) const {
  const State& s = *state_;
  const FusionTrace& t = s.trace;
  for (int k : s.array_args)
    if (static_cast<size_t>(k) >= args.size() || !args[static_cast<size_t>(k)].array)
      throw std::invalid_argument(t.name_ + ": the arguments are not of the traced kinds");
  for (const auto& [written, other] : s.must_not_overlap)
    if (shares_bytes(*args[static_cast<size_t>(written)].array, *args[static_cast<size_t>(other)].array))
      throw FusionArgumentsShareMemory(t.name_ + ": argument " + std::to_string(written) +
                                       ", which the function writes, shares memory with argument " +
                                       std::to_string(other));
  // Python scalars as the dtype NEP 50 gave them, then the loop's (ScalarOverflow when they do not fit).
  std::vector<EwArg> weak(t.weak_params_.size());
  for (size_t j = 0; j < weak.size(); ++j) {
    const FusionTrace::WeakParam& w = t.weak_params_[j];
    const FusionNode& n = t.node(w.node);
    const ScalarValue& v = n.kind == Kind::ScalarArg ? args[static_cast<size_t>(n.index)].scalar
                                                     : host[static_cast<size_t>(n.index)];
    scalar_bytes(v, w.weak, w.to, weak[j].scalar.data());
  }
  if (s.rows) {   // Note [Row-fused plans]
    std::vector<NDArray> r;
    if (run_rows(args, host, weak, r)) return r;
  }
  // The arguments, then the reductions' results read as arguments (Note [Reductions used inside]).
  std::vector<UfuncInput> in(args.begin(), args.end());
  in.resize(std::max(in.size(), static_cast<size_t>(t.nargs_)));
  std::deque<NDArray> reduced;
  const size_t nout = s.outputs.size();
  std::vector<std::optional<NDArray>> outs(nout), results(nout);
  std::vector<char> done(nout, 0);
  bool same = t.derived_.empty();   // every array argument has one shape: no broadcasting to work out
  for (int k : s.array_args)
    same = same && in[static_cast<size_t>(k)].array->shape() == in[static_cast<size_t>(s.array_args[0])].array->shape();
  for (size_t left = nout; left > 0;) {
    // This stage: the outputs whose arrays exist (stores last, Note [Stores]), and each one's shape: the
    // broadcast shape of the arrays it is computed from.
    bool others = false;
    for (size_t j = 0; j < nout; ++j) others = others || (!done[j] && s.outputs[j].arg < 0);
    std::vector<std::pair<Shape, std::vector<int>>> groups;
    for (size_t j = 0; j < nout; ++j) {
      const std::set<int>& leaves = t.node(s.outputs[j].node).leaves;
      if (done[j] || (others && s.outputs[j].arg >= 0) ||
          std::any_of(leaves.begin(), leaves.end(), [&](int k) { return !in[static_cast<size_t>(k)].array; }))
        continue;
      Shape shape;
      if (same && !leaves.empty()) {
        shape = in[static_cast<size_t>(s.array_args[0])].array->shape();
      } else if (!leaves.empty()) {
        std::vector<Shape> shapes;
        for (int k : leaves) shapes.push_back(in[static_cast<size_t>(k)].array->shape());
        shape = broadcast_shapes(shapes);
      }
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == shape; });
      if (g == groups.end()) groups.push_back({shape, {static_cast<int>(j)}});
      else g->second.push_back(static_cast<int>(j));
    }
    if (groups.empty()) throw std::logic_error(t.name_ + ": no output of the plan can be computed");
    // Note [Stores]: kernels writing arguments last.
    std::stable_partition(groups.begin(), groups.end(), [&](const auto& g) {
      return std::none_of(g.second.begin(), g.second.end(), [&](int j) { return s.outputs[static_cast<size_t>(j)].arg >= 0; });
    });
    for (const auto& [shape, js] : groups) {
      const Kernel& k = kernel(js);
      std::vector<NDArray> views;
      views.reserve(k.sources.size());
      std::vector<EwArg> call;
      call.reserve(k.sources.size());
      for (const auto& [source, i] : k.sources) {
        const size_t u = static_cast<size_t>(i);
        switch (source) {
          case 'a': {
            const NDArray& a = *in[u].array;
            if (a.shape() == shape) {
              call.push_back(EwArg::of(a));
            } else {
              views.push_back(broadcast_to(a, shape));
              call.push_back(EwArg::of(views.back()));
            }
            break;
          }
          case 's': call.push_back(scalar_arg_bytes(args[u].scalar.bytes, args[u].scalar.dtype)); break;
          case 'h': call.push_back(scalar_arg_bytes(host[u].bytes, host[u].dtype)); break;
          case 'w': call.push_back(weak[u]); break;
          case 'c': {
            EwArg c;
            c.scalar = t.consts_[u];
            call.push_back(c);
            break;
          }
          default: {
            if (const int arg = s.outputs[u].arg; arg >= 0) {
              const NDArray& a = *in[static_cast<size_t>(arg)].array;
              if (a.shape() != shape)
                throw std::invalid_argument("non-broadcastable output operand with shape " + shape_text(a.shape()) +
                                            " doesn't match the broadcast shape " + shape_text(shape));
              outs[u] = a;
              call.push_back(EwArg::of(a));
              break;
            }
            auto [kept, view] = allocate(i, shape);
            outs[u] = std::move(kept);
            views.push_back(std::move(view));
            call.push_back(EwArg::of(views.back()));
          }
        }
      }
      if (shape_size(shape) != 0) elementwise_launch(k.spec, call, shape);
      for (int j : js) {
        const size_t u = static_cast<size_t>(j);
        const Output& o = s.outputs[u];
        results[u] = o.reduction < 0 ? *outs[u] : reduce_rows(*outs[u], shape, t.node(o.reduction));
        if (o.feeds >= 0) {
          reduced.push_back(*results[u]);
          in[static_cast<size_t>(o.feeds)].array = &reduced.back();
        }
        done[u] = 1;
        --left;
      }
    }
  }
  std::vector<NDArray> r;
  r.reserve(nout);
  for (auto& a : results) r.push_back(std::move(*a));
  return r;
}

}  // namespace kiln::arraycore
