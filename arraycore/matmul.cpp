#include "arraycore/matmul.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "arraycore/blas.h"
#include "arraycore/copy.h"
#include "runtime/loaded_module.h"
#include "runtime/stream.h"

namespace kiln::arraycore {
namespace {

// Note [Matmul tile]: 64 x 64 outputs a block of 256 threads, 4 x 4 each,
// K in steps of 16.
constexpr int kBM = 64, kBN = 64, kBK = 16, kTM = 4, kTN = 4;
constexpr uint32_t kThreads = (kBM / kTM) * (kBN / kTN);
constexpr int64_t kMaxGridYZ = 65535;

// How one dtype is summed (Note [Matmul tile]): accumulator type and the
// four expressions of the generated Ops struct.
struct SumRule {
  const char* acc;
  const char* load;    // of `v`
  const char* mac;     // a statement on s, a, b
  const char* store;   // of `s`
};

SumRule sum_rule(DType d) {
  const SumRule real = {nullptr, "(Acc)v", "s += a * b;", "(T)s"};
  switch (d) {
    case DType::Bool: return {"bool", "v", "s = s || (a && b);", "s"};
    case DType::Int8: case DType::Int16: case DType::Int32:
    case DType::UInt8: case DType::UInt16: case DType::UInt32:
      return {"unsigned int", "(Acc)v", "s += a * b;", "(T)s"};
    case DType::Int64: case DType::UInt64: return {"unsigned long long", "(Acc)v", "s += a * b;", "(T)s"};
    case DType::Float16: return {"float", "static_cast<float>(v)", "s += a * b;", "kiln::half(s)"};
    case DType::BFloat16: return {"float", "static_cast<float>(v)", "s += a * b;", "kiln::bfloat16(s)"};
    default: return real;   // float32/64, complex64/128: summed in their own type
  }
}

std::string kernel_name(DType d) { return "kiln_matmul_" + std::string(dtype_info(d).name); }

std::string generate(DType d) {
  const SumRule r = sum_rule(d);
  const std::string t(dtype_info(d).c_type), nm = kernel_name(d);
  const std::string acc = r.acc != nullptr ? r.acc : t;
  return "#include <kiln/complex.h>\n#include <kiln/matmul.h>\n\n"
         "struct " + nm + "_ops {\n"
         "  typedef " + t + " T;\n  typedef " + acc + " Acc;\n"
         "  static __device__ Acc load(T v) { return " + r.load + "; }\n"
         "  static __device__ Acc zero() { return Acc(0); }\n"
         "  static __device__ void mac(Acc& s, Acc a, Acc b) { " + r.mac + " }\n"
         "  static __device__ T store(Acc s) { return " + r.store + "; }\n};\n\n"
         "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kThreads) + ") " + nm +
         "(const char* a, const char* b, char* c, long long m, long long n, long long k, long long a_rs, "
         "long long a_cs, long long b_rs, long long b_cs, long long c_rs, long long c_cs, long long a_bs, "
         "long long b_bs, long long c_bs) {\n"
         "  kiln::matmul::gemm_tile<" + nm + "_ops, " + std::to_string(kBM) + ", " + std::to_string(kBN) + ", " +
         std::to_string(kBK) + ", " + std::to_string(kTM) + ", " + std::to_string(kTN) +
         ">(a, b, c, m, n, k, a_rs, a_cs, b_rs, b_cs, c_rs, c_cs, a_bs, b_bs, c_bs);\n}\n";
}

runtime::FunctionHandle kernel_for(DType dtype) {
  static std::mutex mutex;
  static auto* cache = new std::unordered_map<int, std::pair<std::shared_ptr<runtime::LoadedModule>,
                                                             runtime::FunctionHandle>>;
  auto& be = runtime::backend();
  const int key = be.current_device() * kNumDTypes + static_cast<int>(dtype);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second.second;
  }
  runtime::CompileRequest req;
  req.source = generate(dtype);
  req.source_name = kernel_name(dtype) + ".cu";
  auto module = runtime::load_module_cached(req, be.current_device());
  runtime::FunctionHandle f = module->function(kernel_name(dtype)).handle;
  std::lock_guard<std::mutex> lock(mutex);
  cache->emplace(key, std::make_pair(std::move(module), f));
  return f;
}

thread_local const char* tls_last_path = "";

// The batch dimensions of a, b and c, collapsed (Note [Matmul paths]):
// `inner` is one launch, `outer` is looped over. Byte strides.
struct BatchPlan {
  struct Dim {
    int64_t size, a, b, c;
  };
  std::vector<Dim> outer;
  Dim inner{1, 0, 0, 0};
};

