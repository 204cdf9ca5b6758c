#include "arraycore/sort.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "arraycore/copy.h"
#include "arraycore/elementwise.h"
#include "arraycore/transfer.h"
#include "runtime/kernel_memo.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

constexpr uint32_t kBlock = 256;   // one thread per digit (Note [Onesweep pass])

// How keys of one dtype travel and what their digits are (Note [Radix keys]).
struct KeyKind {
  const char* bits;    // the C type moving the raw bits
  int bytes;           // digits (8-bit passes) of the ordered key
  const char* order;   // the ordered key of `k`, an expression (null: `digit` is whole)
  const char* digit = nullptr;   // else the digit `byte` of `k`
};

KeyKind key_kind(DType d) {
  switch (d) {
    case DType::Bool: return {"unsigned char", 1, "kiln::sort::order_bool(k)"};
    case DType::Int8: return {"unsigned char", 1, "kiln::sort::order_i8(k)"};
    case DType::UInt8: return {"unsigned char", 1, "(unsigned)k"};
    case DType::Int16: return {"unsigned short", 2, "kiln::sort::order_i16(k)"};
    case DType::UInt16: return {"unsigned short", 2, "(unsigned)k"};
    case DType::Float16: return {"unsigned short", 2, "kiln::sort::order_f16(k)"};
    case DType::BFloat16: return {"unsigned short", 2, "kiln::sort::order_bf16(k)"};
    case DType::Int32: return {"unsigned", 4, "kiln::sort::order_i32(k)"};
    case DType::UInt32: return {"unsigned", 4, "k"};
    case DType::Float32: return {"unsigned", 4, "kiln::sort::order_f32(k)"};
    case DType::Int64: return {"unsigned long long", 8, "kiln::sort::order_i64(k)"};
    case DType::UInt64: return {"unsigned long long", 8, "k"};
    case DType::Float64: return {"unsigned long long", 8, "kiln::sort::order_f64(k)"};
    case DType::Complex64: return {"unsigned long long", 9, nullptr, "kiln::sort::digit_c64(k, byte)"};
    case DType::Complex128: return {"kiln::sort::bits128", 17, nullptr, "kiln::sort::digit_c128(k, byte)"};
  }
  throw std::invalid_argument("sort: unsupported dtype");
}

// Items a thread ranks. Keys of up to 4 bytes alone: tiles of 6144, three
// blocks an SM (an H100 sorted 2^26 float32 keys' passes 4% faster than
// with tiles of 3840, four an SM); with values or wider keys, 3840 (static
// shared memory holds 48 KiB), 2048 for 16-byte keys.
int items_for(DType d, bool pairs) {
  if (d == DType::Complex128) return 8;
  return !pairs && dtype_info(d).itemsize <= 4 ? 24 : 15;
}

}  // namespace

std::string sort_key_source(DType dtype) {
  const KeyKind kk = key_kind(dtype);
  const std::string nm = "kiln_sort_" + std::string(dtype_info(dtype).name);
  return "#include <kiln/sort.h>\n\ntypedef " + std::string(kk.bits) + " _key_t;\n" +
         "struct " + nm + "_digit {\n  static constexpr int kBytes = " + std::to_string(kk.bytes) + ";\n"
         "  __device__ unsigned operator()(const _key_t& k, int byte) const {\n    return " +
         (kk.order != nullptr ? "kiln::sort::byte_of(" + std::string(kk.order) + ", byte)" : std::string(kk.digit)) +
         ";\n  }\n};\n";
}

