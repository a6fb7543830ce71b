// The CUDA backend: the driver API (dlopen'ed, see cuda_driver.h) on the device's primary context,
// with NVRTC compiling to a cubin for the device's compute capability. No managed memory.
//
// Contract: open_cuda_backend() throws hqc::Error(ErrorKind::Device) whose message starts with
// "CUDA" when the driver is missing, reports no device, or fails; it never returns a fallback.
#pragma once

#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/device/backend.h"

namespace hqc::runtime {

std::unique_ptr<Backend> open_cuda_backend(int device_ordinal = 0);

// The CUDA device ordinal `backend` drives, or -1 when it is not the CUDA backend: NCCL binds its
// communicator to that device and works on that device's primary context (nccl_communicator.h).
int cuda_device_ordinal(const Backend& backend);

// What a fresh process pays once before its first CUDA query, started early on a thread of its own:
// the driver's initialisation (cuInit), the device's primary context, and NVRTC's first compile (its
// libraries loaded: the first program of a process compiles slower than the next). (The CUDA
// runtime's start for the library primitives is the backend's own: cuda_primitives::warm_up on a
// thread its constructor starts, not waited for before the first query.) On the H200 host
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

// A fresh process's first CUDA query compiled while the device's context is still being created
// (horseqc-run; a CudaWarmup creates it on its own thread). The device's properties need only the
// driver's initialisation and NVRTC only the compute capability, so the query can be planned,
// generated and compiled before open_cuda_backend() returns; the backend opened afterwards adopts
// the compile (Backend::adopt_compile): its own compile of the same module waits for this one
// instead of starting another.
// Contract: the constructor throws Error(Device) as open_cuda_backend() does when CUDA is unusable
// (the caller goes on without it). start() does not compile what `cache` already holds; a compile
// error does not surface there but where the backend collects the compile, with the compiler's message.
// hand_to() gives the compiles to a backend of the same device, driver and NVRTC (the same cache
// identity) and drops them otherwise; what is not handed over is waited for by the destructor.
class CudaAheadCompile {
 public:
  explicit CudaAheadCompile(int device_ordinal = 0);
  ~CudaAheadCompile();
  CudaAheadCompile(const CudaAheadCompile&) = delete;
  CudaAheadCompile& operator=(const CudaAheadCompile&) = delete;

  const DeviceProperties& properties() const { return props_; }
  // Starts NVRTC on `source` on a thread of its own (a copy of it); false: `cache` holds it already.
  bool start(const ModuleSource& source, KernelCache* cache);
  void hand_to(Backend& backend);

 private:
  DeviceProperties props_;
  std::string identity_;
  std::vector<std::pair<std::string, std::shared_future<PendingCompile::Compiled>>> compiles_;
};

}  // namespace hqc::runtime
