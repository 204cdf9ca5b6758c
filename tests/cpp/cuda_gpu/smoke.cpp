// End-to-end check of the cuda backend on a real GPU (H100 checked: all pass).
// Not in the CMake glob. Build on any machine with g++ and NVRTC, run on the GPU one:
//   cd build/cuda-scratch && mkdir -p gpu && g++ -std=c++20 -O2 -I../.. ../../runtime/cuda/*.cpp (continued)
//     ../../runtime/backend_select.cpp <a make_host_backend stub> ../../tests/cpp/cuda_gpu/smoke.cpp (continued)
//     -ldl -lpthread -static-libstdc++ -static-libgcc -o gpu/gpu_smoke && ./gpu/gpu_smoke compile
//   (on the GPU machine, from build/cuda-scratch) ./gpu/gpu_smoke
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/nvrtc_api.h"
using namespace kiln::runtime;
static int failures = 0;
#define CHECK(c) do { if (!(c)) { ++failures; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } else printf("ok   %s\n", #c); } while (0)
static const char* kSrc = R"(
extern "C" __global__ void my_add(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a[i] + b[i]; }
extern "C" __global__ void big(float* out) { extern __shared__ float s[]; s[threadIdx.x] = threadIdx.x;
  s[25000 - 1 - threadIdx.x] = 7.0f; __syncthreads(); out[threadIdx.x] = s[threadIdx.x] + s[25000 - 1 - threadIdx.x]; }