namespace {

std::string generate(DType dtype) {
  const KeyKind kk = key_kind(dtype);
  const std::string nm = "kiln_sort_" + std::string(dtype_info(dtype).name);
  const std::string NB = std::to_string(kk.bytes);
  std::string s = sort_key_source(dtype);
  s += "extern \"C\" __global__ void __launch_bounds__(256) " + nm +
       "_hist(const _key_t* keys, long long n, int nbytes, unsigned* hist) {\n"
       "  kiln::sort::histogram<_key_t, 256, " + NB + ">(" + nm + "_digit{}, keys, n, nbytes, hist);\n}\n";
  for (const char* kind : {"keys", "pairs"}) {
    const std::string pairs = std::string(kind) == "pairs" ? "true" : "false";
    const std::string I = std::to_string(items_for(dtype, pairs == "true"));
    // Keys of up to 4 bytes alone fit 85 registers without spilling: three
    // blocks an SM. (Wider keys or values spill at 64 registers.)
    const std::string bounds = pairs == "false" && dtype_info(dtype).itemsize <= 4 ? "256, 3" : "256";
    s += "extern \"C\" __global__ void __launch_bounds__(" + bounds + ") " + nm + "_" + kind +
         "(const _key_t* keys_in, _key_t* keys_out, const long long* vals_in, long long* vals_out, long long n, "
         "long long first_index, int byte, long long row_len, int mod_out, const unsigned* base, "
         "unsigned* next_base, unsigned* status, unsigned* next_status) {\n"
         "  kiln::sort::onesweep<_key_t, " + pairs + ", 256, " + I + ">(" + nm +
         "_digit{}, keys_in, keys_out, vals_in, vals_out, n, first_index, byte, row_len, mod_out, base, next_base, "
         "status, next_status);\n}\n";
  }
  return s;
}

struct Kernels {
  std::shared_ptr<runtime::LoadedModule> module;
  runtime::FunctionHandle hist = nullptr, keys = nullptr, pairs = nullptr;
};

const Kernels& kernels_for(DType dtype) {
  static runtime::KernelMemo<int, Kernels> memo;   // Note [Kernel memo]
  auto& be = runtime::backend();
  return memo.get(be.current_device() * kNumDTypes + static_cast<int>(dtype), [&] {
    const std::string nm = "kiln_sort_" + std::string(dtype_info(dtype).name);
    runtime::CompileRequest req;
    req.source = generate(dtype);
    req.source_name = nm + ".cu";
    Kernels k;
    k.module = runtime::load_module_cached(req, be.current_device());
    k.hist = k.module->function(nm + "_hist").handle;
    k.keys = k.module->function(nm + "_keys").handle;
    k.pairs = k.module->function(nm + "_pairs").handle;
    return k;
  });
}

// One pass: by key digit `byte`, or (row_len > 0) by byte `byte` of the row.
struct Pass {
  int byte = 0;
  int64_t row_len = 0;
  std::array<uint32_t, 256> count{};
};

// Whether every key has one digit in this pass (it would move nothing).
bool trivial(const Pass& p, int64_t total) {
  return std::any_of(p.count.begin(), p.count.end(), [&](uint32_t c) { return c == total; });
}

// Rows r in [0, m) whose byte `byte` is d, for each d: the row passes'
// counts (times n), known without looking at the data.
std::array<uint32_t, 256> row_digit_counts(int64_t m, int64_t n, int byte) {
  std::array<uint32_t, 256> c{};
  const int64_t run = int64_t{1} << (8 * byte), period = run * 256;
  const int64_t full = m / period, rem = m % period;
  for (int d = 0; d < 256; ++d)
    c[d] = static_cast<uint32_t>(n * (full * run + std::clamp<int64_t>(rem - d * run, 0, run)));
  return c;
}

bool shares_memory(const NDArray& a, const NDArray& b) { return a.memory() == b.memory(); }

// Elements a segment (one launch of a pass) takes: Note [Sort segments].
std::atomic<int64_t> segment_elements{kSortSegmentElements};

}  // namespace

int64_t set_sort_segment_elements(int64_t n) {
  if (n < 0 || n > kSortSegmentElements)
    throw std::invalid_argument("sort: a segment takes 1 to " + std::to_string(kSortSegmentElements) +
                                " elements (0: that many), got " + std::to_string(n));
  return segment_elements.exchange(n == 0 ? kSortSegmentElements : n);
}

std::string sort_source(DType dtype) { return generate(dtype); }

