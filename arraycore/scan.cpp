#include "arraycore/scan.h"

#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "arraycore/elementwise.h"
#include "arraycore/generated_kernel.h"
#include "runtime/kernel_memo.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

// Note [Scan engine]: a tile is kBlock threads of kItems elements; a row of
// at most kWarpTile elements is scanned by one warp.
constexpr uint32_t kBlock = 256;
constexpr int kItems = 4;
constexpr int64_t kTile = int64_t{kBlock} * kItems;
constexpr int64_t kWarpTile = int64_t{32} * kItems;

// The value stored as `d` at `p` (a const char*), read as the accumulator type.
std::string load_expr(DType d, DType acc, const std::string& p) {
  std::string v = "*(const " + storage_ctype(d) + "*)(" + p + ")";
  if (d == DType::Bool) v = "(bool)(" + v + " != 0)";
  if (d == acc) return v;
  return "kiln::numpy_cast<_acc_t>(" + v + ")";
}

std::string generate(const ScanSpec& spec, DType in_dtype) {
  const DType acc = spec.acc;
  const std::string out_store = acc == DType::Bool ? "(unsigned char)v" : "v";
  const std::string b = std::to_string(kBlock), items = std::to_string(kItems);
  std::string s = "#include <kiln/elementwise.h>\n#include <kiln/scan.h>\n" + spec.preamble + "\n";
  s += "typedef " + std::string(dtype_info(acc).c_type) + " _acc_t;\n";
  s += "struct " + spec.name + "_op {\n  __device__ _acc_t operator()(_acc_t a, _acc_t b) const { return " +
       spec.combine + "; }\n};\n";
  // Tiles (Note [Scan tiles]).
  s += "extern \"C\" __global__ void " + spec.name +
       "_tiles(const char* in, long long in_rs, long long in_cs, char* out, long long out_rs, long long out_cs, "
       "long long m, long long n, long long ntiles, _acc_t* totals, int warp_rows) {\n"
       "  auto load = [&](long long r, long long j) -> _acc_t { return " +
       load_expr(in_dtype, acc, "in + r * in_rs + j * in_cs") +
       "; };\n"
       "  auto store = [&](long long r, long long j, _acc_t v) { *(" + storage_ctype(acc) +
       "*)(out + r * out_rs + j * out_cs) = " + out_store +
       "; };\n"
       "  kiln::scan::tiles<_acc_t, " + b + ", " + items + ">(" + spec.name +
       "_op{}, load, store, m, n, ntiles, totals, warp_rows);\n}\n";
  // Prefixes: element (r, j) of tile t >= 1 becomes op(prefix[r, t - 1], y).
  s += "extern \"C\" __global__ void " + spec.name +
       "_add(char* out, long long out_rs, long long out_cs, long long m, long long n, long long ntiles, "
       "const _acc_t* prefix) {\n"
       "  const long long rest = n - " + std::to_string(kTile) + ";\n"
       "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m * rest;"
       " i += (long long)blockDim.x * gridDim.x) {\n"
       "    const long long r = i / rest, j = " + std::to_string(kTile) + " + (i - r * rest);\n"
       "    " + storage_ctype(acc) + "* p = (" + storage_ctype(acc) + "*)(out + r * out_rs + j * out_cs);\n"
       "    const _acc_t v = " + spec.name + "_op{}(prefix[r * ntiles + j / " + std::to_string(kTile) + " - 1], " +
       load_expr(acc, acc, "p") + ");\n"
       "    *p = " + out_store + ";\n  }\n}\n";
  return s;
}

struct Kernels {
  std::shared_ptr<runtime::LoadedModule> module;
  runtime::FunctionHandle tiles = nullptr, add = nullptr;
};

std::string cache_key(const ScanSpec& spec, DType in_dtype, int device) {
  std::string k = spec.name + '\0' + spec.combine + '\0' + spec.preamble + '\0';
  for (const auto& o : spec.options) k += o + '\1';
  k += static_cast<char>('A' + static_cast<int>(spec.acc));
  k += static_cast<char>('A' + static_cast<int>(in_dtype));
  return k + '@' + std::to_string(device);
}

const Kernels& kernels_for(const ScanSpec& spec, DType in_dtype) {
  static runtime::KernelMemo<std::string, Kernels> memo;   // Note [Kernel memo]
  auto& be = runtime::backend();
  return memo.get(cache_key(spec, in_dtype, be.current_device()), [&] {
    runtime::CompileRequest req;
    req.source = generate(spec, in_dtype);
    req.options = spec.options;
    req.source_name = spec.name + ".cu";
    Kernels k;
    k.module = runtime::load_module_cached(req, be.current_device());
    k.tiles = k.module->function(spec.name + "_tiles").handle;
    k.add = k.module->function(spec.name + "_add").handle;
    return k;
  });
}

}  // namespace

std::string scan_source(const ScanSpec& spec, DType in_dtype) { return generate(spec, in_dtype); }

void scan_rows(const ScanSpec& spec, const NDArray& in, const NDArray& out) {
  if (in.ndim() != 2 || out.ndim() != 2 || in.shape() != out.shape())
    throw std::invalid_argument(spec.name + ": scan_rows takes two 2-D arrays of one shape");
  if (out.dtype() != spec.acc)
    throw std::invalid_argument(spec.name + ": the output's dtype must be the accumulator's, " +
                                std::string(dtype_info(spec.acc).name));
  long long m = in.shape()[0], n = in.shape()[1];
  if (m == 0 || n == 0) return;
  const Kernels& k = kernels_for(spec, in.dtype());
  auto& be = runtime::backend();
  runtime::StreamHandle stream = runtime::current_stream();
  const void* in_ptr = in.data();
  void* out_ptr = out.data();
  long long in_rs = in.strides()[0], in_cs = in.strides()[1];
  long long out_rs = out.strides()[0], out_cs = out.strides()[1];
  const bool warp_rows = n <= kWarpTile;
  long long ntiles = warp_rows ? 1 : (n + kTile - 1) / kTile;
  std::optional<NDArray> totals;   // tile totals, then their scan (Note [Scan engine])
  void* totals_ptr = nullptr;
  if (ntiles > 1) {
    totals.emplace(NDArray::empty({m, ntiles}, spec.acc));
    totals_ptr = totals->data();
  }
  int warp_rows_arg = warp_rows ? 1 : 0;
  const int64_t jobs = warp_rows ? (m + kBlock / 32 - 1) / (kBlock / 32) : m * ntiles;
  void* tile_args[] = {&in_ptr, &in_rs, &in_cs, &out_ptr, &out_rs, &out_cs, &m, &n, &ntiles, &totals_ptr, &warp_rows_arg};
  be.launch(k.tiles, {grid_stride_blocks(jobs * kBlock, kBlock), 1, 1}, {kBlock, 1, 1}, 0, stream, tile_args);
  if (ntiles == 1) return;
  scan_rows(spec, *totals, *totals);
  const void* prefix_ptr = totals_ptr;
  void* add_args[] = {&out_ptr, &out_rs, &out_cs, &m, &n, &ntiles, &prefix_ptr};
  be.launch(k.add, {grid_stride_blocks(m * (n - kTile), kBlock), 1, 1}, {kBlock, 1, 1}, 0, stream, add_args);
}

}  // namespace kiln::arraycore
