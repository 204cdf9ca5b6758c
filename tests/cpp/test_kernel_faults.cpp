// runtime/host/kernel_faults: the div/idiv decoder that gives the GPU's
// integer division results (Note [GPU integer division]), and faults in host
// kernels as LaunchErrors (Note [Kernel faults]).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/errors.h"
#include "runtime/host/kernel_faults.h"
#include "tests/cpp/host_kernel_fixture.h"

namespace kiln::runtime::host {
namespace {

constexpr int RAX = 0, RCX = 1, RDX = 2, RSP = 4, R8 = 8;

DivisionRegisters regs_at(const uint8_t* code) {
  DivisionRegisters r{};
  r.rip = reinterpret_cast<uint64_t>(code);
  return r;
}

TEST(GpuDivision, Int32ByZeroIsAllOnes) {
  const uint8_t idiv_ecx[] = {0xF7, 0xF9};
  DivisionRegisters r = regs_at(idiv_ecx);
  r.gpr[RAX] = 7;
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], 0xFFFFFFFFu);
  EXPECT_EQ(r.gpr[RDX], 0xFFFFFFFFu);
  EXPECT_EQ(r.rip, reinterpret_cast<uint64_t>(idiv_ecx) + 2);
}

TEST(GpuDivision, Int32MinByMinusOneWraps) {
  const uint8_t idiv_r8d[] = {0x41, 0xF7, 0xF8};
  DivisionRegisters r = regs_at(idiv_r8d);
  r.gpr[RAX] = 0x80000000u;
  r.gpr[RDX] = 0xFFFFFFFFu;  // cdq
  r.gpr[R8] = 0xFFFFFFFFu;
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], 0x80000000u);
  EXPECT_EQ(r.gpr[RDX], 0u);
  EXPECT_EQ(r.rip, reinterpret_cast<uint64_t>(idiv_r8d) + 3);
}

TEST(GpuDivision, Uint64ByZeroTakesTheThirtyTwoBitPathForSmallDividends) {
  const uint8_t div_rcx[] = {0x48, 0xF7, 0xF1};
  DivisionRegisters r = regs_at(div_rcx);
  r.gpr[RAX] = 7;
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], 0xFFFFFFFFu);
  EXPECT_EQ(r.gpr[RDX], 0xFFFFFFFFu);
  r = regs_at(div_rcx);
  r.gpr[RAX] = ~uint64_t{0};
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], ~uint64_t{0});
  EXPECT_EQ(r.gpr[RDX], ~uint64_t{0});
}

TEST(GpuDivision, Int64MinByMinusOneInMemoryThroughSib) {
  const uint8_t idiv_qword_rsp[] = {0x48, 0xF7, 0x3C, 0x24};  // idiv qword ptr [rsp]
  int64_t divisor = -1;
  DivisionRegisters r = regs_at(idiv_qword_rsp);
  r.gpr[RSP] = reinterpret_cast<uint64_t>(&divisor);
  r.gpr[RAX] = uint64_t{1} << 63;
  r.gpr[RDX] = ~uint64_t{0};  // cqo
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], uint64_t{1} << 63);
  EXPECT_EQ(r.gpr[RDX], 0u);
  EXPECT_EQ(r.rip, reinterpret_cast<uint64_t>(idiv_qword_rsp) + 4);
}

TEST(GpuDivision, RipRelativeDivisorAndDisplacement) {
  // idiv dword ptr [rip + 0]: the divisor lies right after the instruction.
  alignas(8) uint8_t code[16] = {0xF7, 0x3D, 0, 0, 0, 0};
  int32_t zero = 0;
  std::memcpy(code + 6, &zero, 4);
  DivisionRegisters r = regs_at(code);
  r.gpr[RAX] = static_cast<uint32_t>(-7);
  r.gpr[RDX] = 0xFFFFFFFFu;
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], 0xFFFFFFFFu);
  EXPECT_EQ(r.rip, reinterpret_cast<uint64_t>(code) + 6);
  // idiv dword ptr [rcx + 8] (disp8)
  const uint8_t idiv_disp8[] = {0xF7, 0x79, 0x08};
  int32_t slots[3] = {5, 5, 0};
  r = regs_at(idiv_disp8);
  r.gpr[RCX] = reinterpret_cast<uint64_t>(slots);
  r.gpr[RAX] = 3;
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], 0xFFFFFFFFu);
  EXPECT_EQ(r.rip, reinterpret_cast<uint64_t>(idiv_disp8) + 3);
}

TEST(GpuDivision, EightAndSixteenBitForms) {
  const uint8_t div_cl[] = {0xF6, 0xF1};
  DivisionRegisters r = regs_at(div_cl);
  r.gpr[RAX] = 0x1234'0007;
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], 0x1234'FFFFu);  // al = ah = 0xFF, the rest kept
  const uint8_t idiv_cx[] = {0x66, 0xF7, 0xF9};
  r = regs_at(idiv_cx);
  r.gpr[RAX] = 0x8000;
  r.gpr[RDX] = 0xABCD'FFFF;
  r.gpr[RCX] = 0xFFFF;
  ASSERT_TRUE(emulate_gpu_division(r));
  EXPECT_EQ(r.gpr[RAX], 0x8000u);
  EXPECT_EQ(r.gpr[RDX], 0xABCD'0000u);
}

TEST(GpuDivision, OtherInstructionsAreNotDecoded) {
  const uint8_t ud2[] = {0x0F, 0x0B};
  const uint8_t neg_eax[] = {0xF7, 0xD8};  // F7 /3
  DivisionRegisters r = regs_at(ud2);
  EXPECT_FALSE(emulate_gpu_division(r));
  r = regs_at(neg_eax);
  EXPECT_FALSE(emulate_gpu_division(r));
  EXPECT_EQ(r.rip, reinterpret_cast<uint64_t>(neg_eax));
}

using KernelFaultTest = testing::HostKernelTest;

TEST_F(KernelFaultTest, FaultsAreLaunchErrorsAndDivisionGivesTheGpuValues) {
  ModuleHandle m = load(R"(
extern "C" __global__ void far(int* x) { x[(1LL << 40) + threadIdx.x] = 1; }
extern "C" __global__ void divide(const int* a, const int* b, int* q) { q[threadIdx.x] = a[threadIdx.x] / b[threadIdx.x]; }
)");
  int* x = alloc<int>(4);
  void* far_args[] = {&x};
  try {
    be_->launch(be_->get_function(m, "far"), {2, 1, 1}, {4, 1, 1}, 0, nullptr, far_args);
    FAIL() << "no LaunchError";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("an illegal memory access was encountered"), std::string::npos)
        << e.what();
  }
  int *a = alloc<int>(2), *b = alloc<int>(2), *q = alloc<int>(2);
  a[0] = 7, b[0] = 0, a[1] = INT32_MIN, b[1] = -1;
  void* div_args[] = {&a, &b, &q};
  be_->launch(be_->get_function(m, "divide"), {1, 1, 1}, {2, 1, 1}, 0, nullptr, div_args);
  EXPECT_EQ(q[0], -1);
  EXPECT_EQ(q[1], INT32_MIN);
  for (void* p : {(void*)x, (void*)a, (void*)b, (void*)q}) be_->deallocate(p);
}

}  // namespace
}  // namespace kiln::runtime::host
