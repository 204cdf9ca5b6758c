// The host backend end to end: CUDA C++ source compiled by the system C++
// compiler, loaded, and launched with every GPU thread as a fiber.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/host/host_backend.h"
#include "tests/cpp/host_kernel_fixture.h"

namespace kiln::runtime {
namespace {

using HostBackendTest = testing::HostKernelTest;

constexpr const char* kAdd = R"(
extern "C" __global__ void my_add(const float* x1, const float* x2, float* y) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  y[tid] = x1[tid] + x2[tid];
}
)";

TEST_F(HostBackendTest, AddsTwentyFiveFloats) {
  ModuleHandle m = load(kAdd);
  FunctionHandle f = be_->get_function(m, "my_add");
  float *x1 = alloc<float>(25), *x2 = alloc<float>(25), *y = alloc<float>(25);
  for (int i = 0; i < 25; ++i) {
    x1[i] = static_cast<float>(i);
    x2[i] = static_cast<float>(10 * i) + 0.5f;
    y[i] = -1.0f;
  }
  void* args[] = {&x1, &x2, &y};
  be_->launch(f, {5, 1, 1}, {5, 1, 1}, 0, nullptr, args);
  for (int i = 0; i < 25; ++i) EXPECT_EQ(y[i], static_cast<float>(11 * i) + 0.5f) << i;
  be_->deallocate(x1);
  be_->deallocate(x2);
  be_->deallocate(y);
}

TEST_F(HostBackendTest, BlockTreeReductionWithSharedMemoryIsExact) {
  ModuleHandle m = load(R"(
extern "C" __global__ void block_sum(const int* x, int* out) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
)");
  FunctionHandle f = be_->get_function(m, "block_sum");
  const int blocks = 6;
  int* x = alloc<int>(1024 * blocks);
  int* out = alloc<int>(blocks);
  for (int i = 0; i < 1024 * blocks; ++i) x[i] = i;
  void* args[] = {&x, &out};
  be_->launch(f, {blocks, 1, 1}, {1024, 1, 1}, 0, nullptr, args);
  for (int b = 0; b < blocks; ++b) {
    long long expect = 0;
    for (int i = 0; i < 1024; ++i) expect += 1024LL * b + i;
    EXPECT_EQ(out[b], expect) << "block " << b;
  }
  be_->deallocate(x);
  be_->deallocate(out);
}

TEST_F(HostBackendTest, DynamicSharedMemorySizedAtLaunch) {
  ModuleHandle m = load(R"(
extern "C" __global__ void reverse_blocks(const double* x, double* y) {
  extern __shared__ double buf[];
  unsigned t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
  buf[t] = x[base + t];
  __syncthreads();
  y[base + t] = buf[n - 1 - t];
}
)");
  FunctionHandle f = be_->get_function(m, "reverse_blocks");
  const int n = 200, blocks = 3;
  double* x = alloc<double>(n * blocks);
  double* y = alloc<double>(n * blocks);
  for (int i = 0; i < n * blocks; ++i) x[i] = i * 1.5;
  void* args[] = {&x, &y};
  be_->launch(f, {blocks, 1, 1}, {n, 1, 1}, n * sizeof(double), nullptr, args);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < n; ++t) EXPECT_EQ(y[b * n + t], (b * n + n - 1 - t) * 1.5) << b << "," << t;
  be_->deallocate(x);
  be_->deallocate(y);
}

TEST_F(HostBackendTest, AtomicsUnderContentionAreExact) {
  ASSERT_NE(be_->device_properties(0).name.find("4 "), std::string::npos)
      << be_->device_properties(0).name;
  ModuleHandle m = load(R"(
extern "C" __global__ void count(int* ci, float* cf, unsigned long long* cu, double* cd,
                                 int* mx, int* mn, unsigned* bits) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ int local;
  if (threadIdx.x == 0) local = 0;
  __syncthreads();
  atomicAdd(&local, 2);
  atomicAdd(ci, 1);
  atomicAdd(cf, 1.0f);
  atomicAdd(cu, 3ull);
  atomicAdd(cd, 0.5);
  atomicMax(mx, gid);
  atomicMin(mn, gid);
  atomicOr(bits, 1u << (blockIdx.x % 32));
  __syncthreads();
  if (threadIdx.x == 0) atomicSub(ci, local);
}
)");
  FunctionHandle f = be_->get_function(m, "count");
  int* ci = alloc<int>(1);
  float* cf = alloc<float>(1);
  auto* cu = alloc<unsigned long long>(1);
  double* cd = alloc<double>(1);
  int *mx = alloc<int>(1), *mn = alloc<int>(1);
  unsigned* bits = alloc<unsigned>(1);
  *ci = 0, *cf = 0, *cu = 0, *cd = 0, *mx = -1, *mn = 1 << 30, *bits = 0;
  void* args[] = {&ci, &cf, &cu, &cd, &mx, &mn, &bits};
  be_->launch(f, {64, 1, 1}, {256, 1, 1}, 0, nullptr, args);
  // Each block adds 256 and then subtracts its shared total (2 * 256).
  EXPECT_EQ(*ci, 64 * 256 - 64 * 512);
  EXPECT_EQ(*cf, 16384.0f);
  EXPECT_EQ(*cu, 3ull * 16384);
  EXPECT_EQ(*cd, 8192.0);
  EXPECT_EQ(*mx, 16383);
  EXPECT_EQ(*mn, 0);
  EXPECT_EQ(*bits, 0xffffffffu);
  for (void* p : {(void*)ci, (void*)cf, (void*)cu, (void*)cd, (void*)mx, (void*)mn, (void*)bits})
    be_->deallocate(p);
}

