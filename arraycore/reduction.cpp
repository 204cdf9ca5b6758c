#include "arraycore/reduction.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "arraycore/generated_kernel.h"
#include "arraycore/record_dtype.h"
#include "arraycore/strided_plan.h"
#include "kiln/strided_index.h"
#include "runtime/kernel_memo.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

constexpr uint32_t kBlock = 256;
// Vectors a thread of the `_vec` kernel loads before it folds them
// (Note [Reduction vector loads]).
constexpr int kVecLoadsInFlight = 4;
constexpr int kMaxInputs = 4;
constexpr int64_t kWarpRowMax = 256;        // rows up to this long get a warp each
constexpr int64_t kSplitElements = 4096;    // fewest elements per split of a row
constexpr size_t kBatchBytes = 32;          // bytes of one input a thread loads per batch (a sector)
constexpr int64_t kWideFinish = 64;
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;         // splits a output from which the finish pass gives it a block

std::string reduce_type(const ReductionSpec& spec) {
  return spec.reduce_ctype.empty() ? std::string(dtype_info(spec.reduce_dtype).c_type) : spec.reduce_ctype;
}

// Note [Reduction vector loads]
// An unordered spec (Note [Reduction kernels]) over one input whose reduced
// elements are one contiguous run per output, every run 16-byte aligned,
// reads them as 16-byte vectors of V = 16 / itemsize elements (the `_vec`
// kernel, the row kernel's layout of blocks): piece boundaries round up to whole vectors, thread t of B
// takes vectors t, t + B, ... of its piece, four loads in flight, and folds
// each vector's V elements in order; elements past the last whole vector
// (fewer than V, in the last piece) go one a thread. Fewer, wider loads
// bring the row and full reductions to the bandwidth of copies. Rounding:
// Note [Reduction rounding] with c the number of terms a thread folds.

// Note [Reduction column vectors]
// The column kernel (Note [Reduction kernels]) gives each thread one output
// and reads a row's elements across the threads of a warp: one 4-byte load a
// thread and row for a float sum. When the outputs are one contiguous run
// (one kept axis, unit stride, a multiple of V = 16 / itemsize of them) and
// every reduced row starts 16-byte aligned, a thread takes V adjacent
// outputs instead and reads them as one 16-byte vector a row, four rows in
// flight (the `_colvec` kernel): four times the bytes a load.
// The W = 8 warps of a block share 32 such vectors of outputs: warp w folds
// rows w, w + W, w + 2W, ... of the block's piece in order, and the warps'
// results meet in warp order through shared memory. So a piece is W rows
// wide in flight, and the pieces can be W times longer, which leaves the
// finish pass W times fewer partials. Only unordered specs take this path;
// the rounding is Note [Reduction rounding]'s column case with the terms of
// a piece in W interleaved runs.

// Note [Reduction batches]
// A thread's elements are consecutive (row paths) or one stride apart
// (column path) and are combined in order. Loading them one at a time, each
// load waiting for the previous combine's turn, leaves too few bytes in
// flight to fill the memory system; so a thread loads a batch of U elements
// (U * itemsize = 32 bytes, a DRAM sector, for the widest input; 2 to 8
// elements) into registers first and then combines them in order. The order,
// and so the rounding of Note [Reduction rounding], is unchanged.

