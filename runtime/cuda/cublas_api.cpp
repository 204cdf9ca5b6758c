// Finds libcublas with dlopen and resolves the entry points of CublasApi
// (Note [cuBLAS loading] in cublas_api.h); per-thread, per-device handles.
#include "runtime/cuda/cublas_api.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <vector>

#include "runtime/cuda/library_search.h"
#include "runtime/errors.h"

namespace kiln::runtime::cuda {
namespace {

const LibraryCandidates kCublas{"KILN_CUBLAS_PATH", true, {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}};

// Resolves CublasApi's entry points from `lib`: "" or the first missing one.
std::string bind(void* lib, CublasApi& out) {
  std::string missing;
  resolve_symbol(lib, "cublasCreate_v2", out.create, &missing);
  resolve_symbol(lib, "cublasSetStream_v2", out.set_stream, &missing);
  resolve_symbol(lib, "cublasSetMathMode", out.set_math_mode, &missing);
  resolve_symbol(lib, "cublasGetVersion_v2", out.get_version, &missing);
  resolve_symbol(lib, "cublasGetStatusString", out.get_status_string, nullptr);  // optional
  resolve_symbol(lib, "cublasGemmEx", out.gemm_ex, &missing);
  resolve_symbol(lib, "cublasGemmStridedBatchedEx", out.gemm_strided_batched_ex, &missing);
  static const char* const kBatched[4][2] = {{"cublasSgetrfBatched", "cublasSgetrsBatched"},
                                             {"cublasDgetrfBatched", "cublasDgetrsBatched"},
                                             {"cublasCgetrfBatched", "cublasCgetrsBatched"},
                                             {"cublasZgetrfBatched", "cublasZgetrsBatched"}};
  for (int p = 0; p < 4; ++p) {   // optional (Note [Batched primitives] in arraycore/solver.cpp)
    resolve_symbol(lib, kBatched[p][0], out.getrf_batched[p], nullptr);
    resolve_symbol(lib, kBatched[p][1], out.getrs_batched[p], nullptr);
  }
  return missing;
}

// Per OS thread: device -> handle. Handles are never destroyed.
thread_local std::unordered_map<int, CublasHandle>* tls_handles = nullptr;

}  // namespace

const CublasApi* load_cublas_api(std::string* why_not) {
  static auto* loader = new LibraryLoader<CublasApi>(kCublas, bind, "cuBLAS (libcublas) was not found");
  return loader->load(why_not);
}

std::string describe_cublas_status(const CublasApi& api, CublasStatus status) {
  const char* text = api.get_status_string ? api.get_status_string(status) : nullptr;
  return text ? std::string(text) : "cuBLAS status " + std::to_string(status);
}

CublasHandle cublas_handle_for_current_thread(const CublasApi& api, int device) {
  make_primary_context_current(device);
  if (!tls_handles) tls_handles = new std::unordered_map<int, CublasHandle>;  // never freed: see header
  auto it = tls_handles->find(device);
  if (it != tls_handles->end()) return it->second;
  CublasHandle h = nullptr;
  CublasStatus st = api.create(&h);
  if (st != kCublasSuccess) throw Error("cublasCreate_v2 failed: " + describe_cublas_status(api, st));
  // Full precision by default (Note [TF32] in arraycore/blas.h): the compute
  // type of each call decides; the handle's math mode stays the default.
  st = api.set_math_mode(h, kCublasDefaultMath);
  if (st != kCublasSuccess) throw Error("cublasSetMathMode failed: " + describe_cublas_status(api, st));
  tls_handles->emplace(device, h);
  return h;
}

}  // namespace kiln::runtime::cuda
