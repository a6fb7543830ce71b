// CUDA implementation of Backend. One primary context, the legacy default stream (launches are
// ordered, cuMemcpy* synchronise with them), events for kernel timing. Streams are blocking
// streams (CU_STREAM_DEFAULT), so they also order against work on the legacy default stream;
// events for cross-stream ordering are created without timing; pinned host memory is
// cuMemHostAlloc(PORTABLE), or existing host memory registered in place (cuMemHostRegister).
#include "runtime/device/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "runtime/device/cuda_device_primitives.h"
#include "runtime/device/cuda_primitives.h"
#include "runtime/device/cuda_driver.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/device/nvrtc_compiler.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// The device `ordinal` names; Error(Device) when the driver reports none or fewer.
CUdevice cuda_device(const CudaDriver& driver, int ordinal) {
  int count = 0;
  driver.check(driver.device_get_count(&count), "cuDeviceGetCount");
  if (count == 0) throw Error(ErrorKind::Device, "CUDA is not available: the driver reports no CUDA device");
  if (ordinal < 0 || ordinal >= count) {
    throw Error(ErrorKind::Device, "CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) +
                                       " device(s))");
  }
  CUdevice device = 0;
  driver.check(driver.device_get(&device, ordinal), "cuDeviceGet");
  return device;
}

