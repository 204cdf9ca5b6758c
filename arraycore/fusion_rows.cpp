// kiln.fuse's one-kernel plans for functions whose reductions all reduce the
// same axes (Note [Row-fused plans]): softmax, normalisation by a row's sum,
// a row's mean-centred values and their reductions.
#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include "arraycore/fusion.h"
#include "arraycore/generated_kernel.h"
#include "arraycore/indexing.h"
#include "arraycore/strided_plan.h"
#include "kiln/strided_index.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {

// Note [Row-fused plans]
// When every reduction a fused function makes reduces the same axes of
// values of one rank D, and every reduction result it uses again keeps its
// dims (x - x.max(axis=1, keepdims=True)) or reduces everything, the whole
// function is one kernel: a block per row (one position of the kept axes),
// which for each reduction in trace order loops over the row's elements,
// computing the reduced value from the arguments and the earlier reductions'
// results, and combines it (each thread its elements t, t + B, ..., then
// kiln::block_reduce in thread order); thread 0 writes the row's result to
// shared memory (and to the output when it is returned), and after a barrier
// every thread reads it as the derived argument. A last loop over the row
// computes and stores the elementwise outputs. The first loop that reads an
// argument keeps the row's elements in shared memory when the rows of all
// inputs fit in 40 KiB, and later loops read them there (each thread reads
// back only the elements it stored: no barrier), so a (16384, 4096) float32
// softmax reads x from memory once and writes once, where the staged plan
// (Note [Reductions used inside] in fusion.cpp) writes each reduced value to
// memory and runs the reduction passes after it. Longer rows are read again
// from memory (mostly from L2) by each loop. The accumulators and the words
// warp shuffles move are fully defined bytes: an undefined byte let NVRTC
// fold a whole word (a lane's "empty" flag read as set, its garbage value
// combined), on the GPU only.
// The accumulators start empty (combine(empty, x) = x), so maximum and
// minimum need no identity and complex values combine as the ufunc does;
// sums of float16 accumulate in float32 (Note [Fused reductions]). Float
// sums are in another order than NumPy's pairwise one: they agree to
// rounding. Calls whose shapes suit the staged kernels better run those:
// an empty row or no rows (NumPy's errors for empty maximum), a row of more
// than 1024 elements contiguous in no input (a block would read it with a
// stride), and
// few long rows (m < 32 and n > 16384, which the staged passes spread over
// the device). Stores into arguments (x += ..., Note [Stores]) also keep the
// staged plan.
// Note [Row modes]
// A row kernel's text comes in three modes, chosen per call from the
// operands' layouts (run_rows) and compiled the first time a call needs one:
// - strided: any layout; each element's offsets come from the reduced
//   dimensions' strides (kiln::reduced_offsets);
// - contiguous: the reduced dimensions collapse to one, contiguous in every
//   input and elementwise output: element _j of a row is at [_j];
// - vector: contiguous, every such operand of one itemsize s < 16 that
//   divides 16, rows starting on 16-byte boundaries and n a multiple of
//   E = 16 / s: each thread loads and stores 16-byte chunks (one LDG.128 /
//   STG.128 an operand, staged rows copied the same way) and computes the
//   chunk's E elements from registers.
// On the H200 a (16384, 4096) float32 softmax written by hand measured
// 1,161 GB/s in the strided shape, 3,139 GB/s contiguous with scalar loads
// and 3,994 GB/s with 16-byte chunks (a 16-byte copy: 3,891), 256 threads
// a row; 512 and 1024 threads were slower (probe of 2026-11-29).
//
// Note [Cached row values]
// A staged variant also keeps, next to the staged inputs, each reduction's
// per-element value that a later loop of the kernel would compute again:
// softmax's exp(x - max) is summed by the second loop and divided by the
// sum in the third, which reads it back instead of calling exp again (on
// the H200 the two exps and the division, compiled without FMA contraction
// for NumPy's roundings, bound the kernel more than its memory traffic).
// Each thread reads back only the slots it wrote, so no barrier is added;
// in the vector mode element u of chunk c has slot u * (n / E) + c, so a
// warp's stores fall in consecutive words. The variant stages only when
// inputs and cached values all fit in the 40 KiB; otherwise every loop
// reads its inputs from memory and computes its values.
constexpr int kRowStrided = 0, kRowContiguous = 1, kRowVector = 2, kRowModes = 3;

