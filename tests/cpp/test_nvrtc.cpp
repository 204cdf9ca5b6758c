// NVRTC through the cuda backend's compiler (no GPU needed), and the cuda
// backend's refusal to start where there is no driver or device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "runtime/backend.h"
#include "runtime/cuda/cccl_include.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/library_search.h"
#include "runtime/cuda/nvrtc_api.h"

namespace kiln::runtime {
namespace {

#define SKIP_WITHOUT_NVRTC()                                        \
  do {                                                              \
    std::string why_not;                                            \
    if (!nvrtc_available(&why_not)) GTEST_SKIP() << why_not;        \
  } while (0)

const char* const kAddSource = R"(
extern "C" __global__ void my_add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
)";

bool is_elf(const std::string& binary) {
  return binary.size() > 4 && binary.compare(0, 4, "\x7f" "ELF") == 0;
}

TEST(Nvrtc, CompilesToCubinForSm90) {
  SKIP_WITHOUT_NVRTC();
  CompiledModule m = nvrtc_compile({kAddSource, {}, {}, "add.cu"}, "sm_90");
  EXPECT_TRUE(is_elf(m.binary)) << "cubin does not start with \\x7fELF";
  EXPECT_TRUE(m.lowered_names.empty());
}

TEST(Nvrtc, ComputeArchGivesNulTerminatedPtx) {
  SKIP_WITHOUT_NVRTC();
  CompiledModule m = nvrtc_compile({kAddSource, {}, {}, "add.cu"}, "compute_90");
  ASSERT_FALSE(m.binary.empty());
  EXPECT_EQ(m.binary.back(), '\0');
  EXPECT_NE(m.binary.find(".entry my_add"), std::string::npos);
  EXPECT_NE(m.binary.find(".target sm_90"), std::string::npos);
}

TEST(Nvrtc, NameExpressionIsLoweredToMangledSymbol) {
  SKIP_WITHOUT_NVRTC();
  const char* src = R"(
template <typename T> __global__ void k(T* p) { p[threadIdx.x] = T(1); }
)";
  CompiledModule m = nvrtc_compile({src, {}, {"k<float>", "k<int>"}, "tmpl.cu"}, "sm_90");
  ASSERT_EQ(m.lowered_names.size(), 2u);
  EXPECT_EQ(m.lowered_names[0].first, "k<float>");
  EXPECT_EQ(m.lowered_names[0].second, "_Z1kIfEvPT_");
  EXPECT_EQ(m.lowered_names[1].first, "k<int>");
  EXPECT_EQ(m.lowered_names[1].second, "_Z1kIiEvPT_");
  // The symbol is in the cubin's string table.
  EXPECT_NE(m.binary.find("_Z1kIfEvPT_"), std::string::npos);
}

TEST(Nvrtc, SyntaxErrorThrowsCompileErrorWithLog) {
  SKIP_WITHOUT_NVRTC();
  const char* src =
      "extern \"C\" __global__ void broken(float* p) {\n"
      "  p[0] = 1.0f +* ;\n"
      "}\n";
  try {
    nvrtc_compile({src, {}, {}, "broken_kernel.cu"}, "sm_90");
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("broken_kernel.cu"), std::string::npos) << what;
    EXPECT_NE(e.log.find("broken_kernel.cu(2)"), std::string::npos) << e.log;
    EXPECT_NE(e.log.find("error"), std::string::npos) << e.log;
    EXPECT_NE(e.log.find("p[0] = 1.0f +* ;"), std::string::npos) << e.log;
    EXPECT_NE(what.find(e.log), std::string::npos) << "what() should carry the log";
  }
}

TEST(Nvrtc, OptionsArePassedThrough) {
  SKIP_WITHOUT_NVRTC();
  const char* src = R"(
#ifndef N
#error N is not defined
#endif
extern "C" __global__ void fill(int* p) { p[0] = N; }
)";
  EXPECT_THROW(nvrtc_compile({src, {}, {}, "opt.cu"}, "sm_90"), CompileError);
  CompiledModule m = nvrtc_compile({src, {"-DN=3"}, {}, "opt.cu"}, "compute_90");
  // The constant reaches the PTX.
  EXPECT_NE(m.binary.find(", 3;"), std::string::npos) << m.binary;
}

TEST(Nvrtc, UnknownOptionIsACompileError) {
  SKIP_WITHOUT_NVRTC();
  EXPECT_THROW(nvrtc_compile({kAddSource, {"--no-such-option"}, {}, "add.cu"}, "sm_90"),
               CompileError);
}

TEST(Nvrtc, WarningsGoToTheLog) {
  SKIP_WITHOUT_NVRTC();
  const char* src = R"(
extern "C" __global__ void warn(int* p) { int unused_variable = 3; p[0] = 1; }
)";
  CompiledModule m = nvrtc_compile({src, {}, {}, "warn.cu"}, "sm_90");
  EXPECT_TRUE(is_elf(m.binary));
  EXPECT_NE(m.log.find("unused_variable"), std::string::npos) << m.log;
}