template <typename T> __global__ void fill(T* p, T v, int n) { int i = threadIdx.x; if (i < n) p[i] = v; }
extern "C" __global__ void empty() {}
extern "C" __global__ void boom(int* p) { __trap(); }
)";
int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "run";
  if (mode == "compile") {  // on the build machine
    auto cm = nvrtc_compile({kSrc, {}, {"fill<float>"}, "smoke.cu"}, "sm_90");
    std::ofstream("gpu/smoke.cubin", std::ios::binary) << cm.binary;
    std::ofstream("gpu/fill_name.txt") << cm.lowered_names[0].second;
    auto px = nvrtc_compile({kSrc, {}, {}, "smoke.cu"}, "compute_90");
    std::ofstream("gpu/smoke.ptx", std::ios::binary) << px.binary.substr(0, px.binary.size() - 1);
    printf("compiled\n"); return 0;
  }
  std::string why;
  auto be = make_cuda_backend(&why);
  if (!be) { printf("no backend: %s\n", why.c_str()); return 2; }
  printf("devices %d\n", be->device_count());
  auto p = be->device_properties(0);
  printf("name=%s cc=%d.%d sms=%d mtpb=%d smem_optin=%zu warp=%d total=%zu\n", p.name.c_str(), p.compute_capability_major,
         p.compute_capability_minor, p.multiprocessor_count, p.max_threads_per_block, p.max_shared_memory_per_block, p.warp_size, p.total_memory);
  CHECK(p.compute_capability_major >= 7 && p.warp_size == 32 && p.max_threads_per_block == 1024);
  printf("target_arch=%s\n", be->target_arch(0).c_str());
  std::string nv; printf("nvrtc available here: %d (%s)\n", nvrtc_available(&nv), nv.substr(0, 200).c_str());
  auto [fr, tot] = be->memory_info(); printf("mem free=%zu total=%zu\n", fr, tot); CHECK(tot > 0 && fr <= tot);
  CHECK(be->device_properties(0).total_memory == tot);
  auto m = be->load_module(be->module_from_file("gpu/smoke.cubin"));
  auto f = be->get_function(m, "my_add");
  auto pi = be->param_info(f);
  printf("param_info n=%zu:", pi.size()); for (auto& x : pi) printf(" %u", x.size); printf("\n");
  CHECK(pi.size() == 4 && pi[0].size == 8 && pi[3].size == 4);
  const int n = 1 << 20;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 2 * i; }
  void* da = be->allocate(n * 4); void* db = be->allocate(n * 4); void* dc = be->allocate(n * 4);
  auto s = be->create_stream(true);
  float* pinned = static_cast<float*>(be->allocate_pinned(n * 4));
  be->copy_async(da, a.data(), n * 4, CopyKind::HostToDevice, s);
  be->copy_async(db, b.data(), n * 4, CopyKind::HostToDevice, s);
  be->memset_async(dc, 0xff, n * 4, s);
  int nn = n; void* args[] = {&da, &db, &dc, &nn};
  auto e0 = be->create_event(true), e1 = be->create_event(true);
  be->record_event(e0, s);
  be->launch(f, {(n + 255) / 256, 1, 1}, {256, 1, 1}, 0, s, args);
  be->record_event(e1, s);
  be->copy_async(pinned, dc, n * 4, CopyKind::DeviceToHost, s);
  be->synchronize_stream(s);
  CHECK(be->stream_done(s) && be->event_done(e1));
  bool okv = true; for (int i = 0; i < n; ++i) okv &= pinned[i] == 3.0f * i; CHECK(okv);
  float ms = be->elapsed_ms(e0, e1); printf("kernel ms %.4f\n", ms); CHECK(ms >= 0);
  // D2D on the null stream
  be->copy_async(db, dc, n * 4, CopyKind::DeviceToDevice, nullptr);
  be->copy_async(c.data(), db, n * 4, CopyKind::DeviceToHost, nullptr); be->synchronize_stream(nullptr);
  CHECK(c[12345] == 3.0f * 12345);
  // stream wait event + non-timing event
  auto s2 = be->create_stream(false); auto e2 = be->create_event(false);
  be->record_event(e2, s); be->stream_wait_event(s2, e2); be->synchronize_stream(s2);
  try { be->elapsed_ms(e2, e1); CHECK(false); } catch (const Error& e) { printf("expected: %s\n", e.what()); }
  // big dynamic shared memory
  auto fb = be->get_function(m, "big"); void* bargs[] = {&dc};
  be->launch(fb, {1, 1, 1}, {256, 1, 1}, 100000, s, bargs);
  be->launch(fb, {1, 1, 1}, {256, 1, 1}, 100000, s, bargs);
  be->copy_async(c.data(), dc, 256 * 4, CopyKind::DeviceToHost, s); be->synchronize_stream(s);
  CHECK(c[5] == 12.0f && c[255] == 262.0f);
  try { be->launch(fb, {1, 1, 1}, {256, 1, 1}, 300000, s, bargs); CHECK(false); } catch (const InvalidArgument& e) { printf("expected: %s\n", e.what()); }
  // template via lowered name
  std::string lowered; std::ifstream("gpu/fill_name.txt") >> lowered;
  auto ff = be->get_function(m, lowered); float v = 4.5f; int k = 10; void* fargs[] = {&dc, &v, &k};
  be->launch(ff, {1, 1, 1}, {32, 1, 1}, 0, nullptr, fargs);
  be->copy_async(c.data(), dc, 40, CopyKind::DeviceToHost, nullptr); be->synchronize_device(); CHECK(c[9] == 4.5f);
  // errors
  try { be->get_function(m, "nope"); CHECK(false); } catch (const NotFound& e) { printf("expected: %s\n", e.what()); }
  try { be->launch(f, {1, 1, 1}, {2048, 1, 1}, 0, nullptr, args); CHECK(false); } catch (const InvalidArgument& e) { printf("expected: %s\n", e.what()); }
  try { be->launch(f, {1, 1, 1}, {1024, 1, 2}, 0, nullptr, args); CHECK(false); } catch (const InvalidArgument& e) { printf("expected: %s\n", e.what()); }
  try { be->allocate(size_t(1) << 50); CHECK(false); } catch (const OutOfMemory& e) { printf("expected: %s (%zu)\n", e.what(), e.requested_bytes); CHECK(e.requested_bytes == size_t(1) << 50); }
  try { CompiledModule bad; bad.binary = "garbage!"; be->load_module(bad); CHECK(false); } catch (const Error& e) { printf("expected: %s\n", e.what()); }
  // PTX via driver JIT
  auto mp = be->load_module(be->module_from_file("gpu/smoke.ptx"));
  auto fp = be->get_function(mp, "my_add");
  be->launch(fp, {(n + 255) / 256, 1, 1}, {256, 1, 1}, 0, nullptr, args);
  be->synchronize_device(); printf("ptx module ok\n");
  // another thread uses device 0 too
  std::thread t([&] { void* x = be->allocate(1024); be->memset_async(x, 0, 1024, nullptr); be->synchronize_device(); be->deallocate(x); });
  t.join(); CHECK(true);
  // warm launch cost
  auto fe = be->get_function(m, "empty");
  for (int i = 0; i < 1000; ++i) be->launch(fe, {1, 1, 1}, {32, 1, 1}, 0, s, nullptr);
  be->synchronize_stream(s);
  const int N = 20000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < N; ++i) be->launch(fe, {1, 1, 1}, {32, 1, 1}, 0, s, nullptr);
  auto t1 = std::chrono::steady_clock::now();
  be->synchronize_stream(s);
  printf("warm launch submit: %.2f us/launch\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / N);
  be->set_device(be->device_count() - 1); be->set_device(0);
  try { be->set_device(99); CHECK(false); } catch (const InvalidArgument& e) { printf("expected: %s\n", e.what()); }
  be->deallocate_pinned(pinned); be->deallocate(da); be->deallocate(db); be->destroy_event(e0); be->destroy_event(e1); be->destroy_event(e2);
  be->destroy_stream(s); be->destroy_stream(s2); be->unload_module(mp);
  // kernel fault last: the context is unusable afterwards
  auto fboom = be->get_function(m, "boom"); void* xargs[] = {&dc};
  be->launch(fboom, {1, 1, 1}, {1, 1, 1}, 0, nullptr, xargs);
  try { be->synchronize_device(); CHECK(false); } catch (const LaunchError& e) { printf("expected: %s\n", e.what()); }
  printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