struct FusionPlan::RowKernel {
  std::vector<int> axes;        // the reduced axes, sorted, of rank `ndim`
  int ndim = 0;
  std::vector<int> inputs;      // array arguments read: pointer operands 0, 1, ...
  std::vector<int64_t> staged_sizes;  // element sizes of the staged buffers: the inputs', then cached values' (Note [Cached row values])
  std::vector<int> outputs;     // output slots written: the pointer operands after the inputs
  std::vector<std::pair<char, int>> scalars;   // scalar params (FusionTrace::Param source, index), in order
  int vector_width = 1;          // E of the vector mode: 16 / the first input's itemsize
  std::string name, sources[2 * kRowModes];   // by mode and staging: [2 * mode + staged] (Note [Row modes])
  std::mutex mutex;
  std::map<std::pair<int, int>, std::pair<std::shared_ptr<runtime::LoadedModule>, runtime::FunctionHandle>> loaded;   // by device, variant
};

namespace {

using Kind = FusionNode::Kind;
using fusion_detail::cast_text;
using fusion_detail::reduce_ufunc;

constexpr int kMaxOperands = 8;
constexpr uint32_t kRowBlock = 256;
// The staged rows' dynamic shared memory: the 48 KiB a launch gets without
// opting in, less room for the static buffers (the row results, one
// block_reduce buffer of 32 accumulators per reduction).
constexpr int64_t kStagedBytes = 40 * 1024;

template <int N>
void fill(kiln::Layout<N>& l, const StridedPlan& p) {
  l.ndim = static_cast<int>(p.shape.size());
  for (size_t d = 0; d < p.shape.size(); ++d) {
    l.shape[d] = p.shape[d];
    for (int k = 0; k < N; ++k) l.strides[k][d] = p.strides[static_cast<size_t>(k)][d];
  }
}

template <int N>
void launch_rows(runtime::FunctionHandle fn, std::vector<void*> pointers, std::span<const EwArg> scalars,
                 const StridedPlan& kept, const StridedPlan& reduced, long long m, long long n, uint32_t shared_bytes) {
  kiln::Layout<N> K{}, R{};
  fill(K, kept);
  fill(R, reduced);
  std::vector<void*> kargs;
  for (void*& p : pointers) kargs.push_back(&p);
  for (const EwArg& s : scalars) kargs.push_back(const_cast<std::byte*>(s.scalar.data()));
  for (void* p : {static_cast<void*>(&K), static_cast<void*>(&R), static_cast<void*>(&m), static_cast<void*>(&n)})
    kargs.push_back(p);
  const uint32_t block = n >= kRowBlock ? kRowBlock : static_cast<uint32_t>(std::max<long long>(32, (n + 31) / 32 * 32));
  const uint32_t grid = static_cast<uint32_t>(std::min<long long>(m, (1LL << 31) - 1));
  runtime::backend().launch(fn, {grid, 1, 1}, {block, 1, 1}, shared_bytes, runtime::current_stream(), kargs.data());
}

}  // namespace