// The module of one spec for given input and output dtypes: the op struct,
// map and store helpers, and the row, column and finish kernels (Note
// [Reduction kernels]).
std::string generate(const ReductionSpec& spec, std::span<const DType> in, DType out) {
  const std::string& nm = spec.name;
  const std::string rt = reduce_type(spec);
  const size_t n = in.size();
  const bool ordered = spec.ordered;
  const std::string N = std::to_string(n), N1 = std::to_string(n + 1);
  std::string s = "#include <kiln/elementwise.h>\n#include <kiln/reduction.h>\n" + spec.preamble + "\n";
  s += "struct " + nm + "_op {\n  typedef " + rt + " T;\n  static KILN_DEVICE T identity() { return (" + spec.identity +
       "); }\n  static KILN_DEVICE T combine(const T& a, const T& b) { return (" + spec.reduce_expr + "); }\n"
       "  static KILN_DEVICE T fold(const T& a, const T& b) { return (" +
       (spec.fold_expr.empty() ? spec.reduce_expr : spec.fold_expr) + "); }\n};\n";
  std::string ptr_params, ptr_args;
  for (size_t k = 0; k < n; ++k) {
    ptr_params += "const char* _p_" + spec.params[k].name + ", ";
    ptr_args += "_p_" + spec.params[k].name + ", ";
  }
  // Raw inputs (Note [Reduction raw inputs]): kiln::RawArray kernel params
  // `_r_<name>`, passed by reference down to the map and store functions,
  // where they take their own names.
  std::string raw_kernel_params, raw_params, raw_args, raw_named;
  for (const EwParam& p : spec.raw_params) {
    const std::string type = "kiln::RawArray<" + (p.storage.empty() ? p.ctype : p.storage) + ">";
    raw_kernel_params += type + " _r_" + p.name + ", ";
    raw_params += "const " + type + "& _r_" + p.name + ", ";
    raw_named += "const " + type + "& " + p.name + ", ";
    raw_args += "_r_" + p.name + ", ";
  }
  s += "static KILN_DEVICE " + rt + " " + nm + "_map(" + ptr_params + raw_named + "const long long (&_off)[" + N +
       "], const long long _i, const long long _j) {\n";
  for (size_t k = 0; k < n; ++k) {
    const EwParam& p = spec.params[k];
    s += "  const " + p.ctype + " " + p.name + " = " +
         load_text(p.ctype, in[k], "*(const " + storage_ctype(in[k]) + "*)(_p_" + p.name + " + _off[" + std::to_string(k) + "])") +
         ";\n";
  }
  s += "  return (" + spec.map_expr + ");\n}\n";
  // Note [Reduction vector loads]: the map of a value already loaded.
  const bool vector_path = !ordered && n == 1;
  if (vector_path) {
    const EwParam& p = spec.params[0];
    s += "static KILN_DEVICE " + rt + " " + nm + "_map_value(const " + storage_ctype(in[0]) + " _v, " + raw_named +
         "const long long _i, const long long _j) {\n"
         "  const " + p.ctype + " " + p.name + " = " + load_text(p.ctype, in[0], "_v") + ";\n  return (" + spec.map_expr +
         ");\n}\n";
  }
  s += "static KILN_DEVICE void " + nm + "_store(char* _p_out, " + raw_named + "long long _o, const long long _i, const " +
       rt + "& a) {\n  " + spec.out_ctype +
       " out;\n  {\n" + spec.post_map_expr + "\n  }\n  *(" + storage_ctype(out) + "*)(_p_out + _o) = " +
       store_text(spec.out_ctype, out, "out") + ";\n}\n";
  const std::string params = "(" + ptr_params + raw_kernel_params + "char* _p_out, " + rt + "* _part, const kiln::Layout<" + N1 +
                             "> _K, const kiln::Layout<" + N + "> _R, long long _m, long long _n, long long _splits, int _path)";
  // Accumulates elements [lo, hi) of kept position `ko` into `a`, in order,
  // U at a time with every load issued before the combines (Note [Reduction
  // batches]).
  size_t widest = 1;
  for (DType d : in) widest = std::max<size_t>(widest, dtype_info(d).itemsize);
  const std::string U = std::to_string(std::clamp<size_t>(kBatchBytes / widest, 2, 8));
  s += "template <int U>\nstatic KILN_DEVICE void " + nm + "_accumulate(" + ptr_params + raw_params + "const long long (&ko)[" +
       N1 + "], const long long _i, const kiln::Layout<" + N + ">& _R, long long lo, long long hi, long long step, " + rt +
       "& a) {\n"
       "  typedef " + nm + "_op Op;\n"
       "  long long j = lo;\n"
       "  for (; j + (U - 1) * step < hi; j += U * step) {\n"
       "    " + rt + " v[U];\n"
       "#pragma unroll\n"
       "    for (int u = 0; u < U; ++u) {\n"
       "      long long ro[" + N + "];\n      kiln::reduced_offsets(_R, j + u * step, ro);\n"
       "      long long off[" + N + "];\n      for (int q = 0; q < " + N + "; ++q) off[q] = ko[q] + ro[q];\n"
       "      v[u] = " + nm + "_map(" + ptr_args + raw_args + "off, _i, j + u * step);\n    }\n"
       "#pragma unroll\n"
       "    for (int u = 0; u < U; ++u) a = Op::fold(a, v[u]);\n  }\n"
       "  for (; j < hi; j += step) {\n"
       "    long long ro[" + N + "];\n    kiln::reduced_offsets(_R, j, ro);\n"
       "    long long off[" + N + "];\n    for (int q = 0; q < " + N + "; ++q) off[q] = ko[q] + ro[q];\n"
       "    a = Op::fold(a, " + nm + "_map(" + ptr_args + raw_args + "off, _i, j));\n  }\n}\n";
  const std::string accumulate = "      " + nm + "_accumulate<" + U + ">(" + ptr_args + raw_args + "ko, r, _R, lo, hi, step, a);\n";
  // What the vector paths share (Notes [Reduction vector loads] and
  // [Reduction column vectors]): the input's storage type and pointer, the
  // loads in flight, and the fold of a loaded vector's V elements into `acc`.
  const std::string st = vector_path ? storage_ctype(in[0]) : std::string(),
                    x0 = vector_path ? "_p_" + spec.params[0].name : std::string(),
                    D = std::to_string(kVecLoadsInFlight);
  auto fold_vector = [&](const std::string& acc, const std::string& w, const std::string& out_index,
                         const std::string& index) {
    return "#pragma unroll\n        for (int v = 0; v < V; ++v)\n          " + acc + " = Op::fold(" + acc + ", " + nm +
           "_map_value(kiln::vec_element<" + st + ">(" + w + ", v), " + raw_args + out_index + ", " + index + "));\n";
  };
  std::string vector_block;
  if (vector_path) {
    vector_block =
        "  {   // Note [Reduction vector loads]\n"
        "    constexpr int V = 16 / (int)sizeof(" + st + ");\n"
        "    const long long cs = ((_n + _splits - 1) / _splits + V - 1) / V * V, slo = blockIdx.y * cs,"
        " shi = slo + cs < _n ? slo + cs : _n;\n"
        "    const long long gend = shi / V, tail = gend * V > slo ? gend * V : slo;\n"
        "    for (long long r = blockIdx.x; r < _m; r += gridDim.x) {\n"
        "      long long ko[" + N1 + "];\n      _K.offsets(r, ko);\n"
        "      const kiln::Vec16* row = (const kiln::Vec16*)(" + x0 + " + ko[0]);\n"
        "      " + rt + " a = Op::identity();\n"
        "      long long g = slo / V + threadIdx.x;\n"
        "      const long long B = blockDim.x;\n"
        "      for (; g + " + D + " * B - B < gend; g += " + D + " * B) {\n"
        "        kiln::Vec16 w[" + D + "];\n"
        "#pragma unroll\n        for (int q = 0; q < " + D + "; ++q) w[q] = row[g + q * B];\n"
        "#pragma unroll\n        for (int q = 0; q < " + D + "; ++q)\n" + fold_vector("a", "w[q]", "r", "(g + q * B) * V + v") +
        "      }\n"
        "      for (; g < gend; g += B) {\n        const kiln::Vec16 w0 = row[g];\n" + fold_vector("a", "w0", "r", "g * V + v") + "      }\n"
        "      const long long t = tail + threadIdx.x;\n"
        "      if (t < shi) a = Op::fold(a, " + nm + "_map_value(((const " + st + "*)row)[t], " + raw_args + "r, t));\n"
        "      a = kiln::block_reduce<Op>(a);\n"
        "      if (threadIdx.x == 0) {\n        if (_splits == 1) " + nm + "_store(_p_out, " + raw_args + "ko[" + N + "], r, a);\n"
        "        else _part[r * _splits + blockIdx.y] = a;\n      }\n    }\n  }\n";
  }
  s += "extern \"C\" __global__ void " + nm + "_row" + params + " {\n  typedef " + nm + "_op Op;\n"
       "  if (_path == 1) {   // a warp per output\n"
       "    const int lane = threadIdx.x & 31;\n"
       "    const long long c = " + (ordered ? "(_n + 31) / 32" : "1") + ", lo = lane * c, step = " +
       (ordered ? "1" : "32") + ", hi = " + (ordered ? "lo + c < _n ? lo + c : _n" : "_n") + ";\n"
       "    for (long long r = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < _m;"
       " r += (long long)gridDim.x * (blockDim.x / 32)) {\n"
       "      long long ko[" + N1 + "];\n      _K.offsets(r, ko);\n      " + rt + " a = Op::identity();\n" + accumulate +
       "      a = kiln::warp_reduce<Op>(a);\n      if (lane == 0) " + nm + "_store(_p_out, " + raw_args + "ko[" + N + "], r, a);\n    }\n"
       "    return;\n  }\n"
       "  const long long cs = (_n + _splits - 1) / _splits, slo = blockIdx.y * cs, shi = slo + cs < _n ? slo + cs : _n;\n"
       "  const long long len = shi > slo ? shi - slo : 0, c = (len + blockDim.x - 1) / blockDim.x;\n"
       + (ordered ? "  const long long lo = slo + threadIdx.x * c, hi = lo + c < shi ? lo + c : shi, step = 1;\n"
                  : "  const long long lo = slo + threadIdx.x, hi = shi, step = blockDim.x;\n  (void)c;\n") +
       "  for (long long r = blockIdx.x; r < _m; r += gridDim.x) {\n"
       "      long long ko[" + N1 + "];\n      _K.offsets(r, ko);\n      " + rt + " a = Op::identity();\n" + accumulate +
       "      a = kiln::block_reduce<Op>(a);\n"
       "      if (threadIdx.x == 0) {\n        if (_splits == 1) " + nm + "_store(_p_out, " + raw_args + "ko[" + N + "], r, a);\n"
       "        else _part[r * _splits + blockIdx.y] = a;\n      }\n  }\n}\n";
  // The vector path is a kernel of its own: without the other paths' live
  // values it needs fewer registers, so more blocks of it fit an SM.
  if (vector_path)
    s += "extern \"C\" __global__ void " + nm + "_vec" + params + " {\n  typedef " + nm + "_op Op;\n" + vector_block + "}\n";
  std::string column_vector_block;
  if (vector_path) {   // Note [Reduction column vectors]
    const std::string W = std::to_string(kBlock / 32);
    column_vector_block =
        "  {   // Note [Reduction column vectors]\n"
        "    constexpr int V = 16 / (int)sizeof(" + st + "), W = " + W + ";\n"
        "    __shared__ __align__(16) unsigned char _sh_raw[W * 32 * sizeof(" + rt + ")];\n"
        "    " + rt + "* _sh = reinterpret_cast<" + rt + "*>(_sh_raw);\n"
        "    const int lane = threadIdx.x & 31, wy = threadIdx.x >> 5;\n"
        "    for (long long gb = (long long)blockIdx.x * 32; gb * V < _m; gb += (long long)gridDim.x * 32) {\n"
        "      const long long g = gb + lane;\n"
        "      " + rt + " a[V];\n#pragma unroll\n      for (int v = 0; v < V; ++v) a[v] = Op::identity();\n"
        "      long long ko[" + N1 + "];\n"
        "      if (g * V < _m) {\n"
        "        _K.offsets(g * V, ko);\n"
        "        const char* base = " + x0 + " + ko[0];\n"
        "        long long j = lo + wy;\n"
        "        for (; j + (" + D + " - 1) * W < hi; j += " + D + " * W) {\n"
        "          kiln::Vec16 w[" + D + "];\n"
        "#pragma unroll\n          for (int q = 0; q < " + D + "; ++q) {\n"
        "            long long ro[" + N + "];\n            kiln::reduced_offsets(_R, j + q * W, ro);\n"
        "            w[q] = *(const kiln::Vec16*)(base + ro[0]);\n          }\n"
        "#pragma unroll\n          for (int q = 0; q < " + D + "; ++q)\n" + fold_vector("a[v]", "w[q]", "g * V + v", "j + q * W") +
        "        }\n"
        "        for (; j < hi; j += W) {\n          long long ro[" + N + "];\n          kiln::reduced_offsets(_R, j, ro);\n"
        "          const kiln::Vec16 w0 = *(const kiln::Vec16*)(base + ro[0]);\n" + fold_vector("a[v]", "w0", "g * V + v", "j") +
        "        }\n"
        "      }\n"
        "      // the warps' results for output v, one output at a time (V * W * 32 of them can pass 48 KiB)\n"
        "#pragma unroll\n      for (int v = 0; v < V; ++v) {\n"
        "        __syncthreads();   // the previous readers are done with _sh\n"
        "        _sh[wy * 32 + lane] = a[v];\n"
        "        __syncthreads();\n"
        "        if (wy == 0)\n          for (int k = 1; k < W; ++k) a[v] = Op::combine(a[v], _sh[k * 32 + lane]);\n"
        "      }\n"
        "      if (wy == 0 && g * V < _m) {\n"
        "#pragma unroll\n        for (int v = 0; v < V; ++v) {\n"
        "          if (_splits == 1) {\n            long long kv[" + N1 + "];\n            _K.offsets(g * V + v, kv);\n"
        "            " + nm + "_store(_p_out, " + raw_args + "kv[" + N + "], g * V + v, a[v]);\n          } else {\n"
        "            _part[blockIdx.y * _m + g * V + v] = a[v];\n          }\n        }\n      }\n    }\n  }\n";
  }
  // Its own kernel too, for the same reason as _vec.
  if (vector_path)
    s += "extern \"C\" __global__ void " + nm + "_colvec" + params + " {\n  typedef " + nm + "_op Op;\n"
         "  const long long cs = (_n + _splits - 1) / _splits, lo = blockIdx.y * cs, hi = lo + cs < _n ? lo + cs : _n;\n" +
         column_vector_block + "}\n";
  s += "extern \"C\" __global__ void " + nm + "_col" + params + " {\n  typedef " + nm + "_op Op;\n"
       "  const long long cs = (_n + _splits - 1) / _splits, lo = blockIdx.y * cs, hi = lo + cs < _n ? lo + cs : _n;\n"
       "  const long long step = 1;\n"
       "  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < _m; r += (long long)gridDim.x * blockDim.x) {\n"
       "      long long ko[" + N1 + "];\n      _K.offsets(r, ko);\n      " + rt + " a = Op::identity();\n" + accumulate +
       "      if (_splits == 1) " + nm + "_store(_p_out, " + raw_args + "ko[" + N + "], r, a);\n"
       "      else _part[blockIdx.y * _m + r] = a;\n  }\n}\n";
  // The second pass: partials of output r at _part[r * _splits + s] (row)
  // or _part[s * _m + r] (column), combined in split order: a thread per
  // output, or (_wide, many splits) a block per output whose threads take
  // consecutive runs of splits, combined in thread order by block_reduce.
  s += "extern \"C\" __global__ void " + nm + "_finish(" + raw_kernel_params + "char* _p_out, const " + rt + "* _part, const kiln::Layout<" + N1 +
       "> _K, long long _m, long long _splits, int _column, int _wide) {\n  typedef " + nm + "_op Op;\n"
       "  if (_wide) {\n"
       "    const long long c = (_splits + blockDim.x - 1) / blockDim.x, lo = threadIdx.x * c,"
       " hi = lo + c < _splits ? lo + c : _splits;\n"
       "    for (long long r = blockIdx.x; r < _m; r += gridDim.x) {\n"
       "      " + rt + " a = Op::identity();\n"
       "      for (long long s = lo; s < hi; ++s) a = Op::combine(a, _part[_column ? s * _m + r : r * _splits + s]);\n"
       "      a = kiln::block_reduce<Op>(a);\n"
       "      if (threadIdx.x == 0) {\n        long long ko[" + N1 + "];\n        _K.offsets(r, ko);\n"
       "        " + nm + "_store(_p_out, " + raw_args + "ko[" + N + "], r, a);\n      }\n    }\n    return;\n  }\n"
       "  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < _m; r += (long long)gridDim.x * blockDim.x) {\n"
       "    long long ko[" + N1 + "];\n    _K.offsets(r, ko);\n"
       "    " + rt + " a = Op::identity();\n"
       "    for (long long s = 0; s < _splits; ++s) a = Op::combine(a, _part[_column ? s * _m + r : r * _splits + s]);\n"
       "    " + nm + "_store(_p_out, " + raw_args + "ko[" + N + "], r, a);\n  }\n}\n";
  return s;
}

