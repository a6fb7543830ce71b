// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so that horseqc builds, links
// and runs its OpenCL path on machines without an NVIDIA driver. <cuda.h> is included for types
// and enum values only; every function is reached through the pointers below.
//
// Contract: cuda_driver() returns the loaded table (loading and cuInit'ing once per process) or
// throws hqc::Error(ErrorKind::Device) saying which step failed (library not found, symbol
// missing, cuInit error text). check() turns a CUresult into an Error naming the call.
#pragma once

#include <string>

#include <cuda.h>

namespace hqc::runtime {

struct CudaDriver {
  void* library = nullptr;
  // Versioned symbol names (the _v2 suffixes) are what the driver exports for these ABIs.
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem_v2) device_total_mem = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease_v2) primary_ctx_release = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuMemAlloc_v2) mem_alloc = nullptr;
  decltype(&::cuMemFree_v2) mem_free = nullptr;
  decltype(&::cuMemcpyHtoD_v2) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH_v2) memcpy_dtoh = nullptr;
  decltype(&::cuMemsetD32_v2) memset_d32 = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy_v2) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  // Streams, asynchronous copies and pinned host memory (the concurrent / streamed executor).
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy_v2) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamWaitEvent) stream_wait_event = nullptr;
  decltype(&::cuMemcpyHtoDAsync_v2) memcpy_htod_async = nullptr;
  decltype(&::cuMemcpyDtoD_v2) memcpy_dtod = nullptr;
  decltype(&::cuMemcpyDtoDAsync_v2) memcpy_dtod_async = nullptr;
  decltype(&::cuMemHostAlloc) mem_host_alloc = nullptr;
  decltype(&::cuMemFreeHost) mem_free_host = nullptr;
  decltype(&::cuMemHostRegister) mem_host_register = nullptr;  // cuMemHostRegister_v2
  decltype(&::cuMemHostUnregister) mem_host_unregister = nullptr;
  decltype(&::cuMemGetInfo_v2) mem_get_info = nullptr;
  // The driver's own occupancy calculator (bench/occupancy_vs_driver compares the planner with it).
  decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy_max_active_blocks = nullptr;
  // cuEventElapsedTime and cuEventElapsedTime_v2 share this signature; whichever the driver has.
  CUresult (*event_elapsed_time)(float*, CUevent, CUevent) = nullptr;

  // "cuMemAlloc: out of memory (CUDA_ERROR_OUT_OF_MEMORY)"
  std::string describe(CUresult status, const char* call) const;
  // Throws Error(Device) unless status == CUDA_SUCCESS.
  void check(CUresult status, const char* call) const;
};

const CudaDriver& cuda_driver();

}  // namespace hqc::runtime
