// Faults inside host kernel code: a SIGSEGV, SIGBUS, SIGILL or SIGFPE raised
// while a worker thread runs a kernel's fiber ends that launch with CUDA's
// words instead of killing the process, and integer division gives what a
// GPU gives instead of trapping.
//
//   install_kernel_fault_handlers();              // before every launch
//   KernelFaultTrap& trap = kernel_fault_trap();  // per thread (alt stack too)
//   if (sigsetjmp(trap.jump, 0) == 0) {
//     trap.in_kernel = 1; ...run fibers...; trap.in_kernel = 0;
//   } else {
//     ... trap.message says what happened; the fibers are abandoned ...
//   }
//
// Note [Kernel faults]
// The handlers run on every thread (they are process-wide) on an alternate
// signal stack, so a fiber that overflowed its stack can still be handled.
// A fault on a thread whose trap says `in_kernel` is the kernel's: SIGFPE
// from a div/idiv is emulated (Note [GPU integer division]) and execution
// goes on after the instruction; anything else records CUDA's wording in the
// trap and siglongjmps to the scheduler, which abandons the block's fibers
// (their stacks are prepared again by the next block) and fails the launch.
// A fault anywhere else goes to the handler that was installed before ours
// (Python's faulthandler, or the default action): kiln never swallows it.
// What is lost: the launch's partial writes stay where they landed, objects
// the abandoned fibers had constructed are never destroyed, and a lock a
// fiber held (malloc's, stdio's) stays held; the backend itself needs no
// reset. SIGSEGV/SIGBUS inside the runtime's own code while a fiber runs (the
// barrier services) is reported the same way.
#pragma once

#include <setjmp.h>
#include <signal.h>

#include <cstdint>

namespace kiln::runtime::host {

struct KernelFaultTrap {
  sigjmp_buf jump;
  volatile sig_atomic_t in_kernel = 0;
  // The running fiber's guard page: a fault there is a stack overflow.
  const char* volatile guard_lo = nullptr;
  const char* volatile guard_hi = nullptr;
  // The running launch's cancel flag (Note [Cancelling host launches]).
  volatile sig_atomic_t* volatile cancel = nullptr;
  char message[128] = "";
};

// The real-time signal that ends a fiber of a cancelled launch: on a thread
// whose trap says `in_kernel` and whose launch's `cancel` is set, it
// siglongjmps as a fault does (Note [Cancelling host launches]).
int cancel_signal();

// Puts the SIGSEGV/SIGBUS/SIGILL/SIGFPE handlers in front and installs the
// cancel_signal() one (idempotent; before every launch, in case another
// handler was installed since).
void install_kernel_fault_handlers();

// This thread's trap; gives the thread an alternate signal stack if it has none.
KernelFaultTrap& kernel_fault_trap();

// Note [GPU integer division]
// x86's div/idiv trap on a zero divisor and on a quotient that does not fit
// (INT_MIN / -1); a GPU returns a value. Measured on an NVIDIA H200 (values
// loaded from memory): 8/16/32-bit x / 0 and x % 0 are all ones (-1, or the
// unsigned maximum); 64-bit x / 0 and x % 0 are 0xFFFFFFFF when the
// dividend's upper 32 bits are zero (the compiler's 32-bit fast path), else
// all ones; MIN / -1 == MIN and MIN % -1 == 0 for every width. The SIGFPE
// handler decodes the faulting instruction (legacy prefixes, REX, F6/F7 with
// ModRM reg 6 or 7, register or memory operand through SIB, displacement,
// RIP-relative or %fs), writes those results into rax/rdx (al/ah for 8-bit)
// and steps over it. A quotient overflow with another divisor (possible only
// for hand-written rdx) wraps to the operand width.
struct DivisionRegisters {
  uint64_t gpr[16];  // rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8 ... r15 (encoding order)
  uint64_t rip;
  uint64_t fs_base;
};

// Emulates the div/idiv at `regs.rip` as a GPU computes it; returns false
// (registers untouched) when the bytes there are no div/idiv it decodes.
bool emulate_gpu_division(DivisionRegisters& regs);

}  // namespace kiln::runtime::host
