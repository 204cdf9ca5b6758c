// The cuda backend against fake_libcuda.cpp (KILN_LIBCUDA_PATH), no GPU needed.
// Run with tests/cpp/cuda_fake/run.sh.
#include <gtest/gtest.h>
#include <dlfcn.h>
#include <cstdlib>
#include <chrono>
#include <thread>
#include "runtime/cuda/cuda_backend.h"
using namespace kiln::runtime;
static std::string g_lib;
static int& counter(const char* n) { void* h = dlopen(g_lib.c_str(), RTLD_NOW | RTLD_NOLOAD); return *static_cast<int*>(dlsym(h, n)); }
static std::unique_ptr<Backend> be_;
static Backend& be() { if (!be_) { std::string w; be_ = make_cuda_backend(&w); if (!be_) throw std::runtime_error(w); } return *be_; }

TEST(Fake, Basics) {
  EXPECT_EQ(be().name(), "cuda");
  EXPECT_EQ(be().device_count(), 2);
  auto p = be().device_properties(1);
  EXPECT_EQ(p.name, "Fake H100 #1");
  EXPECT_EQ(p.compute_capability_major, 9); EXPECT_EQ(p.multiprocessor_count, 132);
  EXPECT_EQ(p.max_shared_memory_per_block, 232448u); EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(be().target_arch(0), "sm_90");
  EXPECT_THROW(be().device_properties(2), InvalidArgument);
  EXPECT_THROW(be().set_device(-1), InvalidArgument);
  EXPECT_EQ(counter("fake_retains"), 0);  // lazy
}
TEST(Fake, ContextsPerThread) {
  void* a = be().allocate(64);
  EXPECT_EQ(counter("fake_last_ctx_dev"), 0);
  EXPECT_EQ(counter("fake_retains"), 1);
  int sets = counter("fake_set_current");
  void* b = be().allocate(64);
  EXPECT_EQ(counter("fake_set_current"), sets);  // already current
  be().set_device(1);
  EXPECT_EQ(be().current_device(), 1);
  void* c = be().allocate(64);
  EXPECT_EQ(counter("fake_last_ctx_dev"), 1);
  EXPECT_EQ(counter("fake_retains"), 2);
  std::thread t([&] { EXPECT_EQ(be().current_device(), 0); void* d = be().allocate(8); EXPECT_EQ(counter("fake_last_ctx_dev"), 0); be().deallocate(d); });
  t.join();
  be().set_device(0);
  be().deallocate(a); be().deallocate(b); be().deallocate(c);
  EXPECT_EQ(be().allocate(0), nullptr);
  EXPECT_EQ(counter("fake_retains"), 2);  // retained once per device
}
TEST(Fake, OomCarriesBytes) {
  try { be().allocate(size_t(1) << 41); FAIL(); } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested_bytes, size_t(1) << 41);
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cuMemAlloc_v2"), std::string::npos) << e.what();
  }
}
TEST(Fake, CopiesAndMemset) {
  void* d = be().allocate(16);
  be().memset_async(d, 0x41, 16, nullptr);
  char h[17] = {}; be().copy_async(h, d, 16, CopyKind::DeviceToHost, nullptr);
  EXPECT_EQ(std::string(h), std::string(16, 'A'));
  void* pinned = be().allocate_pinned(32); EXPECT_EQ(counter("fake_last_flags"), 1); be().deallocate_pinned(pinned);
  be().deallocate(d);
  auto mi = be().memory_info(); EXPECT_EQ(mi.first, 1000u); EXPECT_EQ(mi.second, 2000u);
}
TEST(Fake, StreamsEvents) {
  auto s = be().create_stream(true); EXPECT_EQ(counter("fake_last_flags"), 1);
  auto s2 = be().create_stream(false); EXPECT_EQ(counter("fake_last_flags"), 0);
  EXPECT_TRUE(be().stream_done(s));
  auto e0 = be().create_event(false); EXPECT_EQ(counter("fake_last_flags"), 2);
  auto e1 = be().create_event(true); EXPECT_EQ(counter("fake_last_flags"), 0);
  auto e2 = be().create_event(true);
  be().record_event(e1, s); be().record_event(e2, s); be().stream_wait_event(s2, e1);
  EXPECT_TRUE(be().event_done(e1));
  EXPECT_FLOAT_EQ(be().elapsed_ms(e1, e2), 1.5f);
  EXPECT_THROW(be().elapsed_ms(e0, e2), Error);
  be().destroy_event(e0); be().destroy_event(e1); be().destroy_event(e2);
  be().destroy_stream(s); be().destroy_stream(s2); be().destroy_stream(nullptr);
  be().synchronize_device();
}
TEST(Fake, ModulesAndLaunch) {
  CompiledModule cm; cm.binary = std::string("\x7f" "ELF....", 8);
  auto m = be().load_module(cm);
  EXPECT_THROW(be().get_function(m, "nope"), NotFound);
  auto f = be().get_function(m, "my_add");
  auto pi = be().param_info(f);
  ASSERT_EQ(pi.size(), 4u); EXPECT_EQ(pi[0].size, 8u); EXPECT_EQ(pi[3].size, 4u);
  int x = 0; void* args[] = {&x};
  int launches = counter("fake_launches");
  be().launch(f, {1,1,1}, {32,1,1}, 0, nullptr, args);
  EXPECT_EQ(counter("fake_launches"), launches + 1);
  try { be().launch(f, {1,1,1}, {1025,1,1}, 0, nullptr, args); FAIL(); } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'my_add'"), std::string::npos) << e.what(); }
  EXPECT_THROW(be().launch(f, {0,1,1}, {1,1,1}, 0, nullptr, args), InvalidArgument);
  try { be().launch(f, {1,1,1}, {999,1,1}, 0, nullptr, args); FAIL(); } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("my_add"), std::string::npos) << e.what(); }
  auto big = be().get_function(m, "big");
  be().launch(big, {1,1,1}, {32,1,1}, 100000, nullptr, args);
  be().launch(big, {1,1,1}, {32,1,1}, 100000, nullptr, args);
  be().launch(big, {1,1,1}, {32,1,1}, 60000, nullptr, args);
  EXPECT_EQ(counter("fake_setattr"), 1);
  be().launch(big, {1,1,1}, {32,1,1}, 200000, nullptr, args);
  EXPECT_EQ(counter("fake_setattr"), 2);
  EXPECT_THROW(be().launch(big, {1,1,1}, {32,1,1}, 300000, nullptr, args), InvalidArgument);
  be().unload_module(m);
  CompiledModule bad; bad.binary = "garbage";
  try { be().load_module(bad); FAIL(); } catch (const Error& e) { EXPECT_NE(std::string(e.what()).find("NO_BINARY_FOR_GPU"), std::string::npos) << e.what(); }
}
TEST(Fake, ModuleFromFile) {
  std::string p = ::testing::TempDir() + "k.ptx"; FILE* f = fopen(p.c_str(), "w"); fputs("// ptx", f); fclose(f);
  auto cm = be().module_from_file(p); EXPECT_EQ(cm.binary, std::string("// ptx\0", 7));
  EXPECT_THROW(be().module_from_file("/nonexistent.cubin"), Error);
}
TEST(Fake, WarmLaunchCost) {
  CompiledModule cm; cm.binary = std::string("\x7f" "ELF....", 8);
  auto m = be().load_module(cm); auto f = be().get_function(m, "my_add");
  int x = 0; void* args[] = {&x};
  auto t0 = std::chrono::steady_clock::now();
  const int N = 1000000;
  for (int i = 0; i < N; ++i) be().launch(f, {1,1,1}, {32,1,1}, 0, nullptr, args);
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / N;
  printf("warm launch overhead incl. fake cuLaunchKernel: %.1f ns\n", ns);
  EXPECT_LT(ns, 300);
}
int main(int argc, char** argv) {
  const char* lib = std::getenv("KILN_FAKE_LIBCUDA");
  g_lib = lib ? lib : "./libfakecuda.so";
  setenv("KILN_LIBCUDA_PATH", g_lib.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
TEST(Fake, KernelAttributesAndGlobals) {
  CompiledModule cm; cm.binary = "\x7f" "ELF fake";
  ModuleHandle m = be().load_module(cm);
  FunctionHandle f = be().get_function(m, "big");
  EXPECT_EQ(be().function_attribute(f, FunctionAttribute::MaxThreadsPerBlock), 1024);
  EXPECT_EQ(be().function_attribute(f, FunctionAttribute::NumRegs), 18);
  be().set_function_attribute(f, FunctionAttribute::MaxDynamicSharedSizeBytes, 100000);
  EXPECT_EQ(be().function_attribute(f, FunctionAttribute::MaxDynamicSharedSizeBytes), 100000);
  int before = counter("fake_setattr");
  void* args[4] = {};
  be().launch(f, {1, 1, 1}, {32, 1, 1}, 90000, nullptr, args);  // within the limit just set: no new opt-in
  EXPECT_EQ(counter("fake_setattr"), before);
  EXPECT_THROW(be().set_function_attribute(f, FunctionAttribute::MaxDynamicSharedSizeBytes, 1 << 20), InvalidArgument);
  EXPECT_THROW(be().set_function_attribute(f, FunctionAttribute::NumRegs, 1), InvalidArgument);
  auto [ptr, bytes] = be().module_global(m, "table");
  EXPECT_NE(ptr, nullptr); EXPECT_EQ(bytes, 32u);
  EXPECT_THROW(be().module_global(m, "nope"), NotFound);
  be().unload_module(m);
}