struct Variant {
  std::shared_ptr<runtime::LoadedModule> module;
  runtime::FunctionHandle row = nullptr, col = nullptr, finish = nullptr, vec = nullptr, colvec = nullptr;
};

std::string spec_key(const ReductionSpec& spec) {
  std::string k = spec.name + '\0';
  for (const EwParam& p : spec.params) k += p.name + ':' + p.ctype + ',';
  k += '\0';
  for (const EwParam& p : spec.raw_params) k += p.name + ':' + p.ctype + ':' + p.storage + ',';
  k += '\0' + spec.map_expr + '\0' + spec.reduce_expr + '\0' + spec.fold_expr + '\0' + spec.post_map_expr + '\0' + spec.identity + '\0' +
       std::to_string(static_cast<int>(spec.reduce_dtype)) + '\0' + spec.reduce_ctype + '\0' + (spec.ordered ? "o" : "u") + '\0' + spec.out_ctype + '\0' + spec.preamble + '\0';
  for (const auto& o : spec.options) k += o + '\1';
  return k;
}

const Variant& variant_for(const ReductionSpec& spec, std::span<const NDArray* const> inputs, const NDArray& out) {
  // Note [Kernel memo]: per spec (found once through spec.cache_slot), a memo
  // of its variants keyed by the dtypes (6 bits each, at most 4 inputs and
  // the output) and the device.
  using Variants = runtime::KernelMemo<uint64_t, Variant>;
  static std::mutex mutex;
  static std::unordered_map<std::string, Variants> slots;
  auto& be = runtime::backend();
  uint64_t key = static_cast<uint64_t>(be.current_device()) << 32;
  for (size_t k = 0; k < inputs.size(); ++k) key |= static_cast<uint64_t>(inputs[k]->dtype()) << (6 * k);
  key |= static_cast<uint64_t>(out.dtype()) << 24;
  Variants* variants;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (spec.cache_slot == nullptr) spec.cache_slot = &slots[spec_key(spec)];
    variants = static_cast<Variants*>(spec.cache_slot);
  }
  return variants->get(key, [&] {
    std::vector<DType> dtypes;
    for (const NDArray* a : inputs) dtypes.push_back(a->dtype());
    runtime::CompileRequest req;
    req.source = generate(spec, dtypes, out.dtype());
    req.options = spec.options;
    req.source_name = spec.name + ".cu";
    Variant v;
    v.module = runtime::load_module_cached(req, be.current_device());
    v.row = v.module->function(spec.name + "_row").handle;
    v.col = v.module->function(spec.name + "_col").handle;
    v.finish = v.module->function(spec.name + "_finish").handle;
    if (!spec.ordered && inputs.size() == 1) {
      v.vec = v.module->function(spec.name + "_vec").handle;
      v.colvec = v.module->function(spec.name + "_colvec").handle;
    }
    return v;
  });
}