void sort_rows(const NDArray& in, const NDArray* keys_out, const NDArray* index_out) {
  if (in.ndim() != 2) throw std::invalid_argument("sort_rows: the input must be 2-D");
  if (keys_out == nullptr && index_out == nullptr) throw std::invalid_argument("sort_rows: no output");
  if (keys_out != nullptr && (keys_out->shape() != in.shape() || keys_out->dtype() != in.dtype()))
    throw std::invalid_argument("sort_rows: keys_out must have the input's shape and dtype");
  if (index_out != nullptr && (index_out->shape() != in.shape() || index_out->dtype() != DType::Int64))
    throw std::invalid_argument("sort_rows: index_out must have the input's shape and dtype int64");
  const int64_t m = in.shape()[0], n = in.shape()[1], total = m * n;
  if (total == 0) return;
  if (total > kSortMaxElements)
    throw std::invalid_argument("sort: at most " + std::to_string(kSortMaxElements) + " elements a call, got " +
                                std::to_string(total));
  const DType dtype = in.dtype();
  const Kernels& k = kernels_for(dtype);
  const int nbytes = key_kind(dtype).bytes;
  auto& be = runtime::backend();
  runtime::StreamHandle stream = runtime::current_stream();

  // The histogram of every key digit, on the host (Note [Sort engine]).
  NDArray src = in.c_contiguous() ? in : astype(in, dtype, Order::C);
  {
    NDArray hist = NDArray::zeros({nbytes * 256}, DType::UInt32);
    const void* keys = src.data();
    void* hist_ptr = hist.data();
    long long n_arg = total;
    int nbytes_arg = nbytes;
    void* args[] = {&keys, &n_arg, &nbytes_arg, &hist_ptr};
    be.launch(k.hist, {grid_stride_blocks(total, kBlock), 1, 1}, {kBlock, 1, 1}, 0, stream, args);
    std::vector<uint32_t> counts(nbytes * 256);
    copy_to_host(hist, counts.data(), stream);
    std::vector<Pass> passes;
    for (int b = 0; b < nbytes; ++b) {
      Pass p;
      p.byte = b;
      std::copy(counts.begin() + b * 256, counts.begin() + (b + 1) * 256, p.count.begin());
      if (!trivial(p, total)) passes.push_back(p);
    }
    for (int b = 0; m > 1 && (m - 1) >> (8 * b) != 0; ++b) {
      Pass p;
      p.byte = b;
      p.row_len = n;
      p.count = row_digit_counts(m, n, b);
      if (!trivial(p, total)) passes.push_back(p);
    }
    const bool pairs = index_out != nullptr || m > 1;
    const int64_t tile = int64_t{kBlock} * items_for(dtype, pairs);
    // Segments of `seg` elements, the last shorter (Note [Sort segments]).
    const int64_t seg = std::min(segment_elements.load(), total);
    const int64_t nsegs = (total + seg - 1) / seg;
    auto tiles_of = [&](int64_t s) { return (std::min(seg, total - s * seg) + tile - 1) / tile; };
    const int64_t tiles = tiles_of(0);   // the most a launch has
    if (passes.empty()) {
      if (!pairs) {   // every key equal (in the sort order): nothing moves
        if (!(keys_out->data() == src.data() && keys_out->strides() == src.strides())) copy_into(src, *keys_out);
        return;
      }
      Pass p;   // an argsort still needs its indices: one pass writes them
      std::copy(counts.begin(), counts.begin() + 256, p.count.begin());
      passes.push_back(p);
    }
    const int64_t npasses = static_cast<int64_t>(passes.size());

    // Digit starts of each pass (of its first segment: a launch writes the
    // next segment's), and zeroed look-back state.
    std::vector<uint32_t> starts(npasses * nsegs * 256);
    for (int64_t q = 0; q < npasses; ++q) {
      uint32_t run = 0;
      for (int d = 0; d < 256; ++d) {
        starts[q * nsegs * 256 + d] = run;
        run += passes[q].count[d];
      }
    }
    NDArray base = NDArray::empty({npasses * nsegs * 256}, DType::UInt32);
    copy_from_host(base, starts.data(), stream);
    // Look-back words (256 a tile, then the tile counter) in two buffers
    // used by turns: only the first is zeroed here; each launch zeroes the
    // other for the next (a memset of every pass's words took 22 us of a
    // 2^26-key sort).
    const int64_t launches = npasses * nsegs;
    NDArray status[2] = {NDArray::zeros({tiles * 256 + 1}, DType::UInt32),
                         NDArray::empty({launches > 1 ? tiles * 256 + 1 : 0}, DType::UInt32)};

    // Buffers (Note [Sort engine]): pass q writes `out` when npasses - 1 - q is even.
    const bool keys_direct = keys_out != nullptr && keys_out->c_contiguous();
    NDArray key_out_buf = keys_direct ? *keys_out : NDArray::empty({m, n}, dtype);
    if (npasses % 2 == 1 && shares_memory(src, key_out_buf)) src = astype(in, dtype, Order::C);
    std::optional<NDArray> key_tmp, val_out_buf, val_tmp;
    if (npasses > 1) key_tmp.emplace(NDArray::empty({m, n}, dtype));
    if (pairs) {
      const bool direct = index_out != nullptr && index_out->c_contiguous();
      val_out_buf.emplace(direct ? *index_out : NDArray::empty({m, n}, DType::Int64));
      if (npasses > 1) val_tmp.emplace(NDArray::empty({m, n}, DType::Int64));
    }
    const int64_t key_size = dtype_info(dtype).itemsize;
    const void* key_from = src.data();
    const void* val_from = nullptr;
    uint32_t* base_at = static_cast<uint32_t*>(base.data());
    for (int64_t q = 0, launch = 0; q < npasses; ++q) {
      const bool to_out = (npasses - 1 - q) % 2 == 0;
      void* key_to = to_out ? key_out_buf.data() : key_tmp->data();
      void* val_to = pairs ? (to_out ? val_out_buf->data() : val_tmp->data()) : nullptr;
      for (int64_t s = 0; s < nsegs; ++s, ++launch) {
        const int64_t first = s * seg;
        const void* keys_in = static_cast<const char*>(key_from) + first * key_size;
        const void* vals_in = val_from != nullptr ? static_cast<const int64_t*>(val_from) + first : nullptr;
        long long n_arg = std::min(seg, total - first), first_index = first, row_len = passes[q].row_len;
        int byte = passes[q].byte, mod_out = q == npasses - 1 && m > 1 ? 1 : 0;
        const void* base_ptr = base_at + (q * nsegs + s) * 256;
        void* next_base = s + 1 < nsegs ? base_at + (q * nsegs + s + 1) * 256 : nullptr;
        void* status_ptr = status[launch % 2].data();
        // The next launch's look-back words: zeroed by this one as far as
        // its own tile counter (Note [Sort segments]), else by a memset.
        void* next_ptr = launch + 1 < launches ? status[(launch + 1) % 2].data() : nullptr;
        const int64_t next_tiles = launch + 1 < launches ? tiles_of((s + 1) % nsegs) : 0;
        if (next_tiles > tiles_of(s)) {
          be.memset_async(next_ptr, 0, static_cast<size_t>(next_tiles * 256 + 1) * sizeof(uint32_t), stream);
          next_ptr = nullptr;
        }
        void* args[] = {&keys_in, &key_to,  &vals_in,  &val_to,    &n_arg,      &first_index,
                        &byte,    &row_len, &mod_out,  &base_ptr,  &next_base,  &status_ptr, &next_ptr};
        be.launch(pairs ? k.pairs : k.keys, {static_cast<uint32_t>(tiles_of(s)), 1, 1}, {kBlock, 1, 1}, 0, stream,
                  args);
      }
      key_from = key_to;
      val_from = val_to;
    }
    if (keys_out != nullptr && !keys_direct) copy_into(key_out_buf, *keys_out);
    if (index_out != nullptr && !index_out->c_contiguous()) copy_into(*val_out_buf, *index_out);
  }
}

}  // namespace kiln::arraycore
