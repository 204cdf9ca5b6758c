#include "runtime/host/kernel_faults.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace kiln::runtime::host {
namespace {

// The handler reads the trap through a pointer with static TLS: a dynamic TLS
// access from a signal handler may allocate.
__attribute__((tls_model("initial-exec"))) thread_local KernelFaultTrap* tl_trap = nullptr;

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
struct sigaction g_previous[NSIG];

// Note [Kernel faults]: a fault that is not the kernel's goes where it went
// before kiln was loaded.
void chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous[sig];
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  if (prev.sa_handler == SIG_DFL) {
    // A synchronous fault happens again on return and takes the default
    // action; a sent one is sent again.
    signal(sig, SIG_DFL);
    if (info->si_code <= 0) raise(sig);
    return;
  }
  prev.sa_handler(sig);
}

void copy_message(KernelFaultTrap& trap, const char* text) {
  size_t n = std::strlen(text);
  if (n >= sizeof trap.message) n = sizeof trap.message - 1;
  std::memcpy(trap.message, text, n);
  trap.message[n] = '\0';
}

bool emulate_from_context(ucontext_t* uc) {
  greg_t* g = uc->uc_mcontext.gregs;
  static constexpr int kOrder[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                     REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  DivisionRegisters regs;
  for (int i = 0; i < 16; ++i) regs.gpr[i] = static_cast<uint64_t>(g[kOrder[i]]);
  regs.rip = static_cast<uint64_t>(g[REG_RIP]);
  uint64_t fs_base;
  asm volatile("mov %%fs:0, %0" : "=r"(fs_base));  // glibc: the TCB points at itself
  regs.fs_base = fs_base;
  if (!emulate_gpu_division(regs)) return false;
  g[REG_RAX] = static_cast<greg_t>(regs.gpr[0]);
  g[REG_RDX] = static_cast<greg_t>(regs.gpr[2]);
  g[REG_RIP] = static_cast<greg_t>(regs.rip);
  return true;
}

void on_fault(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  KernelFaultTrap* trap = tl_trap;
  if (!trap || !trap->in_kernel) {
    // A handler chained to may put ours back and raise() again (Python's
    // faulthandler does): the second time round, take the default action.
    static thread_local bool chaining = false;
    if (chaining) {
      signal(sig, SIG_DFL);
      if (info->si_code <= 0) raise(sig);
      return;
    }
    chaining = true;
    chain(sig, info, context);
    chaining = false;
    errno = saved_errno;
    return;
  }
  if (sig == SIGFPE && emulate_from_context(static_cast<ucontext_t*>(context))) {
    errno = saved_errno;
    return;  // Note [GPU integer division]
  }
  const char* addr = static_cast<const char*>(info->si_addr);
  const char* what = "an illegal memory access was encountered";
  if (sig == SIGSEGV && addr >= trap->guard_lo && addr < trap->guard_hi)
    what = "stack overflow in kernel (a thread's stack is 256 KiB on the host backend)";
  else if (sig == SIGBUS && info->si_code == BUS_ADRALN)
    what = "misaligned address";
  else if (sig == SIGILL)
    what = "an illegal instruction was encountered";
  else if (sig == SIGFPE)
    what = "an arithmetic exception the host backend cannot emulate was encountered";
  copy_message(*trap, what);
  trap->in_kernel = 0;
  siglongjmp(trap->jump, 1);
}

// Note [Cancelling host launches]: only a fiber of a cancelled launch ends;
// anywhere else the signal is ignored (the monitor sends it again).
void on_cancel(int, siginfo_t*, void*) {
  KernelFaultTrap* trap = tl_trap;
  if (!trap || !trap->in_kernel || !trap->cancel || !*trap->cancel) return;
  copy_message(*trap, "the launch was cancelled");
  trap->in_kernel = 0;
  siglongjmp(trap->jump, 1);
}

struct AltStack {
  void* mapping = nullptr;
  size_t bytes = 0;
  ~AltStack() {
    if (!mapping) return;
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && current.ss_sp == mapping) {
      stack_t off{};
      off.ss_flags = SS_DISABLE;
      sigaltstack(&off, nullptr);
    }
    munmap(mapping, bytes);
  }
};

// A thread with no alternate signal stack gets one (a thread that has one,
// e.g. from faulthandler, keeps it: the handler needs little).
void ensure_alt_stack() {
  thread_local AltStack alt;
  thread_local bool checked = false;
  if (checked) return;
  checked = true;
  stack_t current{};
  if (sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
  alt.bytes = 64 * 1024;
  void* mem = mmap(nullptr, alt.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return;
  alt.mapping = mem;
  stack_t s{};
  s.ss_sp = mem;
  s.ss_size = alt.bytes;
  sigaltstack(&s, nullptr);
}

}  // namespace

// Called at every launch, not once: a handler installed after ours (pytest
// enables Python's faulthandler after kiln is imported) would see a kernel's
// SIGFPE first and raise() it again, and a sent signal has lost the divide's
// registers, so it could not be emulated. Ours goes back in front, the other
// becomes the one a fault outside kernels is chained to. Four sigaction
// queries a launch; a change only when another handler took over.
void install_kernel_fault_handlers() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  for (int sig : kSignals) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
        current.sa_sigaction == on_fault)
      continue;
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, &g_previous[sig]);
  }
  static bool cancel_installed = false;  // nobody else uses kiln's real-time signal
  if (!cancel_installed) {
    struct sigaction action {};
    action.sa_sigaction = on_cancel;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(cancel_signal(), &action, nullptr);
    cancel_installed = true;
  }
}