template <int N>
void fill_layout(kiln::Layout<N>& layout, const StridedPlan& plan) {
  layout.ndim = static_cast<int>(plan.shape.size());
  for (size_t d = 0; d < plan.shape.size(); ++d) {
    layout.shape[d] = plan.shape[d];
    for (int k = 0; k < N; ++k) layout.strides[k][d] = plan.strides[k][d];
  }
}

struct Plan {
  StridedPlan kept, reduced;   // kept: the inputs' strides, then out's
  int64_t m = 0, n = 0;
};

template <int N>
void launch(const Variant& v, std::span<const NDArray* const> inputs, std::span<RawArrayArg> raws, const NDArray& out,
            const Plan& plan, const ReductionSpec& spec) {
  auto& be = runtime::backend();
  runtime::StreamHandle stream = runtime::current_stream();
  kiln::Layout<N + 1> K{};
  kiln::Layout<N> R{};
  fill_layout(K, plan.kept);
  fill_layout(R, plan.reduced);
  const int64_t m = plan.m, n = plan.n;
  const int64_t item = static_cast<int64_t>(inputs[0]->itemsize());
  // Which kernel (Note [Reduction kernels]).
  const bool inner_reduced_contiguous = !plan.reduced.shape.empty() && plan.reduced.strides[0].back() == item;
  const bool inner_kept_contiguous = !plan.kept.shape.empty() && plan.kept.strides[0].back() == item;
  const bool column = m > 1 && n > 1 && inner_kept_contiguous && !inner_reduced_contiguous;
  const int64_t cap_blocks = grid_stride_blocks(INT64_MAX / 2, kBlock);   // the device's resident blocks of kBlock
  int64_t splits = 1;
  uint32_t grid_x;
  int warp_rows = 0;
  // Every run the input's `strides` step to starts 16-byte aligned (the
  // vector paths' condition).
  auto runs_aligned = [&](const auto& strides) {
    return reinterpret_cast<uintptr_t>(inputs[0]->data()) % 16 == 0 &&
           std::all_of(strides.begin(), strides.end(), [](int64_t st) { return st % 16 == 0; });
  };
  // Note [Reduction column vectors]: V adjacent outputs a thread when they
  // are one 16-byte aligned vector in every reduced row.
  const int64_t vec_elems = 16 / item;
  const bool column_vectors =
      column && !spec.ordered && inputs.size() == 1 && item < 16 && 16 % item == 0 && plan.kept.shape.size() == 1 &&
      m % vec_elems == 0 && runs_aligned(plan.reduced.strides[0]);
  if (column_vectors) {
    // A block's warps share 32 vectors of outputs and take its rows in turn;
    // pieces for two rounds of the resident blocks (an H100's (32768, 8192)
    // float32 column sum: 2949 GB/s with them, 2796 with a warp a row piece
    // and one round: finer pieces balance better, and fewer partials cost
    // the finish pass less).
    const int64_t groups = (m / vec_elems + 31) / 32;
    grid_x = static_cast<uint32_t>(std::clamp<int64_t>(groups, 1, cap_blocks));
    if (grid_x < 2 * cap_blocks)
      splits = std::clamp<int64_t>(2 * cap_blocks / grid_x, 1, std::max<int64_t>(1, n / (4 * kBlock)));
  } else if (column) {
    grid_x = grid_stride_blocks(m, kBlock);
    if (grid_x < cap_blocks) splits = std::clamp<int64_t>(cap_blocks / grid_x, 1, std::max<int64_t>(1, n / 32));
  } else if (n <= kWarpRowMax && m > 1) {
    warp_rows = 1;
    grid_x = grid_stride_blocks(m * 32, kBlock);
  } else {
    // A block a row, as many blocks as rows: the hardware hands rows to SMs
    // as they free up (a grid of the resident blocks striding over 32768
    // rows left its last round 3% full). Few rows are split into pieces.
    grid_x = static_cast<uint32_t>(std::clamp<int64_t>(m, 1, kMaxGridX));
    // Pieces for twice the blocks that fit the device at once: the finer
    // pieces balance better (an H100's 2^28-element argmax: 2688 GB/s with
    // one round, 2796 with two).
    const int64_t pieces = 2 * cap_blocks;
    if (m < pieces) splits = std::clamp<int64_t>(pieces / m, 1, std::max<int64_t>(1, n / kSplitElements));
  }
  splits = std::min<int64_t>(splits, 65535);
  // Note [Reduction vector loads]: a commutative combine over one input whose
  // rows are contiguous and start 16-byte aligned.
  int path = warp_rows;
  if (!column && !warp_rows && !spec.ordered && inputs.size() == 1 && plan.reduced.shape.size() == 1 &&
      plan.reduced.strides[0][0] == item && 16 % item == 0 && runs_aligned(plan.kept.strides[0]))
    path = 2;
  std::optional<NDArray> partial;   // the per-split partials, freed after the finish launch (stream order)
  void* part_ptr = nullptr;
  if (splits > 1) {
    partial = spec.reduce_ctype.empty()
                  ? NDArray::empty({m * splits}, spec.reduce_dtype)
                  : NDArray::empty({m * splits * static_cast<int64_t>(spec.reduce_itemsize)}, DType::UInt8);
    part_ptr = partial->data();
  }
  std::vector<void*> pointers;
  for (const NDArray* a : inputs) pointers.push_back(a->data());
  void* out_ptr = out.data();
  long long lm = m, ln = n, lsplits = splits;
  std::vector<void*> kargs;
  for (auto& p : pointers) kargs.push_back(&p);
  for (auto& r : raws) kargs.push_back(&r);
  for (void* p : {static_cast<void*>(&out_ptr), static_cast<void*>(&part_ptr), static_cast<void*>(&K),
                  static_cast<void*>(&R), static_cast<void*>(&lm), static_cast<void*>(&ln), static_cast<void*>(&lsplits),
                  static_cast<void*>(&path)})
    kargs.push_back(p);
  be.launch(column_vectors ? v.colvec : column ? v.col : path == 2 ? v.vec : v.row, {grid_x, static_cast<uint32_t>(splits), 1}, {kBlock, 1, 1}, 0, stream,
            kargs.data());
  if (splits > 1) {
    // Many splits a output: a block each (a thread each would walk them in a
    // serial chain of loads: 24 us for 1056 float partials on an H100).
    int is_column = column ? 1 : 0, wide = splits >= kWideFinish ? 1 : 0;
    std::vector<void*> fargs;
    for (auto& r : raws) fargs.push_back(&r);
    for (void* p : {static_cast<void*>(&out_ptr), static_cast<void*>(&part_ptr), static_cast<void*>(&K),
                    static_cast<void*>(&lm), static_cast<void*>(&lsplits), static_cast<void*>(&is_column),
                    static_cast<void*>(&wide)})
      fargs.push_back(p);
    const uint32_t finish_grid = wide ? static_cast<uint32_t>(std::clamp<int64_t>(m, 1, cap_blocks))
                                      : grid_stride_blocks(m, kBlock);
    be.launch(v.finish, {finish_grid, 1, 1}, {kBlock, 1, 1}, 0, stream, fargs.data());
  }
}

}  // namespace

