// Backend traits (runtime/backend.h, Note [Backend traits]) and the host
// backend's Libraries (runtime/libraries.h, Note [Libraries]): no BLAS,
// solver or FFT, each saying why, except the cuSOLVER test double when it is
// asked for (Note [cuSOLVER test double] in runtime/host/host_libraries.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "runtime/backend.h"
#include "runtime/host/host_backend.h"
#include "runtime/libraries.h"

namespace kiln::runtime {
namespace {

// Sets (or, with nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(BackendCaps, HostBackend) {
  std::unique_ptr<Backend> be = make_host_backend();
  const BackendCaps& c = be->caps();
  EXPECT_TRUE(c.host_addressable);
  EXPECT_FALSE(c.cuda_interop);
  EXPECT_FALSE(c.concurrent_streams);
  EXPECT_TRUE(c.runs_kernels_on_calling_thread);
  EXPECT_TRUE(c.one_module_per_source);
  EXPECT_FALSE(c.multiprocessor_residency);
  EXPECT_FALSE(c.vendor_libraries);
  EXPECT_EQ(&be->libraries(), &host_libraries());
}

TEST(Libraries, HostHasNoneAndSaysWhy) {
  ScopedEnv no_double("KILN_TEST_HOST_CUSOLVER", nullptr);
  Libraries& libs = host_libraries();
  std::string why;
  EXPECT_EQ(libs.blas(&why), nullptr);
  EXPECT_EQ(why, "the backend is host, not cuda");
  why.clear();
  EXPECT_EQ(libs.fft(&why), nullptr);
  EXPECT_EQ(why, "the backend is host, not cuda");
  why.clear();
  EXPECT_EQ(libs.solver(&why), nullptr);
  EXPECT_EQ(why, "the backend is host; cuSOLVER runs on the cuda backend only");
  EXPECT_EQ(libs.solver(nullptr), nullptr);   // why_not is optional
}

TEST(Libraries, TestDoubleNeedsItsLibrary) {
  ScopedEnv on("KILN_TEST_HOST_CUSOLVER", "1");
  ScopedEnv path("KILN_CUSOLVER_PATH", "/nonexistent/libcusolver-double.so");
  std::string why;
  EXPECT_EQ(host_libraries().solver(&why), nullptr);
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(why.find("cuda backend only"), std::string::npos);   // the double's answer, not the refusal
}

}  // namespace
}  // namespace kiln::runtime