TEST_F(HostBackendTest, AtomicCasIncDecExch) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k(int* lock_sum, unsigned* inc, unsigned* dec, int* cas, int* last) {
  // A spin-lock built from atomicCAS/atomicExch guarding a plain add.
  if (threadIdx.x % 32 == 0) {
    while (atomicCAS(&lock_sum[0], 0, 1) != 0) {}
    lock_sum[1] += 1;
    __threadfence();
    atomicExch(&lock_sum[0], 0);
  }
  atomicInc(inc, 9u);
  atomicDec(dec, 9u);
  atomicCAS(cas, 7, 8);
  atomicExch(last, 5);
}
)");
  FunctionHandle f = be_->get_function(m, "k");
  int* lock_sum = alloc<int>(2);
  unsigned *inc = alloc<unsigned>(1), *dec = alloc<unsigned>(1);
  int *cas = alloc<int>(1), *last = alloc<int>(1);
  lock_sum[0] = lock_sum[1] = 0, *inc = 0, *dec = 0, *cas = 7, *last = 0;
  void* args[] = {&lock_sum, &inc, &dec, &cas, &last};
  be_->launch(f, {16, 1, 1}, {64, 1, 1}, 0, nullptr, args);  // 1024 threads, 32 lock holders
  EXPECT_EQ(lock_sum[0], 0);
  EXPECT_EQ(lock_sum[1], 32);
  EXPECT_EQ(*inc, 1024u % 10u);  // wraps to 0 after 9
  EXPECT_EQ(*dec, (10u - 1024u % 10u) % 10u);
  EXPECT_EQ(*cas, 8);
  EXPECT_EQ(*last, 5);
  for (void* p : {(void*)lock_sum, (void*)inc, (void*)dec, (void*)cas, (void*)last}) be_->deallocate(p);
}

