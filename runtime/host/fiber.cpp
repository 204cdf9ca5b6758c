#include "runtime/host/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#if KILN_FIBER_ASM
extern "C" void kiln_fiber_switch(void** save_sp, void* load_sp);
extern "C" void kiln_fiber_start();
#endif

namespace kiln::runtime::host {
namespace {

size_t page_size() {
  static const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

}  // namespace

FiberStack::FiberStack(size_t bytes) {
  size_t page = page_size();
  size_ = (bytes + page - 1) / page * page;
  mapping_bytes_ = size_ + page;
  void* mem = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (mem == MAP_FAILED) throw std::bad_alloc();
  mapping_ = static_cast<char*>(mem);
  mprotect(mapping_, page, PROT_NONE);  // the guard page: stacks grow down into it
  base_ = mapping_ + page;
}

FiberStack::~FiberStack() { release(); }

FiberStack::FiberStack(FiberStack&& other) noexcept { *this = std::move(other); }

FiberStack& FiberStack::operator=(FiberStack&& other) noexcept {
  if (this != &other) {
    release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void FiberStack::release() {
  if (mapping_) munmap(mapping_, mapping_bytes_);
  mapping_ = nullptr;
}

#if KILN_FIBER_ASM

void fiber_prepare(FiberContext& ctx, const FiberStack& stack, FiberEntry entry, void* arg) {
  // The frame kiln_fiber_switch pops (fiber_switch_x86_64.S), laid out so
  // that kiln_fiber_start begins with a 16-byte aligned stack pointer.
  auto top = reinterpret_cast<uintptr_t>(stack.base() + stack.size()) & ~uintptr_t{15};
  auto* slot = reinterpret_cast<uint64_t*>(top - 24);  // return address -> kiln_fiber_start
  slot[0] = reinterpret_cast<uint64_t>(&kiln_fiber_start);
  uint64_t* frame = slot - 7;
  uint32_t mxcsr = 0x1F80;  // round to nearest, all exceptions masked
  uint16_t fpcw = 0x037F;   // x87: extended precision, round to nearest, masked
  std::memcpy(&frame[0], &mxcsr, 4);
  std::memcpy(reinterpret_cast<char*>(&frame[0]) + 4, &fpcw, 2);
  frame[1] = 0;                                    // r15
  frame[2] = 0;                                    // r14
  frame[3] = reinterpret_cast<uint64_t>(arg);      // r13
  frame[4] = reinterpret_cast<uint64_t>(entry);    // r12
  frame[5] = 0;                                    // rbx
  frame[6] = 0;                                    // rbp
  ctx.sp = frame;
}

void fiber_switch(FiberContext& from, FiberContext& to) { kiln_fiber_switch(&from.sp, to.sp); }

void fiber_jump(FiberContext& to) {
  void* discarded;
  kiln_fiber_switch(&discarded, to.sp);
  std::abort();  // nothing ever resumes an abandoned context
}

#else  // ucontext fallback

namespace {
// makecontext passes int arguments only: the pointers travel in halves.
void ucontext_trampoline(unsigned entry_hi, unsigned entry_lo, unsigned arg_hi, unsigned arg_lo) {
  auto join = [](unsigned hi, unsigned lo) { return (static_cast<uint64_t>(hi) << 32) | lo; };
  auto entry = reinterpret_cast<FiberEntry>(static_cast<uintptr_t>(join(entry_hi, entry_lo)));
  entry(reinterpret_cast<void*>(static_cast<uintptr_t>(join(arg_hi, arg_lo))));
  std::abort();  // entries never return
}
}  // namespace

void fiber_prepare(FiberContext& ctx, const FiberStack& stack, FiberEntry entry, void* arg) {
  getcontext(&ctx.uc);
  ctx.uc.uc_stack.ss_sp = stack.base();
  ctx.uc.uc_stack.ss_size = stack.size();
  ctx.uc.uc_link = nullptr;
  auto e = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(entry));
  auto a = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(arg));
  makecontext(&ctx.uc, reinterpret_cast<void (*)()>(&ucontext_trampoline), 4, static_cast<unsigned>(e >> 32),
              static_cast<unsigned>(e), static_cast<unsigned>(a >> 32), static_cast<unsigned>(a));
}

void fiber_switch(FiberContext& from, FiberContext& to) { swapcontext(&from.uc, &to.uc); }

void fiber_jump(FiberContext& to) {
  setcontext(&to.uc);
  std::abort();
}

#endif

}  // namespace kiln::runtime::host
