// Finds libcusolver with dlopen and resolves the entry points of CusolverApi
// (Note [cuSOLVER loading] in cusolver_api.h); per-thread, per-device
// handles.
#include "runtime/cuda/cusolver_api.h"

#include <unordered_map>

#include "runtime/cuda/library_search.h"
#include "runtime/errors.h"

namespace kiln::runtime::cuda {
namespace {

const LibraryCandidates kCusolver{
    "KILN_CUSOLVER_PATH", true, {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"}};

// Resolves CusolverApi's entry points from `lib`: "" or the first missing one.
std::string bind(void* lib, CusolverApi& out) {
  std::string missing;
  resolve_symbol(lib, "cusolverDnCreate", out.create, &missing);
  resolve_symbol(lib, "cusolverDnSetStream", out.set_stream, &missing);
  resolve_symbol(lib, "cusolverDnCreateParams", out.create_params, &missing);
  resolve_symbol(lib, "cusolverGetVersion", out.get_version, nullptr);  // optional
  resolve_symbol(lib, "cusolverDnXgetrf_bufferSize", out.xgetrf_buffer_size, &missing);
  resolve_symbol(lib, "cusolverDnXgetrf", out.xgetrf, &missing);
  resolve_symbol(lib, "cusolverDnXgetrs", out.xgetrs, &missing);
  resolve_symbol(lib, "cusolverDnXpotrf_bufferSize", out.xpotrf_buffer_size, &missing);
  resolve_symbol(lib, "cusolverDnXpotrf", out.xpotrf, &missing);
  static const char* const kPotrfBatched[4] = {"cusolverDnSpotrfBatched", "cusolverDnDpotrfBatched",
                                               "cusolverDnCpotrfBatched", "cusolverDnZpotrfBatched"};
  for (int p = 0; p < 4; ++p) resolve_symbol(lib, kPotrfBatched[p], out.potrf_batched[p], nullptr);  // optional
  resolve_symbol(lib, "cusolverDnXgeqrf_bufferSize", out.xgeqrf_buffer_size, &missing);
  resolve_symbol(lib, "cusolverDnXgeqrf", out.xgeqrf, &missing);
  resolve_symbol(lib, "cusolverDnXgesvd_bufferSize", out.xgesvd_buffer_size, &missing);
  resolve_symbol(lib, "cusolverDnXgesvd", out.xgesvd, &missing);
  resolve_symbol(lib, "cusolverDnXsyevd_bufferSize", out.xsyevd_buffer_size, &missing);
  resolve_symbol(lib, "cusolverDnXsyevd", out.xsyevd, &missing);
  static const char* const kOrgqr[4][2] = {{"cusolverDnSorgqr_bufferSize", "cusolverDnSorgqr"},
                                           {"cusolverDnDorgqr_bufferSize", "cusolverDnDorgqr"},
                                           {"cusolverDnCungqr_bufferSize", "cusolverDnCungqr"},
                                           {"cusolverDnZungqr_bufferSize", "cusolverDnZungqr"}};
  for (int p = 0; p < 4; ++p) {
    resolve_symbol(lib, kOrgqr[p][0], out.orgqr_buffer_size[p], &missing);
    resolve_symbol(lib, kOrgqr[p][1], out.orgqr[p], &missing);
  }
  resolve_symbol(lib, "cusolverDnXgeev_bufferSize", out.xgeev_buffer_size, nullptr);  // optional: CUDA 12.6+
  resolve_symbol(lib, "cusolverDnXgeev", out.xgeev, nullptr);                        // optional: CUDA 12.6+
  return missing;
}

// Per OS thread: device -> context. Never destroyed.
thread_local std::unordered_map<int, CusolverContext>* tls_contexts = nullptr;

}  // namespace

const CusolverApi* load_cusolver_api(std::string* why_not) {
  static auto* loader = new LibraryLoader<CusolverApi>(kCusolver, bind, "cuSOLVER (libcusolver) was not found");
  return loader->load(why_not);
}

std::string describe_cusolver_status(CusolverStatus status) {
  // cusolver_common.h's names; cuSOLVER has no function that spells them.
  switch (status) {
    case 0: return "CUSOLVER_STATUS_SUCCESS";
    case 1: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case 2: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case 3: return "CUSOLVER_STATUS_INVALID_VALUE";
    case 4: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case 5: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case 6: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case 7: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case 8: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case 9: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case 10: return "CUSOLVER_STATUS_ZERO_PIVOT";
    case 11: return "CUSOLVER_STATUS_INVALID_LICENSE";
    case 31: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "cuSOLVER status " + std::to_string(status);
  }
}

CusolverContext cusolver_context_for_current_thread(const CusolverApi& api, int device) {
  make_primary_context_current(device);
  if (!tls_contexts) tls_contexts = new std::unordered_map<int, CusolverContext>;  // never freed: see header
  auto it = tls_contexts->find(device);
  if (it != tls_contexts->end()) return it->second;
  CusolverContext ctx;
  CusolverStatus st = api.create(&ctx.handle);
  if (st != kCusolverSuccess) throw Error("cusolverDnCreate failed: " + describe_cusolver_status(st));
  st = api.create_params(&ctx.params);
  if (st != kCusolverSuccess) throw Error("cusolverDnCreateParams failed: " + describe_cusolver_status(st));
  tls_contexts->emplace(device, ctx);
  return ctx;
}

}  // namespace kiln::runtime::cuda
