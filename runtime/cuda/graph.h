// CUDA graphs by stream capture: kiln.cuda.Stream.begin_capture/end_capture
// and kiln.cuda.Graph.
//
//   begin_capture(stream, cu_capture::kModeRelaxed);
//   ... kiln operations queued on `stream` (kernels, copies, memsets) ...
//   std::unique_ptr<Graph> g = end_capture(stream);
//   g->launch(other_stream);      // replays the recorded work
//
// Note [Graphs]
// A graph replays the device pointers it was captured with, so it holds
// every pool chunk handed out during its capture (Note [Pool and graph
// capture] in memory_pool.h) and every host callback queued into it, until
// it is destroyed. Inputs allocated before the capture are the caller's to
// keep alive. Capture bookkeeping (which captures are open, their modes) is
// here; the rules the rest of kiln follows are Note [Stream capture] in
// runtime/capture.h. Everything throws Error on the host backend
// (driver_calls.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/backend.h"
#include "runtime/cuda/driver_api.h"

namespace kiln::runtime::cuda {

// A host function queued on a stream (cuLaunchHostFunc); runs on a driver
// thread, so it must not call CUDA. Exceptions are swallowed.
using HostCallback = std::shared_ptr<std::function<void()>>;
struct HostCall;

class Graph {
 public:
  Graph(CuGraph graph, CuGraphExec exec, int device, std::vector<void*> held_chunks,
        std::vector<std::unique_ptr<HostCall>> callbacks);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  void upload(StreamHandle stream);  // cuGraphUpload: prepare to launch on `stream`
  void launch(StreamHandle stream);  // cuGraphLaunch
  // Graphviz text of the graph (cuGraphDebugDotPrint with `flags`).
  std::string debug_dot(unsigned flags) const;
  int device() const { return device_; }

 private:
  CuGraph graph_;
  CuGraphExec exec_;
  int device_;
  std::vector<void*> held_;
  std::vector<std::unique_ptr<HostCall>> callbacks_;
  std::vector<std::pair<StreamHandle, CuEvent>> launches_;  // the last launch on each stream
};

// cuStreamBeginCapture_v2 with `mode` (cu_capture::kMode*).
void begin_capture(StreamHandle stream, int mode);
// cuStreamEndCapture, then instantiation. Ends the capture even when it
// failed (the driver's error is thrown: invalidated, unjoined, ...).
std::unique_ptr<Graph> end_capture(StreamHandle stream);
// True while `stream` captures; the driver's error otherwise (e.g.
// cudaErrorStreamCaptureImplicit for the legacy stream while a blocking
// stream captures).
bool is_capturing(StreamHandle stream);
// Queues `fn` on `stream`; inside a capture it becomes a node of the graph
// and runs at every launch.
void launch_host_func(StreamHandle stream, HostCallback fn);

}  // namespace kiln::runtime::cuda
