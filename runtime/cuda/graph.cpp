// CUDA graphs by stream capture (Note [Graphs] in graph.h) and the capture
// queries of runtime/capture.h (Note [Stream capture]).
#include "runtime/cuda/graph.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <unistd.h>

#include "runtime/capture.h"
#include "runtime/cuda/driver_calls.h"
#include "runtime/files.h"
#include "runtime/memory_pool.h"

namespace kiln::runtime::cuda {

struct HostCall {
  HostCallback fn;
  bool once;  // eager: deletes itself after running; captured: the graph owns it
};

namespace {

// One capture begun through kiln and not ended yet.
struct OpenCapture {
  StreamHandle stream;
  uint64_t id;
  int mode;
  int device;
  std::vector<std::unique_ptr<HostCall>> callbacks;  // host functions captured into it
};

std::mutex g_mutex;
std::vector<OpenCapture>* g_open = new std::vector<OpenCapture>;  // never destroyed (exit order)
std::atomic<int> g_open_count{0};
std::atomic<int> g_global_mode_count{0};  // open captures in global mode
thread_local int tls_strict_count = 0;     // open non-relaxed captures begun on this thread

CuStream as_stream(StreamHandle s) { return static_cast<CuStream>(s); }

// (status, id) of `stream`'s capture; the id is 1 where the driver cannot
// tell sequences apart (no cuStreamGetCaptureInfo).
CuResult capture_info(const DriverApi& cu, StreamHandle stream, int* status, uint64_t* id) {
  *status = cu_capture::kStatusNone;
  *id = 0;
  if (cu.stream_get_capture_info_v3)
    return cu.stream_get_capture_info_v3(as_stream(stream), status, id, nullptr, nullptr, nullptr, nullptr);
  if (cu.stream_get_capture_info_v2)
    return cu.stream_get_capture_info_v2(as_stream(stream), status, id, nullptr, nullptr, nullptr);
  CuResult r = entry(cu.stream_is_capturing, "cuStreamIsCapturing")(as_stream(stream), status);
  if (*status != cu_capture::kStatusNone) *id = 1;
  return r;
}

void host_trampoline(void* data) {
  auto* call = static_cast<HostCall*>(data);
  try {
    (*call->fn)();
  } catch (...) {
  }
  if (call->once) delete call;
}

}  // namespace

Graph::Graph(CuGraph graph, CuGraphExec exec, int device, std::vector<void*> held_chunks,
             std::vector<std::unique_ptr<HostCall>> callbacks)
    : graph_(graph),
      exec_(exec),
      device_(device),
      held_(std::move(held_chunks)),
      callbacks_(std::move(callbacks)) {}

// A launch still running is freed by the driver when it completes; the held
// chunks go back to the pool once the last launch on every stream is done
// (the binding drops the GIL first: a launch may call a Python host function).
Graph::~Graph() {
  try {
    int previous = backend().current_device();
    backend().set_device(device_);
    const DriverApi& cu = driver_for("kiln.cuda.Graph");
    // The held chunks go back only once no launch runs; waiting is not
    // allowed while a capture is open, so then they stay parked for good.
    bool idle = !captures_open();
    for (auto& [stream, event] : launches_) {
      if (idle) idle = cu.event_synchronize(event) == cu_result::kSuccess;
      cu.event_destroy(event);
    }
    if (exec_) cu.graph_exec_destroy(exec_);
    if (graph_) cu.graph_destroy(graph_);
    if (idle) default_memory_pool(device_).release_held(held_);
    backend().set_device(previous);
  } catch (...) {
  }
  // Host callbacks: a launch still in flight may call one after this, so
  // they are left alive (a few bytes and the callable each) rather than risk it.
  for (auto& c : callbacks_) c.release();
}

void Graph::upload(StreamHandle stream) {
  const DriverApi& cu = driver_for("kiln.cuda.Graph.upload");
  check_call(cu, entry(cu.graph_upload, "cuGraphUpload")(exec_, as_stream(stream)), "cuGraphUpload");
}

void Graph::launch(StreamHandle stream) {
  const DriverApi& cu = driver_for("kiln.cuda.Graph.launch");
  check_call(cu, entry(cu.graph_launch, "cuGraphLaunch")(exec_, as_stream(stream)), "cuGraphLaunch");
  // One event per stream launched on marks the last launch there (~Graph).
  CuEvent* event = nullptr;
  for (auto& [s, e] : launches_)
    if (s == stream) event = &e;
  if (!event) {
    CuEvent e = nullptr;
    check_call(cu, cu.event_create(&e, kEventDisableTiming), "cuEventCreate");
    launches_.emplace_back(stream, e);
    event = &launches_.back().second;
  }
  check_call(cu, cu.event_record(*event, as_stream(stream)), "cuEventRecord");
}

std::string Graph::debug_dot(unsigned flags) const {
  const DriverApi& cu = driver_for("kiln.cuda.Graph.debug_dot_str");
  char path[] = "/tmp/kiln-graph-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) throw Error("kiln.cuda.Graph.debug_dot_str: cannot create a temporary file");
  close(fd);
  CuResult r = entry(cu.graph_debug_dot_print, "cuGraphDebugDotPrint")(graph_, path, flags);
  std::string text;
  if (r == cu_result::kSuccess) text = read_file_or_throw(path, "debug_dot_str");
  std::remove(path);
  check_call(cu, r, "cuGraphDebugDotPrint");
  return text;
}

void begin_capture(StreamHandle stream, int mode) {
  const DriverApi& cu = driver_for("kiln.cuda.Stream.begin_capture");
  if (mode != cu_capture::kModeGlobal && mode != cu_capture::kModeThreadLocal && mode != cu_capture::kModeRelaxed)
    throw InvalidArgument("begin_capture: mode must be streamCaptureModeGlobal (0), ThreadLocal (1) or Relaxed (2), "
                          "got " + std::to_string(mode));
  if (stream == nullptr)
    throw InvalidArgument("begin_capture: the null (legacy default) stream cannot capture; use a "
                          "kiln.cuda.Stream(non_blocking=True)");
  check_call(cu, entry(cu.stream_begin_capture, "cuStreamBeginCapture_v2")(as_stream(stream), mode),
             "cuStreamBeginCapture_v2");
  int status = 0;
  uint64_t id = 0;
  check_call(cu, capture_info(cu, stream, &status, &id), "cuStreamGetCaptureInfo");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_open->push_back(OpenCapture{stream, id, mode, backend().current_device(), {}});
  g_open_count.fetch_add(1);
  if (mode == cu_capture::kModeGlobal) g_global_mode_count.fetch_add(1);
  if (mode != cu_capture::kModeRelaxed) ++tls_strict_count;
}

std::unique_ptr<Graph> end_capture(StreamHandle stream) {
  const DriverApi& cu = driver_for("kiln.cuda.Stream.end_capture");
  CuGraph graph = nullptr;
  CuResult r = entry(cu.stream_end_capture, "cuStreamEndCapture")(as_stream(stream), &graph);
  OpenCapture ended{};
  bool was_ours = false;
  {
    // The capture is over unless the driver still says it captures (ended
    // from the wrong stream or thread).
    int status = 0;
    uint64_t id = 0;
    bool still = capture_info(cu, stream, &status, &id) == cu_result::kSuccess &&
                 status != cu_capture::kStatusNone;
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto it = g_open->begin(); it != g_open->end() && !still; ++it) {
      if (it->stream != stream) continue;
      ended = std::move(*it);
      g_open->erase(it);
      was_ours = true;
      g_open_count.fetch_sub(1);
      if (ended.mode == cu_capture::kModeGlobal) g_global_mode_count.fetch_sub(1);
      if (ended.mode != cu_capture::kModeRelaxed) --tls_strict_count;
      break;
    }
  }
  std::vector<void*> held;
  if (was_ours) held = default_memory_pool(ended.device).hold_capture(ended.id);
  auto give_back = [&] {  // nothing of a failed capture ever runs
    if (was_ours) default_memory_pool(ended.device).release_held(held);
    if (graph) cu.graph_destroy(graph);
  };
  if (r != cu_result::kSuccess) {
    give_back();
    check_call(cu, r, "cuStreamEndCapture");
  }
  CuGraphExec exec = nullptr;
  r = entry(cu.graph_instantiate, "cuGraphInstantiateWithFlags")(&exec, graph, 0);
  if (r != cu_result::kSuccess) {
    give_back();
    check_call(cu, r, "cuGraphInstantiateWithFlags");
  }
  return std::make_unique<Graph>(graph, exec, was_ours ? ended.device : backend().current_device(),
                                 std::move(held), std::move(ended.callbacks));
}

