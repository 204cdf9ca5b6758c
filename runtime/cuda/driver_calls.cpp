#include "runtime/cuda/driver_calls.h"

#include "runtime/backend.h"

namespace kiln::runtime::cuda {

const DriverApi& driver_for(const std::string& what) {
  Backend& be = backend();
  if (!be.caps().cuda_interop) {
    throw Error(what + ": the " + std::string(be.name()) +
                " backend has no CUDA runtime (kernels run on the CPU; run with KILN_BACKEND=cuda on a machine "
                "with an NVIDIA GPU)");
  }
  std::string why;
  const DriverApi* cu = load_driver_api(&why);
  if (!cu) throw Error(what + ": " + why);
  make_primary_context_current(be.current_device());
  return *cu;
}

void check_call(const DriverApi& cu, CuResult r, const std::string& call) {
  if (r == cu_result::kSuccess) return;
  std::string msg = call + " failed: " + describe_result(cu, r);
  if (r == cu_result::kOutOfMemory) throw OutOfMemory(msg, 0);
  throw Error(msg);  // CUDARuntimeError, as CuPy raises for every runtime call
}

CuDevice device_handle(const DriverApi& cu, int device) {
  int count = 0;
  check_call(cu, cu.device_get_count(&count), "cuDeviceGetCount");
  if (device < 0 || device >= count) {
    throw Error("invalid device ordinal: device " + std::to_string(device) + " does not exist (this machine has " +
                          std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + ")");
  }
  CuDevice h = 0;
  check_call(cu, cu.device_get(&h, device), "cuDeviceGet");
  return h;
}

}  // namespace kiln::runtime::cuda