TEST_F(HostBackendTest, WarpShuffleReductionAndBallot) {
  ModuleHandle m = load(R"(
extern "C" __global__ void warp_ops(const float* x, float* sums, unsigned* ballots, int* xors,
                                    double* ups, int* votes) {
  unsigned t = threadIdx.x, lane = t % warpSize, warp = t / warpSize;
  float v = x[t];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) sums[warp] = v;
  unsigned b = __ballot_sync(0xffffffffu, (t % 3) == 0);
  if (lane == 0) ballots[warp] = b;
  xors[t] = __shfl_xor_sync(0xffffffffu, (int)t, 1);
  ups[t] = __shfl_up_sync(0xffffffffu, (double)t * 2.0, 1, 16);
  int all = __all_sync(0xffffffffu, x[t] >= 0.0f);
  int any = __any_sync(0xffffffffu, t == 40);
  int bcast = __shfl_sync(0xffffffffu, (int)t, 5);
  if (lane == 0) { votes[warp * 3] = all; votes[warp * 3 + 1] = any; votes[warp * 3 + 2] = bcast; }
}
)");
  FunctionHandle f = be_->get_function(m, "warp_ops");
  const int n = 64;
  float* x = alloc<float>(n);
  float* sums = alloc<float>(2);
  unsigned* ballots = alloc<unsigned>(2);
  int* xors = alloc<int>(n);
  double* ups = alloc<double>(n);
  int* votes = alloc<int>(6);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i + 1);
  void* args[] = {&x, &sums, &ballots, &xors, &ups, &votes};
  be_->launch(f, {1, 1, 1}, {n, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(sums[0], 528.0f);   // 1 + ... + 32
  EXPECT_EQ(sums[1], 1552.0f);  // 33 + ... + 64
  for (int w = 0; w < 2; ++w) {
    unsigned expect = 0;
    for (int l = 0; l < 32; ++l)
      if ((w * 32 + l) % 3 == 0) expect |= 1u << l;
    EXPECT_EQ(ballots[w], expect) << w;
  }
  for (int t = 0; t < n; ++t) {
    EXPECT_EQ(xors[t], t ^ 1) << t;
    double expect_up = (t % 16 == 0) ? t * 2.0 : (t - 1) * 2.0;  // lane 0 of each 16-wide segment keeps its own
    EXPECT_EQ(ups[t], expect_up) << t;
  }
  EXPECT_EQ(votes[0], 1);
  EXPECT_EQ(votes[1], 0);
  EXPECT_EQ(votes[2], 5);
  EXPECT_EQ(votes[3], 1);
  EXPECT_EQ(votes[4], 1);
  EXPECT_EQ(votes[5], 37);
  for (void* p : {(void*)x, (void*)sums, (void*)ballots, (void*)xors, (void*)ups, (void*)votes})
    be_->deallocate(p);
}

TEST_F(HostBackendTest, WarpOperationsWithPartialMasksInDivergentCode) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k(int* out) {
  unsigned lane = threadIdx.x % 32;
  if (lane >= 24) return;                        // lanes 24..31 exit early
  int v = lane;
  if (lane < 16) {                               // only the low half takes part
    for (int off = 8; off > 0; off /= 2) v += __shfl_down_sync(0xffffu, v, off);
    if (lane == 0) out[0] = v;
  } else {
    unsigned hi = __ballot_sync(0xffff0000u, lane % 2 == 0);  // lanes 16..23 live
    if (lane == 16) out[1] = (int)hi;
  }
  __syncwarp();
  if (lane == 0) {
    out[2] = (int)__activemask();
  }
  int total = __reduce_add_sync(0xffffffffu, (int)lane);
  unsigned same = __match_any_sync(0xffffffffu, lane / 8);
  if (lane == 9) { out[3] = total; out[4] = (int)same; }
}
)");
  int* out = alloc<int>(5);
  std::memset(out, 0, 5 * sizeof(int));
  void* args[] = {&out};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {32, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(out[0], 120);                 // 0 + 1 + ... + 15
  EXPECT_EQ(out[1], 0x00550000);          // even lanes among 16..23
  EXPECT_EQ(out[2], 0x00ffffff);          // lanes 0..23 have not exited
  EXPECT_EQ(out[3], 276);                 // 0 + ... + 23
  EXPECT_EQ(out[4], 0x0000ff00);          // lanes 8..15 share lane / 8 == 1
  be_->deallocate(out);
}

TEST_F(HostBackendTest, SyncthreadsCountAndExitedThreadsCountAsArrived) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k(int* out) {
  int c = __syncthreads_count(threadIdx.x % 4 == 0);
  int a = __syncthreads_and(threadIdx.x < 1000);
  int o = __syncthreads_or(threadIdx.x == 77);
  if (threadIdx.x >= 64) return;  // these never reach the barrier below
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) { out[0] = c; out[1] = a; out[2] = o; out[3] = s[63]; }
}
)");
  FunctionHandle f = be_->get_function(m, "k");
  int* out = alloc<int>(4);
  std::memset(out, 0xff, 4 * sizeof(int));
  void* args[] = {&out};
  be_->launch(f, {2, 1, 1}, {128, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(out[0], 32);
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], 1);
  EXPECT_EQ(out[3], 63);
  be_->deallocate(out);
}

TEST_F(HostBackendTest, MultiDimensionalIndices) {
  ModuleHandle m = load(R"(
extern "C" __global__ void ids(int* out) {
  int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  int block = (bz * gridDim.y + by) * gridDim.x + bx;
  int thread = (tz * blockDim.y + ty) * blockDim.x + tx;
  int nthreads = blockDim.x * blockDim.y * blockDim.z;
  __syncthreads();  // the indices must survive a fiber switch
  out[block * nthreads + thread] = bx * 100000 + by * 10000 + bz * 1000 + tx * 100 + ty * 10 + tz;
}
)");
  FunctionHandle f = be_->get_function(m, "ids");
  Dim3 grid{3, 2, 2}, block{4, 3, 2};
  const int total = 3 * 2 * 2 * 4 * 3 * 2;
  int* out = alloc<int>(total);
  void* args[] = {&out};
  be_->launch(f, grid, block, 0, nullptr, args);
  int i = 0;
  for (int bz = 0; bz < 2; ++bz)
    for (int by = 0; by < 2; ++by)
      for (int bx = 0; bx < 3; ++bx)
        for (int tz = 0; tz < 2; ++tz)
          for (int ty = 0; ty < 3; ++ty)
            for (int tx = 0; tx < 4; ++tx)
              EXPECT_EQ(out[i++], bx * 100000 + by * 10000 + bz * 1000 + tx * 100 + ty * 10 + tz);
  be_->deallocate(out);
}