bool is_capturing(StreamHandle stream) {
  const DriverApi& cu = driver_for("kiln.cuda.Stream.is_capturing");
  int status = 0;
  check_call(cu, entry(cu.stream_is_capturing, "cuStreamIsCapturing")(as_stream(stream), &status),
             "cuStreamIsCapturing");
  return status == cu_capture::kStatusActive;
}

void launch_host_func(StreamHandle stream, HostCallback fn) {
  const DriverApi& cu = driver_for("kiln.cuda.Stream.launch_host_func");
  auto launch = entry(cu.launch_host_func, "cuLaunchHostFunc");
  uint64_t id = captures_open() ? capture_id(stream) : 0;
  auto call = std::make_unique<HostCall>(HostCall{std::move(fn), id == 0});
  check_call(cu, launch(as_stream(stream), host_trampoline, call.get()), "cuLaunchHostFunc");
  if (id == 0) {
    call.release();  // deletes itself after running
    return;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& open : *g_open) {
    if (open.id == id) {
      open.callbacks.push_back(std::move(call));
      return;
    }
  }
  call.release();  // a capture kiln did not begin: kept for the life of the process
}

}  // namespace kiln::runtime::cuda

namespace kiln::runtime {

bool captures_open() { return cuda::g_open_count.load(std::memory_order_relaxed) > 0; }

uint64_t capture_id(StreamHandle stream) {
  if (!captures_open()) return 0;
  std::string why;
  const cuda::DriverApi* cu = cuda::load_driver_api(&why);
  if (!cu) return 0;
  int status = 0;
  uint64_t id = 0;
  if (cuda::capture_info(*cu, stream, &status, &id) != cuda::cu_result::kSuccess) return 0;
  return status == cuda::cu_capture::kStatusNone ? 0 : id;
}

bool may_allocate_during_capture() {
  return cuda::g_global_mode_count.load(std::memory_order_relaxed) == 0 && cuda::tls_strict_count == 0;
}

void check_not_capturing(StreamHandle stream, const std::string& what) {
  if (!captures_open()) return;
  std::string why;
  const cuda::DriverApi* cu = cuda::load_driver_api(&why);
  if (!cu) return;
  int status = 0;
  uint64_t id = 0;
  cuda::CuResult r = cuda::capture_info(*cu, stream, &status, &id);
  // The legacy stream while a blocking stream captures cannot be asked
  // (cudaErrorStreamCaptureImplicit): as unsafe as capturing.
  if (r == cuda::cu_result::kSuccess && status == cuda::cu_capture::kStatusNone) return;
  throw CaptureError(what + " is not possible while stream " + pointer_text(stream) +
                     " is capturing a CUDA graph: a graph cannot wait for the device, read results on the "
                     "host or read host memory when replayed (Note [Stream capture]); do it before "
                     "begin_capture or after end_capture");
}

}  // namespace kiln::runtime