std::shared_ptr<FusionPlan::RowKernel> FusionPlan::row_kernel(const State& s) {
  const FusionTrace& t = s.trace;
  std::vector<int> reductions;   // Reduction nodes, in trace order
  for (const Output& o : s.outputs) {
    if (o.arg >= 0) return nullptr;
    if (o.reduction >= 0 && std::find(reductions.begin(), reductions.end(), o.reduction) == reductions.end())
      reductions.push_back(o.reduction);
  }
  if (reductions.empty()) return nullptr;
  std::sort(reductions.begin(), reductions.end());
  auto k = std::make_shared<RowKernel>();
  const FusionNode& first = t.node(reductions[0]);
  k->axes = first.axes;
  k->ndim = t.node(first.source).ndim;
  if (k->ndim == 0 || k->axes.empty()) return nullptr;
  for (int r : reductions) {
    const FusionNode& n = t.node(r);
    if (n.axes != k->axes || t.node(n.source).ndim != k->ndim) return nullptr;
  }
  for (const auto& [arg, r] : t.derived_) {
    const FusionNode& n = t.node(r);
    if (!n.keepdims && n.axes.size() != static_cast<size_t>(k->ndim)) return nullptr;
  }
  for (const Output& o : s.outputs)
    if (o.reduction < 0 && t.node(o.node).ndim != k->ndim) return nullptr;

  // The kernel text: per reduction a loop and a block reduction, then the elementwise outputs' loop; one text per
  // row mode (Note [Row modes]), each compiled when a call first needs it.
  std::map<std::string, const FusionTrace::Param*> params;
  for (const FusionTrace::Param& p : t.params_) params[p.name] = &p;
  k->name = t.name_ + "_rows";
  const std::string nm = k->name;
  std::string ops;
  for (size_t q = 0; q < reductions.size(); ++q) {
    const FusionNode& r = t.node(reductions[q]);
    const std::string Q = std::to_string(q), acc = c_type(r.acc);
    ops += "struct " + nm + "_op" + Q + " {\n  struct T { " + acc + " v; bool ok; };\n"
           "  static KILN_DEVICE T identity() {\n    T e;\n    unsigned char* b = reinterpret_cast<unsigned char*>(&e);\n"
           "    for (unsigned k = 0; k < sizeof(T); ++k) b[k] = 0;\n    return e;\n  }\n"
           "  static KILN_DEVICE T combine(const T& a, const T& b) {\n    if (!a.ok) return b;\n    if (!b.ok) return a;\n"
           "    T c;\n    c.v = " + arraycore::ufunc(reduce_ufunc(r.method)).device_fn + "(a.v, b.v);\n    c.ok = true;\n"
           "    return c;\n  }\n};\n";
  }
  // Note [Cached row values]: a reduction's per-element value that a later loop computes again (softmax's
  // exp(x - max), summed, then divided) is kept in shared memory next to the staged inputs.
  std::set<std::string> later_needed;
  std::vector<bool> cache(reductions.size(), false);
  for (size_t q = reductions.size(); q-- > 0;) {
    const FusionNode& src = t.node(t.node(reductions[q]).source);
    if (q + 1 == reductions.size())
      for (const Output& o : s.outputs)
        if (o.reduction < 0) later_needed.insert(t.node(o.node).expr);
    std::set<std::string> walk = later_needed;
    t.body(walk);
    // A value of a statement with one result only (a second result computed later would define it again).
    const bool single = std::any_of(t.stmts_.begin(), t.stmts_.end(), [&](const auto& st) {
      return st.defines.size() == 1 && st.defines[0] == src.expr;
    });
    cache[q] = walk.count(src.expr) && single;
    later_needed.insert(src.expr);
  }
  for (int variant = 0; variant < 2 * kRowModes; ++variant) {
    const int mode = variant / 2;
    const bool stage = variant % 2;
    k->inputs.clear();
    k->outputs.clear();
    k->scalars.clear();
    k->staged_sizes.clear();
    std::set<std::string> scalars_used;
    std::set<int> computed;          // reductions whose results the rows already hold
    // The staged buffers (element type, name) in the order they are met: inputs' _st<q>, cached values' _sc<q>.
    std::vector<std::pair<std::string, std::string>> buffers;
    std::map<std::string, size_t> cached;   // reduction values kept in shared memory: their buffers
    // Element _j's slot in a cached value's buffer: in the vector mode chunk-major per element of the chunk,
    // so that consecutive threads touch consecutive words.
    const std::string slot_j = mode == kRowVector ? "_u * (_n / _E) + _c" : "_j";
    std::string body;
    // The element loop computing `needed` (loads of the array arguments it reads, then the statements), then
    // `tail` per element; in the vector mode `pre` and `post` open and close each thread's chunk of elements.
    auto loop = [&](std::set<std::string> needed, const std::string& tail, const std::string& pre, const std::string& post) {
      std::set<std::string> given;
      for (const auto& [name, buffer] : cached) given.insert(name);
      const std::vector<const std::string*> stmts = t.body(needed, given);
      std::string chunk, loads;
      for (const std::string& name : needed) {
        if (auto c = cached.find(name); c != cached.end()) {
          const auto& [type, buffer] = buffers[c->second];
          loads += std::string(mode == kRowVector ? "  " : "") + "      const " + type + " " + name + " = " + buffer + "[" +
                   slot_j + "];\n";
          continue;
        }
        auto it = params.find(name);
        if (it == params.end()) continue;
        const FusionTrace::Param& p = *it->second;
        if (p.source != 'a') {
          scalars_used.insert(name);
          continue;
        }
        if (auto d = t.derived_.find(p.index); d != t.derived_.end()) {
          if (!computed.count(d->second)) throw std::logic_error(nm + ": a reduction read before it is made");
          continue;
        }
        // The first loop reading an argument loads it from memory and, when the row is staged, keeps it in
        // shared memory, where later loops read it (each thread its own elements: no barrier needed).
        auto in = std::find(k->inputs.begin(), k->inputs.end(), p.index);
        const bool first_read = in == k->inputs.end();
        const std::string op = std::to_string(in - k->inputs.begin());
        const DType d = t.node(p.index).dtype;
        const std::string st = storage_ctype(d), v = "_v" + op;
        if (first_read) {
          k->inputs.push_back(p.index);
          buffers.push_back({st, "_st" + op});
          k->staged_sizes.push_back(static_cast<int64_t>(itemsize(d)));
        }
        if (mode == kRowVector) {
          const std::string global = "((const kiln::Vec16*)(_p" + op + " + _ko[" + op + "]))[_c]",
                            staged = "((kiln::Vec16*)_st" + op + ")[_c]";
          chunk += !stage ? "      const kiln::Vec16 _w" + op + " = " + global + ";\n"
                   : first_read ? "      const kiln::Vec16 _w" + op + " = " + global + ";\n      " + staged + " = _w" + op + ";\n"
                                : "      const kiln::Vec16 _w" + op + " = " + staged + ";\n";
          loads += "        const " + st + " " + v + " = kiln::vec_element<" + st + ">(_w" + op + ", _u);\n";
        } else {
          const std::string global = mode == kRowStrided ? "*(const " + st + "*)(_p" + op + " + _ko[" + op + "] + _ro[" + op + "])"
                                                         : "((const " + st + "*)(_p" + op + " + _ko[" + op + "]))[_j]";
          loads += !stage ? "      const " + st + " " + v + " = " + global + ";\n"
                   : first_read ? "      const " + st + " " + v + " = " + global + ";\n      _st" + op + "[_j] = " + v + ";\n"
                                : "      const " + st + " " + v + " = _st" + op + "[_j];\n";
        }
        loads += std::string(mode == kRowVector ? "  " : "") + "      const " + p.ctype + " " + name + " = " + load_text(p.ctype, d, v) + ";\n";
      }
      if (mode != kRowVector) {
        std::string text = "    #pragma unroll 4\n    for (long long _j = threadIdx.x; _j < _n; _j += blockDim.x) {\n";
        if (mode == kRowStrided) text += "      long long _ro[NP];\n      kiln::reduced_offsets(_R, _j, _ro);\n";
        text += loads;
        for (const std::string* st : stmts) text += "      " + *st + "\n";
        return text + tail + "    }\n";
      }
      // Each thread takes 16-byte chunks _c, t, t + B, ...: one vector load (and store) per operand, then the chunk's
      // elements one by one.
      std::string text = "    #pragma unroll 4\n    for (long long _c = threadIdx.x; _c < _n / _E; _c += blockDim.x) {\n" + chunk + pre +
                         "      #pragma unroll\n      for (int _u = 0; _u < _E; ++_u) {\n" + loads;
      for (const std::string* st : stmts) text += "        " + *st + "\n";
      std::string inner;
      for (size_t at = 0, nl; at < tail.size(); at = nl + 1) {   // the tail's lines, indented one more level
        nl = tail.find('\n', at);
        inner += "  " + tail.substr(at, nl - at + 1);
      }
      return text + inner + "      }\n" + post + "    }\n";
    };
    // Where element `_j` (chunk `_c`, element `_u` in the vector mode) of output slot @j@ is stored.
    auto store = [&](size_t j, const std::string& st, const std::string& value) {
      const std::string J = "@" + std::to_string(j) + "@";
      if (mode == kRowStrided) return "      *(" + st + "*)(_p" + J + " + _ko[" + J + "] + _ro[" + J + "]) = " + value + ";\n";
      if (mode == kRowContiguous) return "      ((" + st + "*)(_p" + J + " + _ko[" + J + "]))[_j] = " + value + ";\n";
      return "      kiln::vec_set<" + st + ">(_o" + J + ", _u, " + value + ");\n";
    };
    int shared_bytes = 0;
    for (size_t q = 0; q < reductions.size(); ++q) {
      const FusionNode& r = t.node(reductions[q]);
      const FusionNode& src = t.node(r.source);
      const std::string Q = std::to_string(q), out = c_type(r.dtype);
      std::string keep;
      if (stage && cache[q]) {   // kept after this loop, read by the later ones
        keep = "      _sc" + Q + "[" + slot_j + "] = " + src.expr + ";\n";
        buffers.push_back({c_type(src.dtype), "_sc" + Q});
        k->staged_sizes.push_back(static_cast<int64_t>(itemsize(src.dtype)));
      }
      body += "    " + nm + "_op" + Q + "::T _acc" + Q + " = " + nm + "_op" + Q + "::identity();\n";
      body += loop({src.expr},
                   "      " + nm + "_op" + Q + "::T _e;\n      _e.v = " + cast_text(src.expr, src.dtype, r.acc) +
                       ";\n      _e.ok = true;\n      _acc" + Q + " = " + nm + "_op" + Q + "::combine(_acc" + Q + ", _e);\n" + keep,
                   "", "");
      if (!keep.empty()) cached[src.expr] = buffers.size() - 1;
      const std::string slot = "(*reinterpret_cast<" + out + "*>(_shared + " + std::to_string(shared_bytes) + "))";
      shared_bytes += 16;
      body += "    _acc" + Q + " = kiln::block_reduce<" + nm + "_op" + Q + ">(_acc" + Q + ");\n    if (threadIdx.x == 0) {\n" +
              "      " + slot + " = " + cast_text("_acc" + Q + ".v", r.acc, r.dtype) + ";\n";
      for (size_t j = 0; j < s.outputs.size(); ++j)
        if (s.outputs[j].reduction == reductions[q] && s.outputs[j].feeds < 0)
          body += "      *(" + storage_ctype(r.dtype) + "*)(_p@" + std::to_string(j) + "@ + _ko[@" + std::to_string(j) +
                  "@]) = " + store_text(out, r.dtype, slot) + ";\n";
      body += "    }\n    __syncthreads();\n";
      if (auto d = t.reduced_.find(reductions[q]); d != t.reduced_.end())   // read again: the derived argument
        body += "    const " + out + " " + t.node(d->second).expr + " = " + slot + ";\n";
      computed.insert(reductions[q]);
    }
    std::set<std::string> needed;
    std::string stores, pre, post;
    for (size_t j = 0; j < s.outputs.size(); ++j) {
      const Output& o = s.outputs[j];
      if (o.reduction >= 0) continue;
      const FusionNode& v = t.node(o.node);
      needed.insert(v.expr);
      const std::string st = storage_ctype(o.dtype), J = "@" + std::to_string(j) + "@";
      stores += store(j, st, store_text(c_type(o.dtype), o.dtype, cast_text(v.expr, v.dtype, o.dtype)));
      pre += "      kiln::Vec16 _o" + J + ";\n";
      post += "      ((kiln::Vec16*)(_p" + J + " + _ko[" + J + "]))[_c] = _o" + J + ";\n";
    }
    if (!needed.empty()) body += loop(needed, stores, pre, post);
    // Output operands: returned reductions and elementwise outputs.
    for (size_t j = 0; j < s.outputs.size(); ++j)
      if (s.outputs[j].feeds < 0) k->outputs.push_back(static_cast<int>(j));
    const size_t np = k->inputs.size() + k->outputs.size();
    if (np > static_cast<size_t>(kMaxOperands) || k->inputs.empty() || k->outputs.empty()) return nullptr;
    for (size_t q = 0; q < k->outputs.size(); ++q) {
      const std::string tag = "@" + std::to_string(k->outputs[q]) + "@", op = std::to_string(k->inputs.size() + q);
      for (size_t at; (at = body.find(tag)) != std::string::npos;) body.replace(at, tag.size(), op);
    }
    std::string sig;
    for (size_t q = 0; q < k->inputs.size(); ++q) sig += "const char* __restrict__ _p" + std::to_string(q) + ", ";
    for (size_t q = 0; q < k->outputs.size(); ++q) sig += "char* __restrict__ _p" + std::to_string(k->inputs.size() + q) + ", ";
    for (const FusionTrace::Param& p : t.params_)
      if (scalars_used.count(p.name)) {
        sig += "const " + p.ctype + " " + p.name + ", ";
        k->scalars.push_back({p.source, p.index});
      }
    const std::string NP = std::to_string(np);
    for (size_t at; (at = body.find("[NP]")) != std::string::npos;) body.replace(at, 4, "[" + NP + "]");
    // The staged buffers: one region of _n elements each, 16-byte aligned, in the order they were met
    // (run_rows computes the same size on the host).
    std::string staged;
    if (stage) {
      staged = "  extern __shared__ __align__(16) unsigned char _dyn[];\n  long long _so = 0;\n";
      for (const auto& [st, name] : buffers)
        staged += "  " + st + "* const " + name + " = reinterpret_cast<" + st + "*>(_dyn + _so);\n  _so = (_so + _n * (long long)sizeof(" +
                  st + ") + 15) / 16 * 16;\n";
    }
    if (mode == kRowVector) {   // the elements of a 16-byte chunk: every operand has the inputs' first itemsize
      k->vector_width = static_cast<int>(16 / itemsize(t.node(k->inputs[0]).dtype));
      staged += "  constexpr int _E = " + std::to_string(k->vector_width) + ";\n";
    }
    k->sources[variant] = std::string(fusion_detail::kPreamble) + "#include <kiln/elementwise.h>\n#include <kiln/reduction.h>\n" + ops +
                          "extern \"C\" __global__ void " + nm + "(" + sig + "const kiln::Layout<" + NP + "> _K, const kiln::Layout<" + NP +
                          "> _R, const long long _m, const long long _n) {\n  __shared__ __align__(16) unsigned char _shared[" +
                          std::to_string(shared_bytes) + "];\n" + staged +
                          "  for (long long _row = blockIdx.x; _row < _m; _row += gridDim.x) {\n"
                          "    long long _ko[" + NP + "];\n    _K.offsets(_row, _ko);\n" + body + "    __syncthreads();\n  }\n}\n";
  }
  return k;
}