TEST_F(HostBackendTest, PrintfIsFlushedAtLaunchEnd) {
  ModuleHandle m = load(R"(
#include <cstdio>
extern "C" __global__ void hello(int v) {
  if (threadIdx.x == 2) printf("hello from %d: v=%d\n", threadIdx.x, v);
}
)");
  FunctionHandle f = be_->get_function(m, "hello");
  int v = 42;
  void* args[] = {&v};
  ::testing::internal::CaptureStdout();
  be_->launch(f, {1, 1, 1}, {4, 1, 1}, 0, nullptr, args);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "hello from 2: v=42\n");
}

constexpr const char* kAssert = R"(
extern "C" __global__ void checked(const int* x, int n) {
  int i = threadIdx.x;
  assert(x[i] < n);
}
)";

TEST_F(HostBackendTest, AssertFailureIsALaunchErrorAndTheBackendStaysUsable) {
  ModuleHandle m = load(kAssert);
  FunctionHandle f = be_->get_function(m, "checked");
  int* x = alloc<int>(8);
  for (int i = 0; i < 8; ++i) x[i] = i;
  x[3] = 100;
  int n = 10;
  void* args[] = {&x, &n};
  try {
    be_->launch(f, {1, 1, 1}, {8, 1, 1}, 0, nullptr, args);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("kernel.cu:4: "), std::string::npos) << what;
    EXPECT_NE(what.find("checked"), std::string::npos) << what;
    EXPECT_NE(what.find("block: [0,0,0], thread: [3,0,0] Assertion `x[i] < n` failed."),
              std::string::npos)
        << what;
  }
  x[3] = 3;
  EXPECT_NO_THROW(be_->launch(f, {1, 1, 1}, {8, 1, 1}, 0, nullptr, args));
  ModuleHandle add = load(kAdd);  // and a different kernel still runs
  float *a = alloc<float>(4), *b = alloc<float>(4), *c = alloc<float>(4);
  for (int i = 0; i < 4; ++i) a[i] = b[i] = static_cast<float>(i);
  void* add_args[] = {&a, &b, &c};
  be_->launch(be_->get_function(add, "my_add"), {1, 1, 1}, {4, 1, 1}, 0, nullptr, add_args);
  EXPECT_EQ(c[3], 6.0f);
  for (void* p : {(void*)x, (void*)a, (void*)b, (void*)c}) be_->deallocate(p);
}

TEST_F(HostBackendTest, AssertInALaterBlockNamesThatBlock) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k(int bad_block) {
  __syncthreads();
  assert(!(blockIdx.x == bad_block && threadIdx.x == 3));
}
)");
  int bad = 1;
  void* args[] = {&bad};
  try {
    be_->launch(be_->get_function(m, "k"), {4, 1, 1}, {32, 1, 1}, 0, nullptr, args);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("block: [1,0,0], thread: [3,0,0] Assertion"), std::string::npos)
        << e.what();
  }
}

TEST_F(HostBackendTest, TrapIsALaunchError) {
  ModuleHandle m = load(R"(
extern "C" __global__ void k() {
  if (threadIdx.x == 1) __trap();
}
)");
  try {
    be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {4, 1, 1}, 0, nullptr, nullptr);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("trap"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("thread: [1,0,0]"), std::string::npos) << e.what();
  }
}

TEST_F(HostBackendTest, DeadlockedBarrierIsALaunchErrorNotAHang) {
  ModuleHandle m = load(R"(
// Lane 0 waits at the block barrier for lanes 1..31, which wait at the warp
// barrier for lane 0: neither can ever complete.
extern "C" __global__ void stuck(int* out) {
  if (threadIdx.x == 0) {
    __syncthreads();
    out[0] = 1;
  } else {
    __syncwarp();
  }
}
)");
  int* out = alloc<int>(1);
  void* args[] = {&out};
  try {
    be_->launch(be_->get_function(m, "stuck"), {2, 1, 1}, {64, 1, 1}, 0, nullptr, args);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("stuck"), std::string::npos) << what;
    EXPECT_NE(what.find("deadlock"), std::string::npos) << what;
    EXPECT_NE(what.find("block: ["), std::string::npos) << what;
  }
  be_->deallocate(out);
}

