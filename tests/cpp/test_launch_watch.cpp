// The KILN_HOST_KERNEL_TIMEOUT watchdog of host launches (Note [Cancelling
// host launches], runtime/host/launch_watch.h). Ctrl-C needs Python's main
// thread: tests/python/test_hostile_inputs.py covers it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "host_kernel_fixture.h"
#include "runtime/errors.h"

namespace kiln::runtime::testing {
namespace {

class LaunchWatchTest : public HostKernelTest {
 protected:
  void TearDown() override {
    unsetenv("KILN_HOST_KERNEL_TIMEOUT");
    HostKernelTest::TearDown();
  }
};

constexpr const char* kSpin = R"(
extern "C" __global__ void spin(int* x, int* y) {
  while (((volatile int*)x)[0] == 0) {}
  y[blockIdx.x * blockDim.x + threadIdx.x] = x[0] + 1;
}
)";

TEST_F(LaunchWatchTest, TimeoutCancelsAnEndlessLaunchAndTheNextOneRuns) {
  FunctionHandle f = be_->get_function(load(kSpin), "spin");
  int* x = alloc<int>(1);
  int* y = alloc<int>(8 * 32);
  void* args[] = {&x, &y};
  setenv("KILN_HOST_KERNEL_TIMEOUT", "0.2", 1);
  for (unsigned grid : {1u, 8u}) {  // on the calling thread alone, and on the pool
    x[0] = 0;
    try {
      be_->launch(f, {grid, 1, 1}, {32, 1, 1}, 0, nullptr, args);
      FAIL() << "no LaunchError";
    } catch (const LaunchError& e) {
      EXPECT_NE(std::string(e.what()).find("kernel 'spin' failed: the launch timed out and was terminated"),
                std::string::npos)
          << e.what();
    }
    x[0] = 4;
    be_->launch(f, {8, 1, 1}, {32, 1, 1}, 0, nullptr, args);
    for (int i = 0; i < 8 * 32; ++i) ASSERT_EQ(y[i], 5) << i;
  }
  be_->deallocate(x);
  be_->deallocate(y);
}

// A cooperative launch (Note [Host grid barrier]): one block spins while the
// others wait at the grid barrier; the timeout ends them all.
TEST_F(LaunchWatchTest, TimeoutCancelsACooperativeLaunchWaitingAtTheGridBarrier) {
  FunctionHandle f = be_->get_function(load(R"(
extern "C" __global__ void spin_then_sync(int* x, int* y) {
  if (blockIdx.x == 2) while (((volatile int*)x)[0] == 0) {}
  kiln_host::sync_grid();
  y[blockIdx.x] = x[0] + 1;
}
)"), "spin_then_sync");
  int* x = alloc<int>(1);
  int* y = alloc<int>(4);
  void* args[] = {&x, &y};
  setenv("KILN_HOST_KERNEL_TIMEOUT", "0.2", 1);
  x[0] = 0;
  try {
    be_->launch_cooperative(f, {4, 1, 1}, {32, 1, 1}, 0, nullptr, args);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
  x[0] = 4;
  be_->launch_cooperative(f, {4, 1, 1}, {32, 1, 1}, 0, nullptr, args);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], 5) << i;
  be_->deallocate(x);
  be_->deallocate(y);
}

TEST_F(LaunchWatchTest, MalformedTimeoutIsInvalidArgument) {
  FunctionHandle f = be_->get_function(load(kSpin), "spin");
  int* x = alloc<int>(1);
  int* y = alloc<int>(32);
  x[0] = 1;
  void* args[] = {&x, &y};
  for (const char* bad : {"-1", "soon", "inf", "1s"}) {
    setenv("KILN_HOST_KERNEL_TIMEOUT", bad, 1);
    EXPECT_THROW(be_->launch(f, {1, 1, 1}, {32, 1, 1}, 0, nullptr, args), InvalidArgument) << bad;
  }
  setenv("KILN_HOST_KERNEL_TIMEOUT", "0", 1);  // no limit
  be_->launch(f, {1, 1, 1}, {32, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(y[0], 2);
  be_->deallocate(x);
  be_->deallocate(y);
}

}  // namespace
}  // namespace kiln::runtime::testing