std::string reduction_source(const ReductionSpec& spec, std::span<const DType> input_dtypes, DType out_dtype) {
  return generate(spec, input_dtypes, out_dtype);
}

void reduction_launch(const ReductionSpec& spec, std::span<const NDArray* const> inputs, std::span<const int> axes,
                      const NDArray& out, std::span<const NDArray* const> raw_inputs) {
  if (inputs.empty() || inputs.size() > static_cast<size_t>(kMaxInputs))
    throw std::invalid_argument(spec.name + ": a reduction takes 1 to 4 inputs, got " + std::to_string(inputs.size()));
  if (!spec.reduce_ctype.empty() && spec.reduce_itemsize == 0)
    throw std::invalid_argument(spec.name + ": reduce_ctype needs its reduce_itemsize");
  for (const NDArray* a : inputs) require_not_record(a->dtype(), spec.name);
  require_not_record(out.dtype(), spec.name);
  if (inputs.size() != spec.params.size())
    throw std::invalid_argument(spec.name + ": expected " + std::to_string(spec.params.size()) + " inputs, got " +
                                std::to_string(inputs.size()));
  if (raw_inputs.size() != spec.raw_params.size())
    throw std::invalid_argument(spec.name + ": expected " + std::to_string(spec.raw_params.size()) + " raw inputs, got " +
                                std::to_string(raw_inputs.size()));
  std::vector<RawArrayArg> raws;   // Note [Reduction raw inputs]
  raws.reserve(raw_inputs.size());
  for (size_t k = 0; k < raw_inputs.size(); ++k) {
    if (raw_inputs[k] == nullptr)
      throw std::invalid_argument(spec.name + ": raw param '" + spec.raw_params[k].name + "' needs an array");
    raws.push_back(raw_array_arg(*raw_inputs[k]));
  }
  const Shape& shape = inputs[0]->shape();
  const int ndim = static_cast<int>(shape.size());
  for (const NDArray* a : inputs)
    if (a->shape() != shape) throw std::invalid_argument(spec.name + ": inputs of different shapes");
  std::vector<bool> reduced(ndim, false);
  for (int ax : axes) {
    if (ax < 0 || ax >= ndim || reduced[ax]) throw std::invalid_argument(spec.name + ": bad or repeated axis");
    reduced[ax] = true;
  }
  Plan plan;
  Shape kept_shape, red_shape;
  std::vector<Strides> kept_strides(inputs.size() + 1), red_strides(inputs.size());
  for (int d = 0; d < ndim; ++d) {
    (reduced[d] ? red_shape : kept_shape).push_back(shape[d]);
    for (size_t k = 0; k < inputs.size(); ++k)
      (reduced[d] ? red_strides[k] : kept_strides[k]).push_back(inputs[k]->strides()[d]);
  }
  if (out.shape() != kept_shape) throw std::invalid_argument(spec.name + ": out has the wrong shape");
  kept_strides.back() = out.strides();
  plan.m = shape_size(kept_shape);
  plan.n = shape_size(red_shape);
  if (plan.m == 0) return;
  plan.kept = collapse_dims(kept_shape, kept_strides);
  plan.reduced = collapse_dims(red_shape, red_strides);
  if (plan.kept.shape.size() > static_cast<size_t>(kiln::kMaxDims) ||
      plan.reduced.shape.size() > static_cast<size_t>(kiln::kMaxDims))
    throw std::invalid_argument("arrays of more than 32 dimensions are not supported");
  const Variant& v = variant_for(spec, inputs, out);
  switch (inputs.size()) {
    case 1: return launch<1>(v, inputs, raws, out, plan, spec);
    case 2: return launch<2>(v, inputs, raws, out, plan, spec);
    case 3: return launch<3>(v, inputs, raws, out, plan, spec);
    default: return launch<4>(v, inputs, raws, out, plan, spec);
  }
}

}  // namespace kiln::arraycore