// Note [Host grid barrier]: every block of a cooperative launch reads what
// all the others wrote before the barrier; a block that returns early counts
// as arrived.
constexpr const char* kGridBarrier = R"(
extern "C" __global__ void grid_total(int* slots, int* totals, int early) {
  if ((int)blockIdx.x == early) return;
  if (threadIdx.x == 0) slots[blockIdx.x] = (int)blockIdx.x + 1;
  kiln_host::sync_grid();
  if (threadIdx.x == 0) {
    int total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += slots[b];
    totals[blockIdx.x] = total;
  }
}
extern "C" __global__ void trap_then_sync(int* out) {
  if (blockIdx.x == 0 && threadIdx.x == 5) __trap();
  kiln_host::sync_grid();
  out[blockIdx.x] = 1;
}
)";

TEST_F(HostBackendTest, GridBarrierOfACooperativeLaunch) {
  ModuleHandle m = load(kGridBarrier);
  const unsigned blocks = 6;
  int* slots = alloc<int>(blocks);
  int* totals = alloc<int>(blocks);
  for (int early : {-1, 3}) {
    std::fill(slots, slots + blocks, 0);
    std::fill(totals, totals + blocks, -1);
    void* args[] = {&slots, &totals, &early};
    be_->launch_cooperative(be_->get_function(m, "grid_total"), {blocks, 1, 1}, {64, 1, 1}, 0, nullptr, args);
    for (unsigned b = 0; b < blocks; ++b)
      EXPECT_EQ(totals[b], static_cast<int>(b) == early ? -1 : (early < 0 ? 21 : 17)) << "block " << b;
  }
  // An ordinary launch of several blocks cannot meet at a grid barrier.
  int early = -1;
  void* args[] = {&slots, &totals, &early};
  try {
    be_->launch(be_->get_function(m, "grid_total"), {blocks, 1, 1}, {64, 1, 1}, 0, nullptr, args);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("enable_cooperative_groups=True"), std::string::npos) << e.what();
  }
  be_->deallocate(slots);
  be_->deallocate(totals);
}

TEST_F(HostBackendTest, FailureWhileOtherBlocksWaitAtTheGridBarrierEndsTheLaunch) {
  ModuleHandle m = load(kGridBarrier);
  int* out = alloc<int>(4);
  void* args[] = {&out};
  try {
    be_->launch_cooperative(be_->get_function(m, "trap_then_sync"), {4, 1, 1}, {32, 1, 1}, 0, nullptr, args);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("trap"), std::string::npos) << e.what();
  }
  be_->deallocate(out);
}

TEST_F(HostBackendTest, CompileErrorCarriesTheCompilerLog) {
  CompileRequest req{"extern \"C\" __global__ void k(float* y) {\n  y[0] = undeclared_thing + 1;\n}\n",
                     {},
                     {},
                     "broken.cu",
                     ""};
  try {
    be_->compile(req, be_->target_arch(0));
    FAIL() << "no CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.cu"), std::string::npos) << e.what();
    EXPECT_NE(e.log.find("broken.cu:2:"), std::string::npos) << e.log;
    EXPECT_NE(e.log.find("undeclared_thing"), std::string::npos) << e.log;
    EXPECT_NE(e.log.find("y[0] = undeclared_thing + 1;"), std::string::npos) << e.log;
  }
}

TEST_F(HostBackendTest, OptionsAreTranslated) {
  ModuleHandle m = load(R"(
#ifdef GONE
#error "GONE was undefined"
#endif
extern "C" __global__ void k(int* out) { out[threadIdx.x] = SCALE * threadIdx.x + OFFSET; }
)",
                        {}, {"-DSCALE=7", "--define-macro=OFFSET=100", "-DGONE", "--undefine-macro=GONE",
                             "-arch=sm_80", "--gpu-architecture=compute_90", "--use_fast_math",
                             "-lineinfo", "--std=c++14", "-ftz=true", "--fmad=false", "-prec-div=true",
                             "--expt-relaxed-constexpr", "-default-device", "-G", "-rdc=true",
                             "-maxrregcount=32", "--device-as-default-execution-space"});
  int* out = alloc<int>(4);
  void* args[] = {&out};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {4, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(out[3], 121);
  be_->deallocate(out);
}