// What the planner and the compiler need of `device`: attributes only, no context.
DeviceProperties cuda_device_properties(const CudaDriver& driver, CUdevice device) {
  DeviceProperties props;
  char name[256] = {};
  driver.check(driver.device_get_name(name, sizeof(name) - 1, device), "cuDeviceGetName");
  int driver_version = 0;
  driver.check(driver.driver_get_version(&driver_version), "cuDriverGetVersion");
  size_t total = 0;
  driver.check(driver.device_total_mem(&total, device), "cuDeviceTotalMem");
  auto attribute = [&](CUdevice_attribute a) {
    int value = 0;
    driver.check(driver.device_get_attribute(&value, a, device), "cuDeviceGetAttribute");
    return value;
  };
  auto u = [&](CUdevice_attribute a) { return static_cast<uint32_t>(attribute(a)); };
  props.name = name;
  props.vendor = "NVIDIA";
  props.driver_version = std::to_string(driver_version / 1000) + "." + std::to_string((driver_version % 1000) / 10);
  props.api_version = "CUDA " + props.driver_version;
  props.compiler_version = nvrtc_version();
  props.compute_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  props.compute_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  props.is_gpu = true;
  props.multiprocessors = u(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  props.max_threads_per_block = u(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  props.max_threads_per_multiprocessor = u(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  props.max_blocks_per_multiprocessor = u(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  props.warp_size = u(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  props.shared_memory_per_block = u(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  props.shared_memory_per_block_optin = u(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  props.shared_memory_per_multiprocessor = u(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  props.reserved_shared_memory_per_block = u(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  props.registers_per_block = u(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  props.registers_per_multiprocessor = u(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  props.global_memory = total;
  props.l2_cache_bytes = u(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  props.clock_khz = u(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  props.memory_clock_khz = u(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  props.memory_bus_width_bits = u(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  props.async_engines = u(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  props.int64_atomics = true;
  return props;
}

// The kernel cache's identity of a CUDA device: what a cubin depends on.
std::string cuda_cache_identity(const DeviceProperties& props) {
  return "cuda|" + props.name + "|" + cuda_arch_name(props.compute_major, props.compute_minor) + "|" + props.driver_version +
         "|" + props.compiler_version;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int ordinal) : driver_(cuda_driver()), ordinal_(ordinal), device_(cuda_device(driver_, ordinal)) {
    driver_.check(driver_.primary_ctx_retain(&context_, device_), "cuDevicePrimaryCtxRetain");
    driver_.check(driver_.ctx_set_current(context_), "cuCtxSetCurrent");
    props_ = cuda_device_properties(driver_, device_);
    // The library's first call would pay the CUDA runtime's start and the loading of its kernels
    // (4.3 ms of TPC-H q3's first device top-k on an H200): paid now on a thread of its own, beside the
    // first query's compile and transfers; primitives() waits for it.
    try {
      library_warm_up_ = std::async(std::launch::async, [ordinal] { return cuda_primitives::warm_up(ordinal); });
    } catch (const std::system_error&) {
      // No thread to spare: the first library call pays it.
    }
  }

  ~CudaBackend() override {
    if (library_warm_up_.valid()) library_warm_up_.wait();
    drop_scratch();
    primitives_.reset();
    driver_.ctx_synchronize();
    driver_.primary_ctx_release(device_);
  }

  codegen::Dialect dialect() const override { return codegen::Dialect::Cuda; }
  const DeviceProperties& properties() const override { return props_; }
  int ordinal() const { return ordinal_; }

  std::string cache_identity() const override { return cuda_cache_identity(props_); }

  uint64_t raw_allocate(uint64_t bytes) override {
    CUdeviceptr ptr = 0;
    const CUresult status = driver_.mem_alloc(&ptr, bytes);
    if (status != CUDA_SUCCESS) {
      throw Error(ErrorKind::Device, "CUDA cannot allocate " + std::to_string(bytes) + " bytes of device memory: " +
                                         driver_.describe(status, "cuMemAlloc"));
    }
    return ptr;
  }

  void raw_free(uint64_t handle) noexcept override { driver_.mem_free(static_cast<CUdeviceptr>(handle)); }

  void raw_upload(uint64_t handle, uint64_t offset, const void* host, uint64_t bytes) override {
    driver_.check(driver_.memcpy_htod(handle + offset, host, bytes), "cuMemcpyHtoD");
  }

  void raw_download(uint64_t handle, uint64_t offset, void* host, uint64_t bytes) override {
    driver_.check(driver_.memcpy_dtoh(host, handle + offset, bytes), "cuMemcpyDtoH");
  }

  void raw_fill(uint64_t handle, uint64_t bytes, const void* pattern, uint32_t pattern_bytes) override {
    uint32_t words[2] = {0, 0};
    std::memcpy(words, pattern, pattern_bytes);
    if (pattern_bytes == 4 || words[0] == words[1]) {
      driver_.check(driver_.memset_d32(handle, words[0], bytes / 4), "cuMemsetD32");
      return;
    }
    // An 8-byte pattern (a hash table's empty key): a 64 KiB seed uploaded once, then doubled by
    // device-to-device copies — ⌈log2(bytes / 64 KiB)⌉ copies at device bandwidth. (Two strided
    // cuMemsetD2D32 of one word per 8-byte row write 4 bytes per row and were the slowest part of
    // setting up a large hash table.)
    const uint64_t elements = bytes / 8;
    if (elements == 0) return;
    uint64_t pattern64 = 0;
    std::memcpy(&pattern64, words, 8);
    const std::vector<uint64_t> seed(std::min<uint64_t>(elements, 8192), pattern64);
    driver_.check(driver_.memcpy_htod(handle, seed.data(), seed.size() * 8), "cuMemcpyHtoD (fill seed)");
    for (uint64_t done = seed.size(); done < elements; done *= 2) {
      const uint64_t n = std::min(done, elements - done);
      driver_.check(driver_.memcpy_dtod(handle + done * 8, handle, n * 8), "cuMemcpyDtoD (fill)");
    }
  }

  std::vector<char> compile_binary(const ModuleSource& source, std::string& log) override {
    return nvrtc_compile_module(source, cuda_arch_name(props_.compute_major, props_.compute_minor), log);
  }

  bool compiles_off_thread() const override { return true; }

  std::shared_ptr<Module> load_binary(const std::vector<char>& binary, const ModuleSource& source) override {
    CUmodule module = nullptr;
    if (driver_.module_load_data(&module, binary.data()) != CUDA_SUCCESS) return nullptr;
    std::vector<Kernel> kernels;
    for (const std::string& kernel_name : source.kernel_names) {
      CUfunction function = nullptr;
      const CUresult status = driver_.module_get_function(&function, module, kernel_name.c_str());
      if (status != CUDA_SUCCESS) {
        driver_.module_unload(module);
        throw Error(ErrorKind::Internal, source.label + ": kernel \"" + kernel_name + "\" not found in the module (" +
                                             driver_.describe(status, "cuModuleGetFunction") +
                                             "); is it declared extern \"C\" __global__?");
      }
      Kernel k;
      k.name = kernel_name;
      k.handle = reinterpret_cast<uint64_t>(function);
      k.attributes.registers_per_thread = attribute(function, CU_FUNC_ATTRIBUTE_NUM_REGS);
      k.attributes.static_shared_bytes = static_cast<uint64_t>(attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
      k.attributes.local_bytes_per_thread = static_cast<uint64_t>(attribute(function, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
      k.attributes.max_threads_per_block =
          static_cast<uint32_t>(attribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
      k.attributes.preferred_block_multiple = props_.warp_size;
      kernels.push_back(k);
    }
    return std::make_shared<Module>(this, reinterpret_cast<uint64_t>(module), std::move(kernels));
  }

  void raw_unload(uint64_t module_handle) noexcept override {
    driver_.module_unload(reinterpret_cast<CUmodule>(module_handle));
  }

  void launch(const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchConfig& config) override {
    launch_in(nullptr, kernel, args, config);
  }

  void launch_on(const Stream& stream, const Kernel& kernel, const std::vector<KernelArg>& args,
                 const LaunchConfig& config) override {
    launch_in(reinterpret_cast<CUstream>(stream.handle()), kernel, args, config);
  }

  TimedLaunch launch_on_timed(const Stream& stream, const Kernel& kernel, const std::vector<KernelArg>& args,
                              const LaunchConfig& config) override {
    auto s = reinterpret_cast<CUstream>(stream.handle());
    TimedLaunch timed{timing_event(s), Event()};
    launch_in(s, kernel, args, config);
    timed.end = timing_event(s);
    return timed;
  }

  Interval launch_interval_ms(const TimedLaunch& launch, const TimedLaunch& origin) override {
    float start = 0;
    float end = 0;
    auto o = reinterpret_cast<CUevent>(origin.start.handle());
    driver_.check(driver_.event_elapsed_time(&start, o, reinterpret_cast<CUevent>(launch.start.handle())),
                  "cuEventElapsedTime");
    driver_.check(driver_.event_elapsed_time(&end, o, reinterpret_cast<CUevent>(launch.end.handle())),
                  "cuEventElapsedTime");
    return {start, end};
  }

  DevicePrimitives& primitives() override {
    if (library_warm_up_.valid()) library_warm_up_.get();  // a failure there is the library call's to report
    if (!primitives_) primitives_ = make_cub_primitives(*this, ordinal_);
    return *primitives_;
  }

  uint64_t free_memory() override {
    size_t free = 0;
    size_t total = 0;
    driver_.check(driver_.mem_get_info(&free, &total), "cuMemGetInfo");
    return free;
  }

  void wait(const Stream& stream, const Event& event) override {
    driver_.check(driver_.stream_wait_event(reinterpret_cast<CUstream>(stream.handle()),
                                            reinterpret_cast<CUevent>(event.handle()), 0),
                  "cuStreamWaitEvent");
  }

  void synchronize(const Stream& stream) override {
    driver_.check(driver_.stream_synchronize(reinterpret_cast<CUstream>(stream.handle())), "cuStreamSynchronize");
  }

  void copy_device(const DeviceBuffer& target, const DeviceBuffer& source, uint64_t bytes) override {
    driver_.check(driver_.memcpy_dtod(target.handle(), source.handle(), bytes), "cuMemcpyDtoD");
    synchronize();
  }

  int driver_active_blocks(const Kernel& kernel, uint32_t block_size, uint32_t dynamic_shared_bytes) override {
    auto function = reinterpret_cast<CUfunction>(kernel.handle);
    // Opted in to all the dynamic shared memory the device allows next to the static part (the
    // planner's assumption, and what cuda_occupancy.h's oracle test gives the kernel).
    const uint64_t optin = props_.shared_memory_per_block_optin;
    const uint64_t static_shared = kernel.attributes.static_shared_bytes;
    if (optin > static_shared) {
      driver_.check(driver_.func_set_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               static_cast<int>(optin - static_shared)),
                    "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }
    int blocks = 0;
    driver_.check(driver_.occupancy_max_active_blocks(&blocks, function, static_cast<int>(block_size), dynamic_shared_bytes),
                  "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return blocks;
  }

  uint64_t raw_allocate_pinned(uint64_t bytes, void** data) override {
    const CUresult status = driver_.mem_host_alloc(data, bytes, CU_MEMHOSTALLOC_PORTABLE);
    if (status != CUDA_SUCCESS) {
      throw Error(ErrorKind::Device, "CUDA cannot allocate " + std::to_string(bytes) + " bytes of pinned host memory: " +
                                         driver_.describe(status, "cuMemHostAlloc"));
    }
    return reinterpret_cast<uint64_t>(*data);  // never kRegisteredHandle
  }

  std::optional<uint64_t> raw_register_host(void* data, uint64_t bytes) noexcept override {
    if (driver_.mem_host_register(data, bytes, CU_MEMHOSTREGISTER_PORTABLE) != CUDA_SUCCESS) return std::nullopt;
    return kRegisteredHandle;
  }

  void raw_free_pinned(uint64_t handle, void* data) noexcept override {
    if (handle == kRegisteredHandle) {
      driver_.mem_host_unregister(data);
    } else {
      driver_.mem_free_host(data);
    }
  }

  uint64_t raw_create_stream() override {
    CUstream stream = nullptr;
    driver_.check(driver_.stream_create(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
    return reinterpret_cast<uint64_t>(stream);
  }

  void raw_destroy_stream(uint64_t handle) noexcept override {
    auto stream = reinterpret_cast<CUstream>(handle);
    driver_.stream_synchronize(stream);
    driver_.stream_destroy(stream);
  }

  uint64_t raw_record(uint64_t stream) override {
    CUevent event = nullptr;
    driver_.check(driver_.event_create(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    const CUresult status = driver_.event_record(event, reinterpret_cast<CUstream>(stream));
    if (status != CUDA_SUCCESS) {
      driver_.event_destroy(event);
      driver_.check(status, "cuEventRecord");
    }
    return reinterpret_cast<uint64_t>(event);
  }

  void raw_release_event(uint64_t event) noexcept override { driver_.event_destroy(reinterpret_cast<CUevent>(event)); }

  void raw_upload_async(uint64_t stream, uint64_t target, uint64_t target_offset, const void* host,
                        uint64_t bytes) override {
    driver_.check(driver_.memcpy_htod_async(target + target_offset, host, bytes, reinterpret_cast<CUstream>(stream)),
                  "cuMemcpyHtoDAsync");
  }

 private:
  // An event with timing recorded on `stream` now (raw_record's events have timing disabled).
  Event timing_event(CUstream stream) {
    CUevent event = nullptr;
    driver_.check(driver_.event_create(&event, CU_EVENT_DEFAULT), "cuEventCreate");
    const CUresult status = driver_.event_record(event, stream);
    if (status != CUDA_SUCCESS) {
      driver_.event_destroy(event);
      driver_.check(status, "cuEventRecord");
    }
    return Event(this, reinterpret_cast<uint64_t>(event));
  }

  // The pinned-buffer handle of host memory registered in place (an allocation's handle is its
  // non-null address).
  static constexpr uint64_t kRegisteredHandle = 0;

  void launch_in(CUstream stream, const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchConfig& config) {
    auto function = reinterpret_cast<CUfunction>(kernel.handle);
    if (config.grid_blocks == 0 || config.grid_blocks > 0x7fffffffULL) {
      throw Error(ErrorKind::Device, "CUDA launch of " + kernel.name + ": grid of " +
                                         std::to_string(config.grid_blocks) + " blocks is out of range");
    }
    const uint64_t static_shared = kernel.attributes.static_shared_bytes;
    if (static_shared + config.dynamic_shared_bytes > props_.shared_memory_per_block) {
      // Above 48 KiB the kernel must opt in to the larger carve-out.
      driver_.check(driver_.func_set_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               static_cast<int>(config.dynamic_shared_bytes)),
                    "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }
    // cuLaunchKernel wants a pointer to each argument's value; keep the values alive here.
    std::vector<uint64_t> storage(args.size());
    std::vector<void*> pointers;
    for (size_t i = 0; i < args.size(); ++i) {
      const KernelArg& a = args[i];
      void* slot = &storage[i];
      switch (a.kind) {
        case KernelArg::Kind::Buffer: std::memcpy(slot, &a.buffer, 8); break;
        case KernelArg::Kind::I32: std::memcpy(slot, &a.i32, 4); break;
        case KernelArg::Kind::I64: std::memcpy(slot, &a.i64, 8); break;
        case KernelArg::Kind::U64: std::memcpy(slot, &a.u64, 8); break;
        case KernelArg::Kind::F64: std::memcpy(slot, &a.f64, 8); break;
        case KernelArg::Kind::Scratch: continue;  // extern __shared__ in CUDA, not a parameter
      }
      pointers.push_back(slot);
    }
    const CUresult status =
        driver_.launch_kernel(function, static_cast<unsigned>(config.grid_blocks), 1, 1, config.block_size, 1, 1,
                              config.dynamic_shared_bytes, stream, pointers.data(), nullptr);
    if (status != CUDA_SUCCESS) {
      throw Error(ErrorKind::Device, "CUDA launch of " + kernel.name + " (" + std::to_string(config.grid_blocks) +
                                         " blocks x " + std::to_string(config.block_size) + " threads, " +
                                         std::to_string(config.dynamic_shared_bytes) + " B scratchpad) failed: " +
                                         driver_.describe(status, "cuLaunchKernel"));
    }
  }


 public:
  double launch_timed(const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchConfig& config) override {
    CUevent start = nullptr;
    CUevent stop = nullptr;
    driver_.check(driver_.event_create(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    driver_.check(driver_.event_create(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    float ms = 0;
    try {
      driver_.check(driver_.event_record(start, nullptr), "cuEventRecord");
      launch(kernel, args, config);
      driver_.check(driver_.event_record(stop, nullptr), "cuEventRecord");
      driver_.check(driver_.event_synchronize(stop), ("kernel " + kernel.name).c_str());
      driver_.check(driver_.event_elapsed_time(&ms, start, stop), "cuEventElapsedTime");
    } catch (...) {
      driver_.event_destroy(start);
      driver_.event_destroy(stop);
      throw;
    }
    driver_.event_destroy(start);
    driver_.event_destroy(stop);
    return ms;
  }

  void synchronize() override { driver_.check(driver_.ctx_synchronize(), "cuCtxSynchronize (kernel execution)"); }

 private:
  int attribute(CUfunction function, CUfunction_attribute which) const {
    int value = 0;
    driver_.check(driver_.func_get_attribute(&value, which, function), "cuFuncGetAttribute");
    return value;
  }

  const CudaDriver& driver_;
  int ordinal_ = 0;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  DeviceProperties props_;
  std::unique_ptr<DevicePrimitives> primitives_;  // CUB on the primary context, made by primitives()
  std::future<std::string> library_warm_up_;       // cuda_primitives::warm_up, started by the constructor
};

}  // namespace

std::unique_ptr<Backend> open_cuda_backend(int device_ordinal) { return std::make_unique<CudaBackend>(device_ordinal); }

struct CudaWarmup::State {
  CUdevice device = 0;
  CUcontext context = nullptr;  // retained by the thread, released by the destructor
  std::thread thread;
};

CudaWarmup::CudaWarmup(int device_ordinal) : state_(std::make_unique<State>()) {
  State* s = state_.get();
  s->thread = std::thread([s, device_ordinal] {
    try {
      const CudaDriver& driver = cuda_driver();  // dlopen + cuInit
      CUdevice device = 0;
      if (driver.device_get(&device, device_ordinal) != CUDA_SUCCESS) return;
      CUcontext context = nullptr;
      if (driver.primary_ctx_retain(&context, device) != CUDA_SUCCESS) return;
      s->device = device;
      s->context = context;
      int major = 0, minor = 0;
      driver.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
      driver.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
      std::string log;
      nvrtc_compile_cubin("extern \"C\" __global__ void hqc_warm_up() {}\n", {"--minimal"}, cuda_arch_name(major, minor),
                          "warm-up", log);
    } catch (const Error&) {
      // CUDA or NVRTC unavailable: the backend's own open says so.
    }
  });
}

CudaWarmup::~CudaWarmup() {
  state_->thread.join();
  if (state_->context != nullptr) cuda_driver().primary_ctx_release(state_->device);
}

CudaAheadCompile::CudaAheadCompile(int device_ordinal) {
  const CudaDriver& driver = cuda_driver();  // waits for a CudaWarmup's cuInit
  props_ = cuda_device_properties(driver, cuda_device(driver, device_ordinal));
  identity_ = cuda_cache_identity(props_);
}

CudaAheadCompile::~CudaAheadCompile() = default;  // a compile not handed over is waited for

bool CudaAheadCompile::start(const ModuleSource& source, KernelCache* cache) {
  std::string key = KernelCache::key_for(identity_, source.source, source.options);
  if (cache != nullptr && cache->load(key)) return false;  // compiled by an earlier process
  auto copy = std::make_shared<const ModuleSource>(source);
  const std::string arch = cuda_arch_name(props_.compute_major, props_.compute_minor);
  auto compile = [copy, arch] {
    const auto begun = std::chrono::steady_clock::now();
    PendingCompile::Compiled c;
    c.binary = nvrtc_compile_module(*copy, arch, c.log);
    c.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begun).count();
    return c;
  };
  compiles_.emplace_back(std::move(key), std::async(std::launch::async, compile).share());
  return true;
}

void CudaAheadCompile::hand_to(Backend& backend) {
  if (backend.cache_identity() == identity_)
    for (auto& [key, compile] : compiles_) backend.adopt_compile(key, std::move(compile));
  compiles_.clear();
}

int cuda_device_ordinal(const Backend& backend) {
  const auto* cuda = dynamic_cast<const CudaBackend*>(&backend);
  return cuda != nullptr ? cuda->ordinal() : -1;
}

}  // namespace hqc::runtime
