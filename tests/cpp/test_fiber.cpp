// Fibers under the host backend's block scheduler: switching, stacks, reuse.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/host/fiber.h"

namespace kiln::runtime::host {
namespace {

struct PingPong {
  FiberContext main, fiber;
  std::vector<std::string> log;
  int rounds = 0;
};

void ping_pong_entry(void* arg) {
  auto* p = static_cast<PingPong*>(arg);
  int local = 1000;  // lives on the fiber's stack across switches
  for (int i = 0; i < p->rounds; ++i) {
    p->log.push_back("fiber " + std::to_string(i) + " " + std::to_string(local++));
    fiber_switch(p->fiber, p->main);
  }
  p->log.push_back("fiber done");
  fiber_jump(p->main);
}

TEST(Fiber, SwitchesBackAndForthKeepingItsStack) {
  FiberStack stack;
  PingPong p;
  p.rounds = 3;
  fiber_prepare(p.fiber, stack, ping_pong_entry, &p);
  for (int i = 0; i < 3; ++i) {
    fiber_switch(p.main, p.fiber);
    p.log.push_back("main " + std::to_string(i));
  }
  fiber_switch(p.main, p.fiber);
  std::vector<std::string> expect = {"fiber 0 1000", "main 0", "fiber 1 1001", "main 1",
                                     "fiber 2 1002", "main 2", "fiber done"};
  EXPECT_EQ(p.log, expect);
}

struct RoundRobin {
  FiberContext scheduler;
  std::vector<FiberContext> fibers;
  std::vector<int> order;
  int current = 0;
};

struct RoundRobinArg {
  RoundRobin* rr;
  int id;
};

void round_robin_entry(void* arg) {
  auto* a = static_cast<RoundRobinArg*>(arg);
  double acc = a->id;  // callee-saved and SSE state must survive switches
  for (int step = 0; step < 3; ++step) {
    a->rr->order.push_back(a->id * 10 + step);
    acc = acc * 2.0 + 0.5;
    fiber_switch(a->rr->fibers[a->id], a->rr->scheduler);
  }
  a->rr->order.push_back(static_cast<int>(std::lround(acc * 100)));
  fiber_jump(a->rr->scheduler);
}

TEST(Fiber, ManyFibersRunRoundRobin) {
  const int n = 4;
  std::vector<FiberStack> stacks(n);
  RoundRobin rr;
  rr.fibers.resize(n);
  std::vector<RoundRobinArg> args(n);
  for (int i = 0; i < n; ++i) {
    args[i] = {&rr, i};
    fiber_prepare(rr.fibers[i], stacks[i], round_robin_entry, &args[i]);
  }
  for (int pass = 0; pass < 4; ++pass)
    for (int i = 0; i < n; ++i) fiber_switch(rr.scheduler, rr.fibers[i]);
  std::vector<int> expect = {0, 10, 20, 30, 1, 11, 21, 31, 2, 12, 22, 32};
  for (int i = 0; i < n; ++i) expect.push_back(static_cast<int>(std::lround((i * 8.0 + 3.5) * 100)));
  EXPECT_EQ(rr.order, expect);
}

struct Deep {
  FiberContext main, fiber;
  long result = 0;
};

long recurse(int depth, volatile char* sink) {
  char frame[512];
  std::memset(frame, depth & 0x7f, sizeof frame);
  sink[0] = frame[depth % 512];
  if (depth == 0) return 0;
  return recurse(depth - 1, sink) + frame[7];
}

void deep_entry(void* arg) {
  auto* d = static_cast<Deep*>(arg);
  volatile char sink[1];
  d->result = recurse(300, sink);  // ~170 KiB of a 256 KiB stack
  fiber_jump(d->main);
}

TEST(Fiber, DeepRecursionFitsTheStack) {
  FiberStack stack;
  EXPECT_EQ(stack.size(), FiberStack::kDefaultBytes);
  Deep d;
  fiber_prepare(d.fiber, stack, deep_entry, &d);
  fiber_switch(d.main, d.fiber);
  long expect = 0;
  for (int depth = 1; depth <= 300; ++depth) expect += depth & 0x7f;
  EXPECT_EQ(d.result, expect);
}

struct Abandon {
  FiberContext main, fiber;
  int value = 0;
};

void abandon_entry(void* arg) {
  auto* a = static_cast<Abandon*>(arg);
  a->value += 1;
  fiber_switch(a->fiber, a->main);  // never resumed
  a->value += 100;
  fiber_jump(a->main);
}

TEST(Fiber, AnAbandonedFibersStackCanBePreparedAgain) {
  FiberStack stack;
  Abandon a;
  for (int i = 0; i < 5; ++i) {
    fiber_prepare(a.fiber, stack, abandon_entry, &a);
    fiber_switch(a.main, a.fiber);
  }
  EXPECT_EQ(a.value, 5);
}

TEST(Fiber, StacksMoveWithoutCopying) {
  FiberStack a;
  char* base = a.base();
  FiberStack b(std::move(a));
  EXPECT_EQ(b.base(), base);
  EXPECT_EQ(a.base(), nullptr);
  std::vector<FiberStack> many;
  for (int i = 0; i < 8; ++i) many.emplace_back(64 * 1024);
  EXPECT_EQ(many[7].size(), 64u * 1024);
}

struct Alignment {
  FiberContext main, fiber;
  uintptr_t in_fiber = 99;
};

// The stack pointer modulo 16 inside a function: equal on every correctly
// aligned stack, since the same prologue runs.
__attribute__((noinline)) uintptr_t stack_phase() {
#if defined(__x86_64__)
  uintptr_t sp;
  asm volatile("mov %%rsp, %0" : "=r"(sp));
  return sp % 16;
#else
  alignas(16) volatile char buf[16];
  buf[0] = 1;
  return reinterpret_cast<uintptr_t>(&buf[0]) % 16;
#endif
}

void alignment_entry(void* arg) {
  auto* a = static_cast<Alignment*>(arg);
  a->in_fiber = stack_phase();
  fiber_jump(a->main);
}

TEST(Fiber, TheStackIsAlignedAsTheAbiRequires) {
  FiberStack stack;
  Alignment a;
  fiber_prepare(a.fiber, stack, alignment_entry, &a);
  fiber_switch(a.main, a.fiber);
  EXPECT_EQ(a.in_fiber, stack_phase());
}

void overflow_entry(void* arg) {
  auto* stack = static_cast<FiberStack*>(arg);
  volatile char* below = stack->base() - 16;  // inside the guard page
  *below = 1;
}

void run_overflowing_fiber() {
  FiberStack stack;
  FiberContext main, fiber;
  fiber_prepare(fiber, stack, overflow_entry, &stack);
  fiber_switch(main, fiber);
}

TEST(FiberDeathTest, OverflowHitsTheGuardPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(run_overflowing_fiber(), "");
}

}  // namespace
}  // namespace kiln::runtime::host