TEST_F(HostBackendTest, NameExpressionsInstantiateTemplateKernels) {
  ModuleHandle m = load(R"(
namespace ns {
template <class T, int N>
__global__ void scale(T* x, T by) {
  x[threadIdx.x] = x[threadIdx.x] * by + N;
}
}
template <typename T>
__global__ void twice(T* x) { x[threadIdx.x] *= 2; }
)",
                        {"ns::scale<float, 3>", "twice<int>", "ns::scale<int, 1>", "&twice<float>"});
  ASSERT_EQ(compiled_.lowered_names.size(), 4u);
  EXPECT_NO_THROW(be_->get_function(m, compiled_.lowered_names[3].second));
  EXPECT_EQ(compiled_.lowered_names[0].first, "ns::scale<float, 3>");
  EXPECT_EQ(compiled_.lowered_names[1].first, "twice<int>");
  float* xf = alloc<float>(4);
  int* xi = alloc<int>(4);
  for (int i = 0; i < 4; ++i) xf[i] = static_cast<float>(i), xi[i] = i;
  float byf = 0.5f;
  void* fargs[] = {&xf, &byf};
  be_->launch(be_->get_function(m, compiled_.lowered_names[0].second), {1, 1, 1}, {4, 1, 1}, 0,
              nullptr, fargs);
  void* iargs[] = {&xi};
  be_->launch(be_->get_function(m, compiled_.lowered_names[1].second), {1, 1, 1}, {4, 1, 1}, 0,
              nullptr, iargs);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(xf[i], i * 0.5f + 3.0f);
    EXPECT_EQ(xi[i], 2 * i);
  }
  std::vector<ParamInfo> p = be_->param_info(be_->get_function(m, compiled_.lowered_names[2].second));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].kind, ParamKind::Pointer);
  EXPECT_EQ(p[1].kind, ParamKind::SignedInt);
  EXPECT_EQ(p[1].size, 4u);
  be_->deallocate(xf);
  be_->deallocate(xi);
}