int cancel_signal() { return SIGRTMIN + 5; }

KernelFaultTrap& kernel_fault_trap() {
  thread_local KernelFaultTrap trap;
  if (!tl_trap) {
    ensure_alt_stack();
    tl_trap = &trap;
  }
  return trap;
}

namespace {

uint64_t width_mask(int bits) { return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

}  // namespace

bool emulate_gpu_division(DivisionRegisters& regs) {
  const auto* start = reinterpret_cast<const uint8_t*>(regs.rip);
  const uint8_t* p = start;
  bool operand16 = false, address32 = false, fs = false;
  for (int i = 0; i < 14; ++i, ++p) {
    const uint8_t b = *p;
    if (b == 0x66) operand16 = true;
    else if (b == 0x67) address32 = true;
    else if (b == 0x64) fs = true;
    else if (b == 0x65) return false;  // %gs: not ours to read
    else if (b == 0xF0 || b == 0xF2 || b == 0xF3 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26) continue;
    else break;
  }
  uint8_t rex = 0;
  if ((*p & 0xF0) == 0x40) rex = *p++;
  const uint8_t opcode = *p++;
  if (opcode != 0xF6 && opcode != 0xF7) return false;
  const uint8_t modrm = *p++;
  const int mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  if (reg != 6 && reg != 7) return false;
  const bool is_signed = reg == 7;
  const int bits = opcode == 0xF6 ? 8 : (rex & 8) ? 64 : operand16 ? 16 : 32;
  const uint64_t mask = width_mask(bits);
  auto read32 = [&p] {
    int32_t v;
    std::memcpy(&v, p, 4);
    p += 4;
    return static_cast<int64_t>(v);
  };

  uint64_t divisor = 0;
  if (mod == 3) {
    const int index = rm | ((rex & 1) << 3);
    if (bits == 8 && !rex && index >= 4) divisor = regs.gpr[index - 4] >> 8;  // ah, ch, dh, bh
    else divisor = regs.gpr[index];
  } else {
    uint64_t address = 0;
    bool rip_relative = false;
    int64_t displacement = 0;
    if (rm == 4) {
      const uint8_t sib = *p++;
      const int scale = sib >> 6, index = ((sib >> 3) & 7) | ((rex & 2) << 2), base = (sib & 7) | ((rex & 1) << 3);
      if (index != 4) address += regs.gpr[index] << scale;
      if ((base & 7) == 5 && mod == 0) displacement = read32();
      else address += regs.gpr[base];
    } else if (rm == 5 && mod == 0) {
      rip_relative = true;
      displacement = read32();
    } else {
      address += regs.gpr[rm | ((rex & 1) << 3)];
    }
    if (mod == 1) displacement = static_cast<int8_t>(*p++);
    else if (mod == 2) displacement = read32();
    address += static_cast<uint64_t>(displacement);
    if (rip_relative) address += reinterpret_cast<uint64_t>(p);  // the next instruction
    if (address32) address &= 0xFFFFFFFFu;
    if (fs) address += regs.fs_base;
    std::memcpy(&divisor, reinterpret_cast<const void*>(address), static_cast<size_t>(bits / 8));
  }
  divisor &= mask;

  uint64_t& rax = regs.gpr[0];
  uint64_t& rdx = regs.gpr[2];
  // The double-width dividend.
  unsigned __int128 dividend;
  if (bits == 8) dividend = rax & 0xFFFF;
  else if (bits == 64) dividend = (static_cast<unsigned __int128>(rdx) << 64) | rax;
  else dividend = ((rdx & mask) << bits) | (rax & mask);

  uint64_t quotient, remainder;
  if (divisor == 0) {
    quotient = remainder = mask;
    if (bits == 64 && (rax >> 32) == 0) quotient = remainder = 0xFFFFFFFFu;
  } else if (is_signed) {
    // Sign-extend the 2*bits dividend and the divisor; MIN / -1 wraps.
    const int shift = 128 - 2 * bits;
    const __int128 a = static_cast<__int128>(dividend << shift) >> shift;
    const int64_t d = static_cast<int64_t>(divisor << (64 - bits)) >> (64 - bits);
    if (d == -1) {
      quotient = static_cast<uint64_t>(0 - static_cast<unsigned __int128>(a));
      remainder = 0;
    } else {
      quotient = static_cast<uint64_t>(a / d);
      remainder = static_cast<uint64_t>(a % d);
    }
  } else {
    quotient = static_cast<uint64_t>(dividend / divisor);
    remainder = static_cast<uint64_t>(dividend % divisor);
  }
  quotient &= mask;
  remainder &= mask;
  if (bits == 8) {
    rax = (rax & ~uint64_t{0xFFFF}) | quotient | (remainder << 8);
  } else if (bits == 16) {
    rax = (rax & ~uint64_t{0xFFFF}) | quotient;
    rdx = (rdx & ~uint64_t{0xFFFF}) | remainder;
  } else {
    rax = quotient;  // a 32-bit write zero-extends
    rdx = remainder;
  }
  regs.rip += static_cast<uint64_t>(p - start);
  return true;
}

}  // namespace kiln::runtime::host
