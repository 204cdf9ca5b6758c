// Checks kiln's own Driver API / NVRTC declarations (runtime/cuda/*_api.h)
// against the CUDA SDK headers. Built normally this file only checks what can
// be checked without the SDK; with -DKILN_CHECK_AGAINST_SDK_HEADERS (and
// -I<cuda>/include) every value and signature is compared at compile time:
//
//   g++ -std=c++20 -DKILN_CHECK_AGAINST_SDK_HEADERS -I. -I/usr/local/cuda/include
//       -fsyntax-only tests/cpp/test_cuda_abi.cpp
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

#include "runtime/cuda/driver_api.h"
#include "runtime/cuda/nvrtc_api.h"
#include "runtime/cuda/texture_api.h"
#include "runtime/texture.h"

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
#include <cuda.h>
#include <cudaProfiler.h>
#include <nvrtc.h>
#endif

namespace kiln::runtime::cuda {
namespace {

static_assert(sizeof(CuDevicePtr) == 8);
static_assert(sizeof(CuResult) == 4 && sizeof(NvrtcResult) == 4);

#ifdef KILN_CHECK_AGAINST_SDK_HEADERS

// --- sizes of the types passed across the boundary ---
static_assert(sizeof(CUresult) == sizeof(CuResult));
static_assert(sizeof(CUdevice) == sizeof(CuDevice));
static_assert(sizeof(CUdeviceptr) == sizeof(CuDevicePtr));
static_assert(sizeof(CUdevice_attribute) == sizeof(int));
static_assert(sizeof(CUfunction_attribute) == sizeof(int));
static_assert(sizeof(CUcontext) == sizeof(CuContext) && sizeof(CUmodule) == sizeof(CuModule));
static_assert(sizeof(CUfunction) == sizeof(CuFunction) && sizeof(CUstream) == sizeof(CuStream));
static_assert(sizeof(CUevent) == sizeof(CuEvent));
static_assert(sizeof(nvrtcResult) == sizeof(NvrtcResult));
static_assert(sizeof(nvrtcProgram) == sizeof(NvrtcProgram));

// --- result codes ---
static_assert(cu_result::kSuccess == CUDA_SUCCESS);
static_assert(cu_result::kInvalidValue == CUDA_ERROR_INVALID_VALUE);
static_assert(cu_result::kOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(cu_result::kNotInitialized == CUDA_ERROR_NOT_INITIALIZED);
static_assert(cu_result::kDeinitialized == CUDA_ERROR_DEINITIALIZED);
static_assert(cu_result::kNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(cu_result::kInvalidDevice == CUDA_ERROR_INVALID_DEVICE);
static_assert(cu_result::kInvalidImage == CUDA_ERROR_INVALID_IMAGE);
static_assert(cu_result::kInvalidContext == CUDA_ERROR_INVALID_CONTEXT);
static_assert(cu_result::kNoBinaryForGpu == CUDA_ERROR_NO_BINARY_FOR_GPU);
static_assert(cu_result::kInvalidPtx == CUDA_ERROR_INVALID_PTX);
static_assert(cu_result::kUnsupportedPtxVersion == CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
static_assert(cu_result::kInvalidHandle == CUDA_ERROR_INVALID_HANDLE);
static_assert(cu_result::kNotFound == CUDA_ERROR_NOT_FOUND);
static_assert(cu_result::kNotReady == CUDA_ERROR_NOT_READY);
static_assert(cu_result::kIllegalAddress == CUDA_ERROR_ILLEGAL_ADDRESS);
static_assert(cu_result::kLaunchOutOfResources == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
static_assert(cu_result::kLaunchTimeout == CUDA_ERROR_LAUNCH_TIMEOUT);
static_assert(cu_result::kAssert == CUDA_ERROR_ASSERT);
static_assert(cu_result::kHardwareStackError == CUDA_ERROR_HARDWARE_STACK_ERROR);
static_assert(cu_result::kIllegalInstruction == CUDA_ERROR_ILLEGAL_INSTRUCTION);
static_assert(cu_result::kMisalignedAddress == CUDA_ERROR_MISALIGNED_ADDRESS);
static_assert(cu_result::kInvalidAddressSpace == CUDA_ERROR_INVALID_ADDRESS_SPACE);
static_assert(cu_result::kInvalidPc == CUDA_ERROR_INVALID_PC);
static_assert(cu_result::kLaunchFailed == CUDA_ERROR_LAUNCH_FAILED);
static_assert(cu_result::kCooperativeLaunchTooLarge == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);

// --- attributes and flags ---
static_assert(cu_device_attr::kMaxThreadsPerBlock == CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(cu_device_attr::kWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(cu_device_attr::kMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu_device_attr::kComputeCapabilityMajor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu_device_attr::kComputeCapabilityMinor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu_device_attr::kMaxSharedMemoryPerBlockOptin ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(cu_func_attr::kMaxDynamicSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(kStreamDefault == CU_STREAM_DEFAULT);
static_assert(kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(kEventDefault == CU_EVENT_DEFAULT);
static_assert(kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(kEventWaitDefault == CU_EVENT_WAIT_DEFAULT);
static_assert(kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);

static_assert(nvrtc_result::kSuccess == NVRTC_SUCCESS);
static_assert(nvrtc_result::kOutOfMemory == NVRTC_ERROR_OUT_OF_MEMORY);
static_assert(nvrtc_result::kProgramCreationFailure == NVRTC_ERROR_PROGRAM_CREATION_FAILURE);
static_assert(nvrtc_result::kInvalidInput == NVRTC_ERROR_INVALID_INPUT);
static_assert(nvrtc_result::kInvalidProgram == NVRTC_ERROR_INVALID_PROGRAM);
static_assert(nvrtc_result::kInvalidOption == NVRTC_ERROR_INVALID_OPTION);
static_assert(nvrtc_result::kCompilation == NVRTC_ERROR_COMPILATION);
static_assert(nvrtc_result::kNameExpressionNotValid == NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID);

// --- signatures: each of our pointers, with SDK types substituted, must have
// the exact type of the SDK's function. The SDK macros (cuMemAlloc ->
// cuMemAlloc_v2, ...) are avoided by naming the exported symbols directly.
// Our declarations use int for enums and opaque structs for handles, so the
// comparison rewrites the SDK's type with those spellings.
template <typename T> struct ours { using type = T; };
template <> struct ours<CUresult> { using type = CuResult; };
template <> struct ours<CUdevice_attribute> { using type = int; };
template <> struct ours<CUfunction_attribute> { using type = int; };
template <> struct ours<CUcontext> { using type = CuContext; };
template <> struct ours<CUcontext*> { using type = CuContext*; };
template <> struct ours<CUmodule> { using type = CuModule; };
template <> struct ours<CUmodule*> { using type = CuModule*; };
template <> struct ours<CUfunction> { using type = CuFunction; };
template <> struct ours<CUfunction*> { using type = CuFunction*; };
template <> struct ours<CUstream> { using type = CuStream; };
template <> struct ours<CUstream*> { using type = CuStream*; };
template <> struct ours<CUevent> { using type = CuEvent; };
template <> struct ours<CUevent*> { using type = CuEvent*; };
template <> struct ours<CUgraph> { using type = CuGraph; };
template <> struct ours<CUgraph*> { using type = CuGraph*; };
template <> struct ours<CUgraphExec> { using type = CuGraphExec; };
template <> struct ours<CUgraphExec*> { using type = CuGraphExec*; };
template <> struct ours<const CUgraphNode**> { using type = const CuGraphNode**; };
template <> struct ours<const CUgraphEdgeData**> { using type = const void**; };
template <> struct ours<CUstreamCaptureMode> { using type = int; };
template <> struct ours<CUstreamCaptureMode*> { using type = int*; };
template <> struct ours<CUstreamCaptureStatus*> { using type = int*; };
template <> struct ours<CUlimit> { using type = int; };
template <> struct ours<CUpointer_attribute> { using type = int; };
template <> struct ours<CUipcMemHandle> { using type = CuIpcMemHandle; };
template <> struct ours<CUipcMemHandle*> { using type = CuIpcMemHandle*; };
template <> struct ours<nvrtcResult> { using type = NvrtcResult; };
template <> struct ours<nvrtcProgram> { using type = NvrtcProgram; };
template <> struct ours<nvrtcProgram*> { using type = NvrtcProgram*; };

template <typename F> struct translate;
template <typename R, typename... A> struct translate<R (*)(A...)> {
  using type = typename ours<R>::type (*)(typename ours<A>::type...);
};

#define KILN_SAME_SIGNATURE(field, sdk_fn)                                                \
  static_assert(std::is_same_v<decltype(DriverApi::field), translate<decltype(&sdk_fn)>::type>, \
                #sdk_fn " does not match DriverApi::" #field)
#define KILN_SAME_NVRTC_SIGNATURE(field, sdk_fn)                                           \
  static_assert(std::is_same_v<decltype(NvrtcApi::field), translate<decltype(&sdk_fn)>::type>, \
                #sdk_fn " does not match NvrtcApi::" #field)

KILN_SAME_SIGNATURE(init, cuInit);
KILN_SAME_SIGNATURE(driver_get_version, cuDriverGetVersion);
KILN_SAME_SIGNATURE(get_error_name, cuGetErrorName);
KILN_SAME_SIGNATURE(get_error_string, cuGetErrorString);
KILN_SAME_SIGNATURE(device_get_count, cuDeviceGetCount);
KILN_SAME_SIGNATURE(device_get, cuDeviceGet);
KILN_SAME_SIGNATURE(device_get_attribute, cuDeviceGetAttribute);
KILN_SAME_SIGNATURE(device_get_name, cuDeviceGetName);
KILN_SAME_SIGNATURE(device_total_mem, cuDeviceTotalMem_v2);
KILN_SAME_SIGNATURE(primary_ctx_retain, cuDevicePrimaryCtxRetain);
KILN_SAME_SIGNATURE(primary_ctx_release, cuDevicePrimaryCtxRelease_v2);
KILN_SAME_SIGNATURE(ctx_set_current, cuCtxSetCurrent);
KILN_SAME_SIGNATURE(ctx_get_current, cuCtxGetCurrent);
KILN_SAME_SIGNATURE(ctx_synchronize, cuCtxSynchronize);
KILN_SAME_SIGNATURE(mem_get_info, cuMemGetInfo_v2);
KILN_SAME_SIGNATURE(mem_alloc, cuMemAlloc_v2);
KILN_SAME_SIGNATURE(mem_free, cuMemFree_v2);
KILN_SAME_SIGNATURE(mem_host_alloc, cuMemHostAlloc);
KILN_SAME_SIGNATURE(mem_free_host, cuMemFreeHost);
KILN_SAME_SIGNATURE(memcpy_htod_async, cuMemcpyHtoDAsync_v2);
KILN_SAME_SIGNATURE(memcpy_dtoh_async, cuMemcpyDtoHAsync_v2);
KILN_SAME_SIGNATURE(memcpy_dtod_async, cuMemcpyDtoDAsync_v2);
KILN_SAME_SIGNATURE(memset_d8_async, cuMemsetD8Async);
KILN_SAME_SIGNATURE(stream_create, cuStreamCreate);
KILN_SAME_SIGNATURE(stream_destroy, cuStreamDestroy_v2);
KILN_SAME_SIGNATURE(stream_synchronize, cuStreamSynchronize);
KILN_SAME_SIGNATURE(stream_query, cuStreamQuery);
KILN_SAME_SIGNATURE(stream_wait_event, cuStreamWaitEvent);
KILN_SAME_SIGNATURE(event_create, cuEventCreate);
KILN_SAME_SIGNATURE(event_destroy, cuEventDestroy_v2);
KILN_SAME_SIGNATURE(event_record, cuEventRecord);
KILN_SAME_SIGNATURE(event_synchronize, cuEventSynchronize);
KILN_SAME_SIGNATURE(event_query, cuEventQuery);
KILN_SAME_SIGNATURE(event_elapsed_time, cuEventElapsedTime_v2);
KILN_SAME_SIGNATURE(module_load_data, cuModuleLoadData);
KILN_SAME_SIGNATURE(module_unload, cuModuleUnload);
KILN_SAME_SIGNATURE(module_get_function, cuModuleGetFunction);
KILN_SAME_SIGNATURE(func_set_attribute, cuFuncSetAttribute);
KILN_SAME_SIGNATURE(func_get_param_info, cuFuncGetParamInfo);
KILN_SAME_SIGNATURE(launch_kernel, cuLaunchKernel);
KILN_SAME_SIGNATURE(launch_cooperative_kernel, cuLaunchCooperativeKernel);
KILN_SAME_SIGNATURE(stream_create_with_priority, cuStreamCreateWithPriority);
KILN_SAME_SIGNATURE(stream_get_priority, cuStreamGetPriority);
KILN_SAME_SIGNATURE(stream_get_flags, cuStreamGetFlags);
KILN_SAME_SIGNATURE(ctx_get_stream_priority_range, cuCtxGetStreamPriorityRange);
KILN_SAME_SIGNATURE(launch_host_func, cuLaunchHostFunc);
KILN_SAME_SIGNATURE(stream_begin_capture, cuStreamBeginCapture_v2);
KILN_SAME_SIGNATURE(stream_end_capture, cuStreamEndCapture);
KILN_SAME_SIGNATURE(stream_is_capturing, cuStreamIsCapturing);
KILN_SAME_SIGNATURE(stream_get_capture_info_v3, cuStreamGetCaptureInfo_v3);
KILN_SAME_SIGNATURE(thread_exchange_stream_capture_mode, cuThreadExchangeStreamCaptureMode);
KILN_SAME_SIGNATURE(graph_instantiate, cuGraphInstantiateWithFlags);
KILN_SAME_SIGNATURE(graph_launch, cuGraphLaunch);
KILN_SAME_SIGNATURE(graph_upload, cuGraphUpload);
KILN_SAME_SIGNATURE(graph_exec_destroy, cuGraphExecDestroy);
KILN_SAME_SIGNATURE(graph_destroy, cuGraphDestroy);
KILN_SAME_SIGNATURE(graph_debug_dot_print, cuGraphDebugDotPrint);
KILN_SAME_SIGNATURE(mem_alloc_managed, cuMemAllocManaged);
KILN_SAME_SIGNATURE(mem_alloc_async, cuMemAllocAsync);
KILN_SAME_SIGNATURE(mem_free_async, cuMemFreeAsync);
KILN_SAME_SIGNATURE(memcpy_async, cuMemcpyAsync);
KILN_SAME_SIGNATURE(device_get_pci_bus_id, cuDeviceGetPCIBusId);
KILN_SAME_SIGNATURE(device_get_by_pci_bus_id, cuDeviceGetByPCIBusId);
KILN_SAME_SIGNATURE(pointer_get_attribute, cuPointerGetAttribute);
KILN_SAME_SIGNATURE(device_can_access_peer, cuDeviceCanAccessPeer);
KILN_SAME_SIGNATURE(ctx_enable_peer_access, cuCtxEnablePeerAccess);
KILN_SAME_SIGNATURE(ctx_disable_peer_access, cuCtxDisablePeerAccess);
KILN_SAME_SIGNATURE(ctx_get_limit, cuCtxGetLimit);
KILN_SAME_SIGNATURE(ctx_set_limit, cuCtxSetLimit);
KILN_SAME_SIGNATURE(ipc_get_mem_handle, cuIpcGetMemHandle);
KILN_SAME_SIGNATURE(ipc_open_mem_handle, cuIpcOpenMemHandle_v2);
KILN_SAME_SIGNATURE(ipc_close_mem_handle, cuIpcCloseMemHandle);
KILN_SAME_SIGNATURE(profiler_start, cuProfilerStart);
KILN_SAME_SIGNATURE(profiler_stop, cuProfilerStop);
static_assert(sizeof(CUipcMemHandle) == sizeof(CuIpcMemHandle));
static_assert(cu_result::kIllegalState == CUDA_ERROR_ILLEGAL_STATE);
static_assert(cu_result::kPeerAccessAlreadyEnabled == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
static_assert(cu_result::kStreamCaptureUnsupported == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
static_assert(cu_result::kStreamCaptureInvalidated == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
static_assert(cu_result::kStreamCaptureUnmatched == CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
static_assert(cu_result::kStreamCaptureUnjoined == CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
static_assert(cu_result::kStreamCaptureImplicit == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
static_assert(cu_result::kStreamCaptureWrongThread == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
static_assert(cu_device_attr::kMemoryPoolsSupported == CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
static_assert(cu_pointer_attr::kMemoryType == CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
static_assert(cu_pointer_attr::kDevicePointer == CU_POINTER_ATTRIBUTE_DEVICE_POINTER);
static_assert(cu_pointer_attr::kHostPointer == CU_POINTER_ATTRIBUTE_HOST_POINTER);
static_assert(cu_pointer_attr::kIsManaged == CU_POINTER_ATTRIBUTE_IS_MANAGED);
static_assert(cu_pointer_attr::kDeviceOrdinal == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
static_assert(cu_memory_type::kHost == CU_MEMORYTYPE_HOST && cu_memory_type::kDevice == CU_MEMORYTYPE_DEVICE);
static_assert(cu_memory_type::kUnified == CU_MEMORYTYPE_UNIFIED);
static_assert(cu_capture::kStatusActive == CU_STREAM_CAPTURE_STATUS_ACTIVE);
static_assert(cu_capture::kStatusInvalidated == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
static_assert(cu_capture::kModeGlobal == CU_STREAM_CAPTURE_MODE_GLOBAL);
static_assert(cu_capture::kModeThreadLocal == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(cu_capture::kModeRelaxed == CU_STREAM_CAPTURE_MODE_RELAXED);
static_assert(kMemAttachGlobal == CU_MEM_ATTACH_GLOBAL);
static_assert(kIpcMemLazyEnablePeerAccess == CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);

KILN_SAME_NVRTC_SIGNATURE(get_error_string, nvrtcGetErrorString);
KILN_SAME_NVRTC_SIGNATURE(version, nvrtcVersion);
KILN_SAME_NVRTC_SIGNATURE(create_program, nvrtcCreateProgram);
KILN_SAME_NVRTC_SIGNATURE(destroy_program, nvrtcDestroyProgram);
KILN_SAME_NVRTC_SIGNATURE(compile_program, nvrtcCompileProgram);
KILN_SAME_NVRTC_SIGNATURE(get_ptx_size, nvrtcGetPTXSize);
KILN_SAME_NVRTC_SIGNATURE(get_ptx, nvrtcGetPTX);
KILN_SAME_NVRTC_SIGNATURE(get_cubin_size, nvrtcGetCUBINSize);
KILN_SAME_NVRTC_SIGNATURE(get_cubin, nvrtcGetCUBIN);
KILN_SAME_NVRTC_SIGNATURE(get_log_size, nvrtcGetProgramLogSize);
KILN_SAME_NVRTC_SIGNATURE(get_log, nvrtcGetProgramLog);
KILN_SAME_NVRTC_SIGNATURE(add_name_expression, nvrtcAddNameExpression);
KILN_SAME_NVRTC_SIGNATURE(get_lowered_name, nvrtcGetLoweredName);
KILN_SAME_NVRTC_SIGNATURE(get_num_supported_archs, nvrtcGetNumSupportedArchs);
KILN_SAME_NVRTC_SIGNATURE(get_supported_archs, nvrtcGetSupportedArchs);

// --- CUDA arrays, texture and surface objects (runtime/cuda/texture_api.h) ---
#define KILN_SAME_FIELD(ours, sdk, a, b) static_assert(offsetof(ours, a) == offsetof(sdk, b), #a)
static_assert(sizeof(CuArray3DDescriptor) == sizeof(CUDA_ARRAY3D_DESCRIPTOR));
KILN_SAME_FIELD(CuArray3DDescriptor, CUDA_ARRAY3D_DESCRIPTOR, format, Format);
KILN_SAME_FIELD(CuArray3DDescriptor, CUDA_ARRAY3D_DESCRIPTOR, flags, Flags);
static_assert(sizeof(CuMemcpy3D) == sizeof(CUDA_MEMCPY3D));
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, src_memory_type, srcMemoryType);
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, src_array, srcArray);
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, src_height, srcHeight);
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, dst_memory_type, dstMemoryType);
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, dst_array, dstArray);
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, dst_height, dstHeight);
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, width_in_bytes, WidthInBytes);
KILN_SAME_FIELD(CuMemcpy3D, CUDA_MEMCPY3D, depth, Depth);
static_assert(sizeof(CuResourceDesc) == sizeof(CUDA_RESOURCE_DESC));
KILN_SAME_FIELD(CuResourceDesc, CUDA_RESOURCE_DESC, res.linear.size_in_bytes, res.linear.sizeInBytes);
KILN_SAME_FIELD(CuResourceDesc, CUDA_RESOURCE_DESC, res.pitch2d.num_channels, res.pitch2D.numChannels);
KILN_SAME_FIELD(CuResourceDesc, CUDA_RESOURCE_DESC, res.pitch2d.pitch_in_bytes, res.pitch2D.pitchInBytes);
KILN_SAME_FIELD(CuResourceDesc, CUDA_RESOURCE_DESC, flags, flags);
static_assert(sizeof(CuTextureDesc) == sizeof(CUDA_TEXTURE_DESC));
KILN_SAME_FIELD(CuTextureDesc, CUDA_TEXTURE_DESC, flags, flags);
KILN_SAME_FIELD(CuTextureDesc, CUDA_TEXTURE_DESC, border_color, borderColor);
#undef KILN_SAME_FIELD
static_assert(cu_array_format::kUnsignedInt8 == CU_AD_FORMAT_UNSIGNED_INT8);
static_assert(cu_array_format::kSignedInt32 == CU_AD_FORMAT_SIGNED_INT32);
static_assert(cu_array_format::kHalf == CU_AD_FORMAT_HALF && cu_array_format::kFloat == CU_AD_FORMAT_FLOAT);
static_assert(kTextureReadAsInteger == CU_TRSF_READ_AS_INTEGER);
static_assert(kTextureNormalizedCoordinates == CU_TRSF_NORMALIZED_COORDINATES && kTextureSrgb == CU_TRSF_SRGB);
// The runtime API's values that runtime/texture.h passes to the driver as they are.
static_assert(kResourceLinear == CU_RESOURCE_TYPE_LINEAR && kResourcePitch2D == CU_RESOURCE_TYPE_PITCH2D);
static_assert(kAddressMirror == CU_TR_ADDRESS_MODE_MIRROR && kAddressBorder == CU_TR_ADDRESS_MODE_BORDER);
static_assert(kFilterLinear == CU_TR_FILTER_MODE_LINEAR);
static_assert(kArrayLayered == CUDA_ARRAY3D_LAYERED && kArraySurfaceLoadStore == CUDA_ARRAY3D_SURFACE_LDST);

#endif  // KILN_CHECK_AGAINST_SDK_HEADERS

TEST(CudaAbi, DeclarationsCompile) {
#ifdef KILN_CHECK_AGAINST_SDK_HEADERS
  SUCCEED() << "checked against the SDK headers at compile time";
#else
  GTEST_SKIP() << "build with -DKILN_CHECK_AGAINST_SDK_HEADERS to compare with cuda.h/nvrtc.h";
#endif
}

}  // namespace
}  // namespace kiln::runtime::cuda
