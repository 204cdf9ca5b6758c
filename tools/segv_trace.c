/* A fatal-signal reporter for machines without gdb (the GPU machine has
 * none): built as a shared object and loaded with LD_PRELOAD, it prints the
 * faulting address, the instruction pointer and a native backtrace, each
 * frame as "module+offset" so that `addr2line -f -C -e module offset` names
 * the function. tools/native_trace.sh builds it, runs a script under it and
 * names the frames; tools/gpu_check.sh uses that when the jit smoke test
 * crashes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static char alt_stack[1 << 16];

static void print_frame(int i, void* pc) {
  Dl_info info;
  if (dladdr(pc, &info) && info.dli_fname) {
    uintptr_t off = (uintptr_t)pc - (uintptr_t)info.dli_fbase;
    dprintf(2, "segv_trace #%d %s+0x%lx %s\n", i, info.dli_fname, (unsigned long)off,
            info.dli_sname ? info.dli_sname : "?");
  } else {
    dprintf(2, "segv_trace #%d %p (no module)\n", i, pc);
  }
}

static void on_fatal(int sig, siginfo_t* si, void* context) {
  void* pc = 0;
#if defined(__x86_64__)
  pc = (void*)((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
#else
  (void)context;
#endif
  dprintf(2, "segv_trace: signal %d (%s), fault address %p, code %d\n", sig, strsignal(sig), si->si_addr,
          si->si_code);
  print_frame(0, pc);
  void* frames[64];
  int n = backtrace(frames, 64);
  for (int i = 0; i < n; ++i) print_frame(i + 1, frames[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) sigaction(sigs[i], &sa, 0);
}