BatchPlan plan_batches(const NDArray& a, const NDArray& b, const NDArray& c) {
  std::vector<BatchPlan::Dim> dims;
  for (int i = 0; i < c.ndim() - 2; ++i) {
    if (c.shape()[i] == 1) continue;
    BatchPlan::Dim d{c.shape()[i], a.strides()[i], b.strides()[i], c.strides()[i]};
    if (!dims.empty()) {
      BatchPlan::Dim& p = dims.back();   // outer neighbour: merge when d continues it
      if (p.a == d.a * d.size && p.b == d.b * d.size && p.c == d.c * d.size) {
        p = {p.size * d.size, d.a, d.b, d.c};
        continue;
      }
    }
    dims.push_back(d);
  }
  BatchPlan plan;
  if (!dims.empty()) {
    plan.inner = dims.back();
    dims.pop_back();
  }
  plan.outer = std::move(dims);
  return plan;
}

// Calls f(offset_a, offset_b, offset_c) (bytes) for every outer batch index.
template <class F>
void for_each_outer(const BatchPlan& plan, F&& f) {
  std::vector<int64_t> idx(plan.outer.size(), 0);
  int64_t oa = 0, ob = 0, oc = 0;
  while (true) {
    f(oa, ob, oc);
    int d = static_cast<int>(idx.size()) - 1;
    for (; d >= 0; --d) {
      const BatchPlan::Dim& dim = plan.outer[d];
      oa += dim.a, ob += dim.b, oc += dim.c;
      if (++idx[d] < dim.size) break;
      oa -= dim.a * dim.size, ob -= dim.b * dim.size, oc -= dim.c * dim.size;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

void run_kernel(const NDArray& a, const NDArray& b, const NDArray& c) {
  const DType dtype = c.dtype();
  runtime::FunctionHandle f = kernel_for(dtype);
  auto& be = runtime::backend();
  runtime::StreamHandle stream = runtime::current_stream();
  const int nd = c.ndim();
  const long long m = c.shape()[nd - 2], n = c.shape()[nd - 1], k = a.shape()[nd - 1];
  long long a_rs = a.strides()[nd - 2], a_cs = a.strides()[nd - 1], b_rs = b.strides()[nd - 2],
            b_cs = b.strides()[nd - 1], c_rs = c.strides()[nd - 2], c_cs = c.strides()[nd - 1];
  const BatchPlan plan = plan_batches(a, b, c);
  long long a_bs = plan.inner.a, b_bs = plan.inner.b, c_bs = plan.inner.c;
  const int64_t rows_per_launch = kMaxGridYZ * kBM;
  const uint32_t grid_x = static_cast<uint32_t>((n + kBN - 1) / kBN);
  for_each_outer(plan, [&](int64_t oa, int64_t ob, int64_t oc) {
    for (int64_t z0 = 0; z0 < plan.inner.size; z0 += kMaxGridYZ) {
      const uint32_t grid_z = static_cast<uint32_t>(std::min<int64_t>(plan.inner.size - z0, kMaxGridYZ));
      for (int64_t r0 = 0; r0 < m; r0 += rows_per_launch) {
        long long rows = std::min<int64_t>(m - r0, rows_per_launch);
        const char* pa = static_cast<const char*>(a.data()) + oa + z0 * a_bs + r0 * a_rs;
        const char* pb = static_cast<const char*>(b.data()) + ob + z0 * b_bs;
        char* pc = static_cast<char*>(c.data()) + oc + z0 * c_bs + r0 * c_rs;
        long long kk = k, nn = n;
        void* args[] = {&pa,   &pb,   &pc,   &rows, &nn,   &kk,   &a_rs, &a_cs,
                        &b_rs, &b_cs, &c_rs, &c_cs, &a_bs, &b_bs, &c_bs};
        const uint32_t grid_y = static_cast<uint32_t>((rows + kBM - 1) / kBM);
        be.launch(f, {grid_x, grid_y, grid_z}, {kThreads, 1, 1}, 0, stream, args);
      }
    }
  });
  tls_last_path = "kernel";
}

// The last two axes of x as a GemmMatrix (element strides), or false when a
// stride is not a whole number of elements.
bool gemm_matrix(const NDArray& x, GemmMatrix* g) {
  const int nd = x.ndim();
  const int64_t size = static_cast<int64_t>(x.itemsize());
  if (x.strides()[nd - 2] % size != 0 || x.strides()[nd - 1] % size != 0) return false;
  *g = {x.data(), x.shape()[nd - 2], x.shape()[nd - 1], x.strides()[nd - 2] / size, x.strides()[nd - 1] / size, 0};
  return true;
}

bool batch_strides_whole(const NDArray& x) {
  for (int i = 0; i < x.ndim() - 2; ++i)
    if (x.strides()[i] % static_cast<int64_t>(x.itemsize()) != 0) return false;
  return true;
}

// x as it is if cuBLAS can read it, else a C-order copy.
NDArray blas_readable(const NDArray& x) {
  GemmMatrix g;
  if (gemm_matrix(x, &g) && blas_layout_ok(g) && batch_strides_whole(x)) return x;
  return astype(x, x.dtype(), Order::C);
}

// cuBLAS: true when every batch ran there (Note [Matmul paths]).
bool run_blas(const NDArray& a_in, const NDArray& b_in, const NDArray& c) {
  const NDArray a = blas_readable(a_in), b = blas_readable(b_in);
  GemmMatrix ga, gb, gc;
  if (!gemm_matrix(a, &ga) || !gemm_matrix(b, &gb) || !gemm_matrix(c, &gc) || !blas_layout_ok(gc) ||
      !batch_strides_whole(c))
    return false;
  const BatchPlan plan = plan_batches(a, b, c);
  const int64_t size = static_cast<int64_t>(c.itemsize());
  if (plan.inner.size > 1 && plan.inner.c == 0) return false;
  ga.batch_stride = plan.inner.a / size, gb.batch_stride = plan.inner.b / size, gc.batch_stride = plan.inner.c / size;
  bool all = true;
  for_each_outer(plan, [&](int64_t oa, int64_t ob, int64_t oc) {
    GemmMatrix xa = ga, xb = gb, xc = gc;
    xa.ptr = static_cast<const char*>(ga.ptr) + oa;
    xb.ptr = static_cast<const char*>(gb.ptr) + ob;
    xc.ptr = static_cast<const char*>(gc.ptr) + oc;
    if (all && !blas_gemm(c.dtype(), xa, xb, xc, plan.inner.size)) all = false;
  });
  if (!all) return false;
  tls_last_path = "cublas";
  return true;
}

bool has_zero_batch_stride(const NDArray& c) {
  for (int i = 0; i < c.ndim() - 2; ++i)
    if (c.shape()[i] > 1 && c.strides()[i] == 0) return true;
  return c.shape()[c.ndim() - 2] > 1 && c.strides()[c.ndim() - 2] == 0;
}

}  // namespace

const char* last_matmul_path() { return tls_last_path; }

std::string matmul_source(DType dtype) { return generate(dtype); }

void matmul_into(const NDArray& a, const NDArray& b, const NDArray& c) {
  const int nd = c.ndim();
  if (nd < 2 || a.ndim() != nd || b.ndim() != nd)
    throw std::invalid_argument("matmul_into: a, b and c need one ndim >= 2");
  if (a.dtype() != c.dtype() || b.dtype() != c.dtype())
    throw std::invalid_argument("matmul_into: a, b and c need one dtype");
  for (int i = 0; i < nd - 2; ++i)
    if (a.shape()[i] != c.shape()[i] || b.shape()[i] != c.shape()[i])
      throw std::invalid_argument("matmul_into: the batch shapes differ");
  if (a.shape()[nd - 1] != b.shape()[nd - 2] || a.shape()[nd - 2] != c.shape()[nd - 2] ||
      b.shape()[nd - 1] != c.shape()[nd - 1])
    throw std::invalid_argument("matmul_into: the matrix shapes do not fit");
  tls_last_path = "";
  if (c.size() == 0) return;
  const bool temp = shares_bytes(c, a) || shares_bytes(c, b) || has_zero_batch_stride(c);
  const NDArray target = temp ? NDArray::empty(c.shape(), c.dtype()) : c;
  const int64_t k = a.shape()[nd - 1];
  bool done = false;
  if (k > 0 && blas_usable(c.dtype(), nullptr)) {
    GemmMatrix gc;
    if (gemm_matrix(target, &gc) && blas_layout_ok(gc) && batch_strides_whole(target)) {
      done = run_blas(a, b, target);
    } else {
      NDArray tmp = NDArray::empty(c.shape(), c.dtype());
      done = run_blas(a, b, tmp);
      if (done) copy_into(tmp, target);
    }
  }
  if (!done) run_kernel(a, b, target);
  if (temp) copy_into(target, c);
}

}  // namespace kiln::arraycore
