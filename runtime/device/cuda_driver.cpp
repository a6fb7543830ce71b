// Loads libcuda.so.1 once per process and resolves the driver API entry points horseqc uses.
// The library is never linked: a machine without the NVIDIA driver gets a clear Error instead of
// a loader failure at program start.
#include "runtime/device/cuda_driver.h"

#include <mutex>

#include <dlfcn.h>

#include "storage/error.h"

namespace hqc::runtime {

namespace {

template <typename Fn>
void resolve(void* library, Fn& target, const char* symbol) {
  target = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (target == nullptr) {
    throw Error(ErrorKind::Device, std::string("CUDA driver libcuda.so.1 lacks ") + symbol +
                                       ": the NVIDIA driver is too old for horseqc");
  }
}

CudaDriver load_driver() {
  CudaDriver d;
  d.library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (d.library == nullptr) {
    const char* why = dlerror();
    throw Error(ErrorKind::Device, std::string("CUDA is not available: libcuda.so.1 not found (") +
                                       (why ? why : "dlopen failed") + "); is the NVIDIA driver installed?");
  }
  resolve(d.library, d.init, "cuInit");
  resolve(d.library, d.driver_get_version, "cuDriverGetVersion");
  resolve(d.library, d.get_error_string, "cuGetErrorString");
  resolve(d.library, d.get_error_name, "cuGetErrorName");
  resolve(d.library, d.device_get_count, "cuDeviceGetCount");
  resolve(d.library, d.device_get, "cuDeviceGet");
  resolve(d.library, d.device_get_name, "cuDeviceGetName");
  resolve(d.library, d.device_get_attribute, "cuDeviceGetAttribute");
  resolve(d.library, d.device_total_mem, "cuDeviceTotalMem_v2");
  resolve(d.library, d.primary_ctx_retain, "cuDevicePrimaryCtxRetain");
  resolve(d.library, d.primary_ctx_release, "cuDevicePrimaryCtxRelease_v2");
  resolve(d.library, d.ctx_set_current, "cuCtxSetCurrent");
  resolve(d.library, d.ctx_synchronize, "cuCtxSynchronize");
  resolve(d.library, d.mem_alloc, "cuMemAlloc_v2");
  resolve(d.library, d.mem_free, "cuMemFree_v2");
  resolve(d.library, d.memcpy_htod, "cuMemcpyHtoD_v2");
  resolve(d.library, d.memcpy_dtoh, "cuMemcpyDtoH_v2");
  resolve(d.library, d.memset_d32, "cuMemsetD32_v2");
  resolve(d.library, d.module_load_data, "cuModuleLoadData");
  resolve(d.library, d.module_unload, "cuModuleUnload");
  resolve(d.library, d.module_get_function, "cuModuleGetFunction");
  resolve(d.library, d.func_get_attribute, "cuFuncGetAttribute");
  resolve(d.library, d.func_set_attribute, "cuFuncSetAttribute");
  resolve(d.library, d.launch_kernel, "cuLaunchKernel");
  resolve(d.library, d.event_create, "cuEventCreate");
  resolve(d.library, d.event_destroy, "cuEventDestroy_v2");
  resolve(d.library, d.event_record, "cuEventRecord");
  resolve(d.library, d.event_synchronize, "cuEventSynchronize");
  resolve(d.library, d.stream_create, "cuStreamCreate");
  resolve(d.library, d.stream_destroy, "cuStreamDestroy_v2");
  resolve(d.library, d.stream_synchronize, "cuStreamSynchronize");
  resolve(d.library, d.stream_wait_event, "cuStreamWaitEvent");
  resolve(d.library, d.memcpy_htod_async, "cuMemcpyHtoDAsync_v2");
  resolve(d.library, d.memcpy_dtod, "cuMemcpyDtoD_v2");
  resolve(d.library, d.memcpy_dtod_async, "cuMemcpyDtoDAsync_v2");
  resolve(d.library, d.mem_host_alloc, "cuMemHostAlloc");
  resolve(d.library, d.mem_free_host, "cuMemFreeHost");
  resolve(d.library, d.mem_host_register, "cuMemHostRegister_v2");
  resolve(d.library, d.mem_host_unregister, "cuMemHostUnregister");
  resolve(d.library, d.mem_get_info, "cuMemGetInfo_v2");
  resolve(d.library, d.occupancy_max_active_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  d.event_elapsed_time = reinterpret_cast<decltype(d.event_elapsed_time)>(dlsym(d.library, "cuEventElapsedTime_v2"));
  if (d.event_elapsed_time == nullptr) resolve(d.library, d.event_elapsed_time, "cuEventElapsedTime");

  const CUresult status = d.init(0);
  if (status != CUDA_SUCCESS) {
    throw Error(ErrorKind::Device, "CUDA is not available: " + d.describe(status, "cuInit"));
  }
  return d;
}

}  // namespace

std::string CudaDriver::describe(CUresult status, const char* call) const {
  const char* text = nullptr;
  const char* code = nullptr;
  if (get_error_string) get_error_string(status, &text);
  if (get_error_name) get_error_name(status, &code);
  return std::string(call) + ": " + (text ? text : "unknown error") + " (" +
         (code ? code : "CUresult " + std::to_string(static_cast<int>(status))) + ")";
}

void CudaDriver::check(CUresult status, const char* call) const {
  if (status != CUDA_SUCCESS) throw Error(ErrorKind::Device, "CUDA error: " + describe(status, call));
}

const CudaDriver& cuda_driver() {
  // Loading is attempted once; a failure is remembered so every open reports the same reason.
  static std::once_flag once;
  static CudaDriver driver;
  static std::string failure;
  std::call_once(once, [] {
    try {
      driver = load_driver();
    } catch (const Error& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw Error(ErrorKind::Device, failure);
  return driver;
}

}  // namespace hqc::runtime