TEST(Nvrtc, StdlibIncludeDirIsOnTheIncludePath) {
  SKIP_WITHOUT_NVRTC();
  std::string dir = ::testing::TempDir() + "kiln_nvrtc_inc";
  std::string mkdir = "mkdir -p '" + dir + "/kiln'";
  ASSERT_EQ(std::system(mkdir.c_str()), 0);
  std::ofstream(dir + "/kiln/three.h") << "#define KILN_THREE 3\n";
  std::string saved = stdlib_include_dir();
  set_stdlib_include_dir(dir);
  const char* src = R"(
#include <kiln/three.h>
extern "C" __global__ void three(int* p) { p[0] = KILN_THREE; }
)";
  EXPECT_NO_THROW(nvrtc_compile({src, {}, {}, "inc.cu"}, "sm_90"));
  set_stdlib_include_dir(saved);
}

// kiln's <curand_kernel.h> sends NVRTC on to the toolkit's (Note [CUDA
// toolkit headers]); the host backend's implementation would be an #error here.
TEST(Nvrtc, CurandKernelHeaderIsTheToolkits) {
  SKIP_WITHOUT_NVRTC();
  if (cuda::curand_include_dir(cuda::nvrtc_api()).empty()) GTEST_SKIP() << "no CUDA toolkit headers found";
  std::string saved = stdlib_include_dir();
  set_stdlib_include_dir(KILN_SOURCE_STDLIB_DIR);
  const char* src = R"(
#include <curand_kernel.h>
extern "C" __global__ void draw(float* out, unsigned long long seed) {
  curandState s;
  curand_init(seed, threadIdx.x, 0, &s);
  curandStatePhilox4_32_10_t p;
  curand_init(seed, threadIdx.x, 0, &p);
  out[threadIdx.x] = curand_uniform(&s) + curand_normal(&p);
}
)";
  EXPECT_NO_THROW(nvrtc_compile({src, {}, {}, "curand.cu"}, "compute_90"));
  set_stdlib_include_dir(saved);
}

TEST(Nvrtc, IdentityAndArchWithoutCompiling) {
  SKIP_WITHOUT_NVRTC();
  std::string id = cuda::nvrtc_identity();
  EXPECT_EQ(id.rfind("nvrtc-", 0), 0u) << id;
  EXPECT_NE(id.find('.'), std::string::npos) << id;
  const auto& archs = cuda::nvrtc_supported_archs();
  if (archs.empty()) GTEST_SKIP() << "this NVRTC cannot list its architectures";
  EXPECT_EQ(cuda::nvrtc_arch_for(9, 0), "sm_90");
  int newest = archs.back();
  // A device newer than this NVRTC gets PTX the driver can JIT.
  EXPECT_EQ(cuda::nvrtc_arch_for(99, 0), "compute_" + std::to_string(newest));
  // A minor revision NVRTC does not list reuses the same major's SASS.
  EXPECT_EQ(cuda::nvrtc_arch_for(9, 7), "sm_90");
}

TEST(Nvrtc, AddingASearchDirIsHarmless) {
  cuda::add_library_search_dir("/nonexistent/kiln/dir/");
  cuda::add_library_search_dir("");
  std::string why_not;
  bool before = nvrtc_available(&why_not);
  cuda::add_library_search_dir("/nonexistent/kiln/dir");  // duplicate: ignored
  EXPECT_EQ(nvrtc_available(nullptr), before);
}

TEST(CudaBackend, FactoryReportsWhyWithoutDriverOrDevice) {
  std::string why_not;
  std::unique_ptr<Backend> be = make_cuda_backend(&why_not);
  if (be) {
    // A machine with a GPU: the backend must answer basic questions.
    EXPECT_EQ(be->name(), "cuda");
    EXPECT_GT(be->device_count(), 0);
    GTEST_SKIP() << "a CUDA device is present";
  }
  EXPECT_FALSE(why_not.empty());
}

// RawModule(backend='nvcc'): nvcc where there is one, a CompileError saying
// where kiln looked where there is none.
TEST(Nvcc, CompilesWhereThereIsOneAndSaysWhereItLookedElse) {
  CompileRequest request{kAddSource, {}, {}, "add.cu", "nvcc"};
  bool have_nvcc = std::system("command -v nvcc > /dev/null 2>&1") == 0;
  if (have_nvcc) {
    CompiledModule m = nvcc_compile(request, "sm_90");
    EXPECT_TRUE(is_elf(m.binary));
  }
  setenv("NVCC", "/nonexistent/bin/nvcc", 1);
  EXPECT_THROW(nvcc_compile(request, "sm_90"), CompileError);
  unsetenv("NVCC");
  request.name_expressions = {"f<int>"};
  EXPECT_THROW(nvcc_compile(request, "sm_90"), InvalidArgument);
  if (!have_nvcc && !std::getenv("CUDA_PATH") && !std::getenv("CUDA_HOME")) {
    request.name_expressions.clear();
    try {
      nvcc_compile(request, "sm_90");
      if (std::system("test -x /usr/local/cuda/bin/nvcc") != 0) ADD_FAILURE() << "no nvcc, yet it compiled";
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find("nvcc was not found"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::runtime
