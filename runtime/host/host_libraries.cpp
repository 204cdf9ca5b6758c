// The host backend's Libraries (Note [Libraries] in runtime/libraries.h):
// kiln has no BLAS, LAPACK or FFT for the CPU in C++, so each says why it is
// unavailable and the callers take their other paths (kiln's own matmul
// kernel, SciPy's LAPACK, numpy.fft); except the cuSOLVER test double.
#include <cstdlib>
#include <string_view>

#include "runtime/cuda/cuda_libraries.h"
#include "runtime/host/host_backend.h"
#include "runtime/libraries.h"

namespace kiln::runtime {
namespace {

// Note [cuSOLVER test double]
// On the host backend arrays live in host memory, so a library with
// cuSOLVER's entry points that works on host memory can stand in for
// cuSOLVER there: tests/cpp/cuda_fake/fake_libcusolver.cpp, over reference
// LAPACK. With KILN_TEST_HOST_CUSOLVER=1 (and KILN_CUSOLVER_PATH naming that
// library) the host backend's solver is the cuda provider's over host memory
// (runtime/cuda/cuda_libraries.h, host_memory_solver), so the tests
// exercise arraycore/solver.cpp's argument plumbing (leading dimensions,
// offsets, jobs, workspaces, result layouts, the int64 infos) and the cuda
// provider's without a GPU. Read at each call. Never set it with a real
// libcusolver, which needs device memory.
bool host_test_double() {
  const char* v = std::getenv("KILN_TEST_HOST_CUSOLVER");
  return v && std::string_view(v) == "1";
}

class HostLibraries final : public Libraries {
 public:
  BlasLibrary* blas(std::string* why_not) override {
    if (why_not) *why_not = "the backend is host, not cuda";
    return nullptr;
  }
  SolverLibrary* solver(std::string* why_not) override {
    if (host_test_double()) return cuda::host_memory_solver(why_not);
    if (why_not) *why_not = "the backend is host; cuSOLVER runs on the cuda backend only";
    return nullptr;
  }
  FftLibrary* fft(std::string* why_not) override {
    if (why_not) *why_not = "the backend is host, not cuda";
    return nullptr;
  }
};

}  // namespace

Libraries& host_libraries() {
  static auto* libraries = new HostLibraries;  // never destroyed, as every backend's
  return *libraries;
}

}  // namespace kiln::runtime
