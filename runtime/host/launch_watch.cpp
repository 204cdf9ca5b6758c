#include "runtime/host/launch_watch.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/errors.h"
#include "runtime/interrupted.h"
#include "runtime/host/kernel_faults.h"

namespace kiln::runtime::host {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTick = std::chrono::milliseconds(20);

// Note [Cancelling host launches]: SIGINT is counted, then handed on.
std::atomic<unsigned long long> g_sigint_count{0};
struct sigaction g_previous_sigint;

void on_sigint(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  g_sigint_count.fetch_add(1, std::memory_order_relaxed);
  const struct sigaction& prev = g_previous_sigint;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);  // the default action: the process ends
    raise(sig);
  } else if (prev.sa_handler != SIG_IGN && prev.sa_handler) {
    prev.sa_handler(sig);
  }
  errno = saved_errno;
}

// Puts on_sigint in front of SIGINT's handler unless it is there already.
// Called on the main thread only, so it never races Python's signal.signal.
void ensure_sigint_counted() {
  struct sigaction current {};
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigint) return;
  struct sigaction action {};
  action.sa_sigaction = on_sigint;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | (current.sa_flags & SA_RESTART);
  sigemptyset(&action.sa_mask);
  g_previous_sigint = current;
  sigaction(SIGINT, &action, nullptr);
}

bool on_main_thread() { return syscall(SYS_gettid) == getpid(); }

class Monitor {
 public:
  static Monitor& get() {
    // Never destroyed: a launch may still run while statics are destroyed
    // (Note [Host backend at exit]).
    static Monitor* monitor = new Monitor;
    return *monitor;
  }
  void add(LaunchWatch* w) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!started_) {
      started_ = true;
      std::thread([this] { loop(); }).detach();
    }
    watches_.push_back(w);
    if (watches_.size() == 1) cv_.notify_one();
  }
  void remove(LaunchWatch* w) {
    std::lock_guard<std::mutex> lock(mutex_);
    watches_.erase(std::find(watches_.begin(), watches_.end(), w));
  }

 private:
  void loop() {
    // The monitor takes no part in signals meant for the process.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (watches_.empty()) cv_.wait(lock, [this] { return !watches_.empty(); });
      else cv_.wait_for(lock, kTick);
      const auto now = Clock::now();
      const unsigned long long sigints = g_sigint_count.load(std::memory_order_relaxed);
      for (LaunchWatch* w : watches_) {
        BlockLaunch& l = w->launch;
        if (l.cancel == kNotCancelled) {
          if (w->main_thread && sigints != w->sigint_seen) l.cancel = kCancelInterrupt;
          else if (w->has_deadline && now >= w->deadline) l.cancel = kCancelTimeout;
          else continue;
        }
        // Again every tick until the launch ends: a signal that came while
        // no fiber ran is ignored, and the scheduler sees `cancel` next.
        const int sig = cancel_signal();
        pthread_kill(w->caller, sig);
        if (w->pool_threads)
          for (pthread_t t : *w->pool_threads) pthread_kill(t, sig);
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<LaunchWatch*> watches_;
  bool started_ = false;
};

std::string format_seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

}  // namespace

double host_kernel_timeout_seconds() {
  const char* env = std::getenv("KILN_HOST_KERNEL_TIMEOUT");
  if (!env || !*env) return 0;
  char* end = nullptr;
  errno = 0;
  const double s = std::strtod(env, &end);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (end == env || *end != '\0' || errno == ERANGE || !std::isfinite(s) || s < 0)
    throw InvalidArgument(std::string("KILN_HOST_KERNEL_TIMEOUT must be a number of seconds >= 0 (0: no limit), got '") +
                          env + "'");
  return s;
}

LaunchWatch::LaunchWatch(BlockLaunch& l, const std::vector<pthread_t>* pool)
    : launch(l), pool_threads(pool), caller(pthread_self()), main_thread(on_main_thread()) {
  timeout_s = host_kernel_timeout_seconds();
  if (timeout_s > 0) {
    has_deadline = true;
    deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  }
  if (main_thread) ensure_sigint_counted();
  sigint_seen = g_sigint_count.load(std::memory_order_relaxed);
  Monitor::get().add(this);
  registered = true;
}

LaunchWatch::~LaunchWatch() {
  if (registered) Monitor::get().remove(this);
}

void LaunchWatch::finish() {
  Monitor::get().remove(this);
  registered = false;
  const std::string name = launch.entry->name;
  if (launch.cancel == kCancelTimeout)
    throw LaunchError("kernel '" + name + "' failed: the launch timed out and was terminated (it ran longer than " +
                      "KILN_HOST_KERNEL_TIMEOUT=" + format_seconds(timeout_s) + " s)");
  if (launch.cancel == kCancelInterrupt)
    throw Interrupted("kernel '" + name + "' was interrupted (SIGINT) and did not complete");
}

}  // namespace kiln::runtime::host
