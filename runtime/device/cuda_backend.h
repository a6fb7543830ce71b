// The CUDA backend: the driver API (dlopen'ed, see cuda_driver.h) on the device's primary context,
// with NVRTC compiling to a cubin for the device's compute capability. No managed memory.
//
// Contract: open_cuda_backend() throws hqc::Error(ErrorKind::Device) whose message starts with
// "CUDA" when the driver is missing, reports no device, or fails; it never returns a fallback.
#pragma once

#include <memory>

#include "runtime/device/backend.h"

namespace hqc::runtime {

std::unique_ptr<Backend> open_cuda_backend(int device_ordinal = 0);

// The CUDA device ordinal `backend` drives, or -1 when it is not the CUDA backend: NCCL binds its
// communicator to that device and works on that device's primary context (nccl_communicator.h).
int cuda_device_ordinal(const Backend& backend);

// What a fresh process pays once before its first CUDA query, started early on a thread of its own:
// the driver's initialisation (cuInit), the device's primary context, and NVRTC's first compile (its
// libraries loaded: the first program of a process compiles slower than the next). On the H200 host
// the first two take 0.2-0.4 s together. horseqc-run starts one before it loads its data, so that
// open_cuda_backend() on the calling thread finds the driver initialised and the context created.
// Holds a retain of the primary context until destroyed (the backend then holds its own); the
// destructor waits for the thread. Failures are ignored: open_cuda_backend() reports them.
class CudaWarmup {
 public:
  explicit CudaWarmup(int device_ordinal = 0);
  ~CudaWarmup();
  CudaWarmup(const CudaWarmup&) = delete;
  CudaWarmup& operator=(const CudaWarmup&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hqc::runtime