TEST_F(HostBackendTest, ParamInfoComesFromTheCppTypes) {
  ModuleHandle m = load(R"(
struct Pair { int a; double b; };
extern "C" __global__ void sig(float f, double d, const int* __restrict__ p, unsigned long long u,
                               bool b, char c, short s, unsigned char uc, Pair pr, size_t n,
                               long long ll) {}
__global__ void cpp_linkage(int* p, float v) { p[threadIdx.x] = (int)v; }
namespace outer { namespace {
__global__ void in_namespace(int* p) { p[0] = 11; }
} }
__global__ void overloaded(int* p) {}
__global__ void overloaded(float* p) {}
struct my_complex { float re, im; };
template <> struct kiln_host::param_kind<my_complex> { static constexpr unsigned char value = kiln_host::kComplex; };
extern "C" __global__ void takes_complex(my_complex z, float2 v) {}
)");
  std::vector<ParamInfo> pc = be_->param_info(be_->get_function(m, "takes_complex"));
  ASSERT_EQ(pc.size(), 2u);
  EXPECT_EQ(pc[0].kind, ParamKind::Complex);
  EXPECT_EQ(pc[0].size, 8u);
  EXPECT_EQ(pc[1].kind, ParamKind::Unknown);
  EXPECT_EQ(pc[1].size, 8u);
  std::vector<ParamInfo> p = be_->param_info(be_->get_function(m, "sig"));
  ASSERT_EQ(p.size(), 11u);
  auto expect = [&](size_t i, ParamKind kind, uint32_t size) {
    EXPECT_EQ(p[i].kind, kind) << "param " << i;
    EXPECT_EQ(p[i].size, size) << "param " << i;
  };
  expect(0, ParamKind::Float, 4);
  expect(1, ParamKind::Float, 8);
  expect(2, ParamKind::Pointer, 8);
  expect(3, ParamKind::UnsignedInt, 8);
  expect(4, ParamKind::Bool, 1);
  expect(5, ParamKind::SignedInt, 1);
  expect(6, ParamKind::SignedInt, 2);
  expect(7, ParamKind::UnsignedInt, 1);
  expect(8, ParamKind::Unknown, 16);
  expect(9, ParamKind::UnsignedInt, 8);
  expect(10, ParamKind::SignedInt, 8);
  // A non-template kernel with C++ linkage is registered under its name too.
  FunctionHandle g = be_->get_function(m, "cpp_linkage");
  int* out = alloc<int>(2);
  float v = 9.0f;
  void* args[] = {&out, &v};
  be_->launch(g, {1, 1, 1}, {2, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(out[1], 9);
  be_->launch(be_->get_function(m, "outer::in_namespace"), {1, 1, 1}, {1, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(out[0], 11);
  // An overload set is reachable only through name expressions.
  EXPECT_THROW(be_->get_function(m, "overloaded"), NotFound);
  be_->deallocate(out);
}

TEST_F(HostBackendTest, StructParametersArePassedByValue) {
  ModuleHandle m = load(R"(
struct Params { int n; float scale; double offset; };
extern "C" __global__ void k(Params p, float* y) {
  if ((int)threadIdx.x < p.n) y[threadIdx.x] = p.scale * threadIdx.x + (float)p.offset;
}
)");
  struct Params {
    int n;
    float scale;
    double offset;
  } params{3, 2.0f, 0.25};
  float* y = alloc<float>(4);
  y[3] = -1.0f;
  void* args[] = {&params, &y};
  be_->launch(be_->get_function(m, "k"), {1, 1, 1}, {4, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(y[0], 0.25f);
  EXPECT_EQ(y[2], 4.25f);
  EXPECT_EQ(y[3], -1.0f);
  be_->deallocate(y);
}

TEST_F(HostBackendTest, UnknownKernelIsNotFoundListingWhatExists) {
  ModuleHandle m = load(kAdd);
  try {
    be_->get_function(m, "my_sub");
    FAIL() << "no NotFound";
  } catch (const NotFound& e) {
    EXPECT_NE(std::string(e.what()).find("my_sub"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("my_add"), std::string::npos) << e.what();
  }
}

TEST_F(HostBackendTest, BadLaunchDimensionsAreInvalidArgument) {
  ModuleHandle m = load(kAdd);
  FunctionHandle f = be_->get_function(m, "my_add");
  try {
    be_->launch(f, {1, 1, 1}, {1025, 1, 1}, 0, nullptr, nullptr);
    FAIL() << "no InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("1025"), std::string::npos) << e.what();
  }
  EXPECT_THROW(be_->launch(f, {0, 1, 1}, {32, 1, 1}, 0, nullptr, nullptr), InvalidArgument);
  EXPECT_THROW(be_->launch(f, {1, 1, 1}, {32, 0, 1}, 0, nullptr, nullptr), InvalidArgument);
  EXPECT_THROW(be_->launch(f, {1, 1, 1}, {32, 1, 1}, 1u << 30, nullptr, nullptr), InvalidArgument);
}

TEST_F(HostBackendTest, ModuleFromFileLoadsASharedObjectWrittenToDisk) {
  load(kAdd);
  std::string path = (std::filesystem::temp_directory_path() /
                      ("kiln-test-module-" + std::to_string(getpid()) + ".so"))
                         .string();
  {
    std::ofstream out(path, std::ios::binary);
    out << compiled_.binary;
  }
  CompiledModule from_disk = be_->module_from_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(from_disk.binary, compiled_.binary);
  ModuleHandle m = be_->load_module(from_disk);
  modules_.push_back(m);
  float *a = alloc<float>(2), *b = alloc<float>(2), *c = alloc<float>(2);
  a[1] = 1.5f, b[1] = 2.0f;
  void* args[] = {&a, &b, &c};
  be_->launch(be_->get_function(m, "my_add"), {1, 1, 1}, {2, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(c[1], 3.5f);
  for (void* p : {(void*)a, (void*)b, (void*)c}) be_->deallocate(p);
  EXPECT_THROW(be_->module_from_file("/nonexistent/kiln/module.so"), Error);
  // A shared object that is not a kiln module is refused at load.
  for (const char* lib : {"/lib/x86_64-linux-gnu/libm.so.6", "/lib64/libm.so.6", "/usr/lib/libm.so.6"}) {
    if (!std::filesystem::exists(lib)) continue;
    CompiledModule foreign = be_->module_from_file(lib);
    EXPECT_THROW(be_->load_module(foreign), Error) << lib;
    break;
  }
}

TEST_F(HostBackendTest, DevicePropertiesMemoryStreamsAndEvents) {
  EXPECT_EQ(be_->name(), "host");
  EXPECT_EQ(be_->device_count(), 1);
  DeviceProperties p = be_->device_properties(0);
  EXPECT_EQ(p.name.rfind("host CPU (", 0), 0u) << p.name;
  EXPECT_EQ(p.compute_capability_major, 0);
  EXPECT_EQ(p.max_threads_per_block, 1024);
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_GE(p.max_shared_memory_per_block, 48u * 1024);
  EXPECT_GT(p.total_memory, 0u);
  EXPECT_THROW(be_->device_properties(1), InvalidArgument);
  EXPECT_THROW(be_->set_device(-1), InvalidArgument);
  EXPECT_EQ(be_->target_arch(0).rfind("host-", 0), 0u);
  EXPECT_EQ(be_->compiler_identity(), be_->compiler_identity());
  EXPECT_NE(be_->compiler_identity().find("host_kernel.h="), std::string::npos) << be_->compiler_identity();

  void* a = be_->allocate(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  StreamHandle s = be_->create_stream(true);
  StreamHandle s2 = be_->create_stream(false);
  EXPECT_NE(s, nullptr);
  EXPECT_NE(s, s2);
  be_->memset_async(a, 0x5a, 1000, s);
  std::vector<unsigned char> back(1000);
  be_->copy_async(back.data(), a, 1000, CopyKind::DeviceToHost, s);
  EXPECT_EQ(back[999], 0x5a);
  EXPECT_TRUE(be_->stream_done(s));
  EventHandle e0 = be_->create_event(true), e1 = be_->create_event(true);
  be_->record_event(e0, s);
  be_->record_event(e1, s);
  EXPECT_TRUE(be_->event_done(e1));
  EXPECT_GE(be_->elapsed_ms(e0, e1), 0.0f);
  be_->synchronize_stream(s);
  be_->destroy_event(e0);
  be_->destroy_event(e1);
  be_->destroy_stream(s);
  be_->destroy_stream(s2);
  be_->deallocate(a);
  try {
    be_->allocate(size_t{1} << 62);
    FAIL() << "no OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested_bytes, size_t{1} << 62);
    EXPECT_NE(std::string(e.what()).find(std::to_string(size_t{1} << 62)), std::string::npos) << e.what();
  }
}

TEST_F(HostBackendTest, ManyBlocksOfFullSizeRunQuickly) {
  // 256 blocks x 1024 threads x 2 barriers: the fiber switch must be cheap.
  ModuleHandle m = load(R"(
extern "C" __global__ void k(float* y) {
  __shared__ float s[1024];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  float v = s[1023 - threadIdx.x];
  __syncthreads();
  y[blockIdx.x * 1024 + threadIdx.x] = v;
}
)");
  float* y = alloc<float>(256 * 1024);
  void* args[] = {&y};
  be_->launch(be_->get_function(m, "k"), {256, 1, 1}, {1024, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(y[5 * 1024 + 1], 1022.0f);
  be_->deallocate(y);
}

// Note [Kernel attributes]: the host backend's values, and its two settable ones.
TEST_F(HostBackendTest, KernelAttributesAndModuleGlobals) {
  ModuleHandle m = load(R"(
__device__ float scale[3];
__constant__ int bias;
extern "C" __global__ void apply(float* y) { y[threadIdx.x] = y[threadIdx.x] * scale[threadIdx.x] + bias; }
)");
  FunctionHandle f = be_->get_function(m, "apply");
  EXPECT_EQ(be_->function_attribute(f, FunctionAttribute::MaxThreadsPerBlock), 1024);
  EXPECT_EQ(be_->function_attribute(f, FunctionAttribute::NumRegs), 0);
  EXPECT_EQ(be_->function_attribute(f, FunctionAttribute::PreferredSharedMemoryCarveout), -1);
  be_->set_function_attribute(f, FunctionAttribute::MaxDynamicSharedSizeBytes, 1000);
  EXPECT_EQ(be_->function_attribute(f, FunctionAttribute::MaxDynamicSharedSizeBytes), 1000);
  EXPECT_THROW(be_->set_function_attribute(f, FunctionAttribute::NumRegs, 1), InvalidArgument);
  EXPECT_THROW(be_->set_function_attribute(f, FunctionAttribute::PreferredSharedMemoryCarveout, 101),
               InvalidArgument);

  auto [scale, scale_bytes] = be_->module_global(m, "scale");
  auto [bias, bias_bytes] = be_->module_global(m, "bias");
  EXPECT_EQ(scale_bytes, 3 * sizeof(float));
  EXPECT_EQ(bias_bytes, sizeof(int));
  float values[3] = {1.0f, 2.0f, 3.0f};
  std::memcpy(scale, values, sizeof(values));
  *static_cast<int*>(bias) = 10;
  float* y = alloc<float>(3);
  for (int i = 0; i < 3; ++i) y[i] = 2.0f;
  void* args[] = {&y};
  be_->launch(f, {1, 1, 1}, {3, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(y[0], 12.0f);
  EXPECT_EQ(y[2], 16.0f);
  be_->deallocate(y);
  EXPECT_THROW(be_->module_global(m, "apply"), NotFound);   // a function, not a variable
  EXPECT_THROW(be_->module_global(m, "missing"), NotFound);
}

}  // namespace
}  // namespace kiln::runtime