bool FusionPlan::run_rows(std::span<const UfuncInput> in, std::span<const ScalarValue> host, std::span<const EwArg> weak,
                          std::vector<NDArray>& results) const {
  const State& s = *state_;
  RowKernel& k = *s.rows;
  const FusionTrace& t = s.trace;
  std::vector<Shape> shapes;
  for (int a : s.array_args) shapes.push_back(in[static_cast<size_t>(a)].array->shape());
  const Shape shape = broadcast_shapes(shapes);
  if (static_cast<int>(shape.size()) != k.ndim) return false;
  Shape kept_shape, red_shape;
  std::vector<bool> reduced(shape.size(), false);
  for (int a : k.axes) reduced[static_cast<size_t>(a)] = true;
  for (size_t d = 0; d < shape.size(); ++d) (reduced[d] ? red_shape : kept_shape).push_back(shape[d]);
  const long long m = shape_size(kept_shape), n = shape_size(red_shape);
  if (m == 0 || n == 0 || (m < 32 && n > 16384)) return false;
  // Every value the kernel computes has the full shape (its arguments broadcast to it, not beyond).
  for (const Output& o : s.outputs) {
    const int node = o.reduction >= 0 ? t.node(o.reduction).source : o.node;
    std::vector<Shape> leaf_shapes;
    for (int a : t.node(node).leaves)
      if (!t.derived_.count(a)) leaf_shapes.push_back(in[static_cast<size_t>(a)].array->shape());
    if (leaf_shapes.empty() || broadcast_shapes(leaf_shapes) != shape) return false;
  }
  // Pointer operands: the inputs broadcast to the shape, then the outputs.
  std::vector<NDArray> operands;
  for (int a : k.inputs) {
    const NDArray& x = *in[static_cast<size_t>(a)].array;
    operands.push_back(x.shape() == shape ? x : broadcast_to(x, shape));
  }
  bool row_contiguous = n <= 1024;
  for (const NDArray& x : operands) {
    int64_t inner = 0;
    for (size_t d = shape.size(); d-- > 0;)
      if (reduced[d] && shape[d] > 1) {
        inner = x.strides()[d];
        break;
      }
    row_contiguous = row_contiguous || inner == static_cast<int64_t>(x.itemsize());
  }
  if (!row_contiguous) return false;
  std::vector<NDArray> made;   // per k.outputs entry
  std::vector<Strides> kept_strides, red_strides;
  for (int j : k.outputs) {
    const Output& o = s.outputs[static_cast<size_t>(j)];
    if (o.reduction < 0) {
      made.push_back(NDArray::empty(shape, o.dtype, t.node(o.node).fonly ? Order::F : Order::C));
      operands.push_back(made.back());
      continue;
    }
    const FusionNode& r = t.node(o.reduction);
    Shape out_shape;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d] || r.keepdims) out_shape.push_back(reduced[d] ? 1 : shape[d]);
    made.push_back(NDArray::empty(out_shape, r.dtype));
    // Seen as the full shape: stride 0 along the reduced axes.
    Strides st;
    const Strides& own = made.back().strides();
    for (size_t d = 0, e = 0; d < shape.size(); ++d) {
      if (reduced[d]) {
        st.push_back(0);
        if (r.keepdims) ++e;
      } else {
        st.push_back(own[e++]);
      }
    }
    operands.push_back(NDArray(made.back().memory(), r.dtype, shape, st, made.back().offset()));
  }
  kept_strides.resize(operands.size());
  red_strides.resize(operands.size());
  for (size_t q = 0; q < operands.size(); ++q)
    for (size_t d = 0; d < shape.size(); ++d) (reduced[d] ? red_strides : kept_strides)[q].push_back(operands[q].strides()[d]);
  const StridedPlan kept = collapse_dims(kept_shape, kept_strides), red = collapse_dims(red_shape, red_strides);
  if (kept.shape.size() > static_cast<size_t>(kiln::kMaxDims) || red.shape.size() > static_cast<size_t>(kiln::kMaxDims))
    return false;
  std::vector<EwArg> scalars;
  for (const auto& [source, i] : k.scalars) {
    const size_t u = static_cast<size_t>(i);
    switch (source) {
      case 's': scalars.push_back(scalar_arg_bytes(in[u].scalar.bytes, in[u].scalar.dtype)); break;
      case 'h': scalars.push_back(scalar_arg_bytes(host[u].bytes, host[u].dtype)); break;
      case 'w': scalars.push_back(weak[u]); break;
      default: {
        EwArg c;
        c.scalar = t.consts_[u];
        scalars.push_back(c);
      }
    }
  }
  std::vector<void*> pointers;
  for (const NDArray& x : operands) pointers.push_back(x.data());
  // Note [Row modes]: contiguous rows in every operand read or written per element, then 16-byte chunks.
  int mode = kRowStrided;
  if (red.shape.size() == 1) {
    bool contiguous = true, vector = k.vector_width > 1 && n % k.vector_width == 0;
    for (size_t q = 0; q < operands.size(); ++q) {
      if (q >= k.inputs.size() && s.outputs[static_cast<size_t>(k.outputs[q - k.inputs.size()])].reduction >= 0) continue;
      const int64_t size = static_cast<int64_t>(operands[q].itemsize());
      contiguous = contiguous && red.strides[q][0] == size;
      vector = vector && size * k.vector_width == 16 && reinterpret_cast<uintptr_t>(pointers[q]) % 16 == 0;
      for (int64_t st : kept.strides[q]) vector = vector && st % 16 == 0;
    }
    if (contiguous) mode = vector ? kRowVector : kRowContiguous;
  }
  // Note [Row-fused plans]: rows staged in shared memory when they fit (kStagedBytes).
  int64_t staged = 0;
  for (int64_t size : k.staged_sizes) staged = (staged + n * size + 15) / 16 * 16;
  const bool stage = staged <= kStagedBytes;
  const uint32_t shared = stage ? static_cast<uint32_t>(staged) : 0;
  const int variant = 2 * mode + (stage ? 1 : 0);
  runtime::FunctionHandle fn;
  {
    auto& be = runtime::backend();
    const std::pair<int, int> key{be.current_device(), variant};
    std::lock_guard<std::mutex> lock(k.mutex);
    auto it = k.loaded.find(key);
    if (it == k.loaded.end()) {
      runtime::CompileRequest req;
      req.source = k.sources[variant];
      req.options = exact_fp_options();
      req.source_name = k.name + ".cu";
      auto module = runtime::load_module_cached(req, key.first);
      const runtime::FunctionHandle h = module->function(k.name).handle;
      it = k.loaded.emplace(key, std::make_pair(std::move(module), h)).first;
    }
    fn = it->second.second;
  }
  switch (operands.size()) {
    case 2: launch_rows<2>(fn, pointers, scalars, kept, red, m, n, shared); break;
    case 3: launch_rows<3>(fn, pointers, scalars, kept, red, m, n, shared); break;
    case 4: launch_rows<4>(fn, pointers, scalars, kept, red, m, n, shared); break;
    case 5: launch_rows<5>(fn, pointers, scalars, kept, red, m, n, shared); break;
    case 6: launch_rows<6>(fn, pointers, scalars, kept, red, m, n, shared); break;
    case 7: launch_rows<7>(fn, pointers, scalars, kept, red, m, n, shared); break;
    default: launch_rows<8>(fn, pointers, scalars, kept, red, m, n, shared); break;
  }
  // Slots of reductions only read inside get no array (no Result points at them): any output stands in.
  results.clear();
  results.reserve(s.outputs.size());
  for (size_t j = 0, q = 0; j < s.outputs.size(); ++j) results.push_back(s.outputs[j].feeds < 0 ? made[q++] : made[0]);
  return true;
}

}  // namespace kiln::arraycore
