// Fibers: stacks of their own and a cooperative switch between them, the
// machinery under the block scheduler (each GPU thread is one fiber).
//
//   FiberStack stack;                            // 256 KiB + guard page, reusable
//   FiberContext main_ctx, fiber_ctx;
//   fiber_prepare(fiber_ctx, stack, [](void* arg) { ...; fiber_switch(self, main); }, arg);
//   fiber_switch(main_ctx, fiber_ctx);           // runs the fiber until it switches back
//
// Note [Fiber switch]
// On x86-64 the switch is a few instructions of assembly (fiber_switch_x86_64.S):
// push the callee-saved registers and the SSE/x87 control words, store the
// stack pointer, load the other one, pop, return. Elsewhere it falls back to
// ucontext, which also saves the signal mask with a system call per switch.
// A fiber's entry function must never return: it ends by switching away for
// the last time. A fiber that is never resumed is simply abandoned; its stack
// can be prepared again for a new entry.
#pragma once

#include <cstddef>

// KILN_FIBER_UCONTEXT forces the portable fallback (to test it on x86-64).
#if defined(__x86_64__) && !defined(KILN_FIBER_UCONTEXT)
#define KILN_FIBER_ASM 1
#else
#define KILN_FIBER_ASM 0
#include <ucontext.h>
#endif

namespace kiln::runtime::host {

struct FiberContext {
#if KILN_FIBER_ASM
  void* sp = nullptr;  // saved stack pointer; the registers lie on that stack
#else
  ucontext_t uc;
#endif
};

// An mmap'd stack with an inaccessible guard page below it, so an overflow
// faults instead of corrupting a neighbour. Move-only.
class FiberStack {
 public:
  static constexpr size_t kDefaultBytes = 256 * 1024;
  explicit FiberStack(size_t bytes = kDefaultBytes);
  ~FiberStack();
  FiberStack(FiberStack&& other) noexcept;
  FiberStack& operator=(FiberStack&& other) noexcept;
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;

  char* base() const { return base_; }  // lowest usable byte
  char* guard() const { return mapping_; }  // the guard page: [guard(), base())
  size_t size() const { return size_; }

 private:
  void release();
  char* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
  char* base_ = nullptr;
  size_t size_ = 0;
};

using FiberEntry = void (*)(void* arg);

// Makes `ctx` start `entry(arg)` on `stack` at the next switch to it.
void fiber_prepare(FiberContext& ctx, const FiberStack& stack, FiberEntry entry, void* arg);

// Saves the running context into `from` and resumes `to`; returns when some
// fiber switches back to `from`.
void fiber_switch(FiberContext& from, FiberContext& to);

// Resumes `to`, abandoning the running context (it is never resumed).
[[noreturn]] void fiber_jump(FiberContext& to);

}  // namespace kiln::runtime::host
