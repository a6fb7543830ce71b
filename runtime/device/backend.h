// The device abstraction every other runtime file talks to: one GPU (or PoCL CPU device) behind
// either CUDA (driver API loaded with dlopen + NVRTC) or OpenCL (ICD loader).
//
// Contract:
//   - open_backend() returns a usable backend or throws hqc::Error(ErrorKind::Device) saying why
//     (library missing, no device, driver error text). Asking for CUDA never yields OpenCL: there is
//     no silent fallback. Auto picks CUDA, else an OpenCL GPU, else an OpenCL CPU.
//   - Every backend reports which device it is (name(), device_description(), properties()).
//   - DeviceBuffer owns device memory and Module a loaded program (RAII); neither may outlive the
//     Backend that made it.
//   - Backend::compile() consults the KernelCache when one is given: a hit skips the compiler.
//   - launch() is asynchronous on the backend's default in-order queue/stream; download() and
//     synchronize() wait for everything launched before them.
//   - Streams (CUDA streams / OpenCL in-order command queues) carry asynchronous copies from pinned
//     host memory and launches that may overlap with other streams' work; events order work across
//     streams. Work on a stream may start only after everything issued on the default queue before
//     it (the executor synchronises before using streams), and synchronize() waits for all streams.
//   - A timed launch on a stream (launch_on_timed) keeps its device start and end: once the stream
//     has passed it, launch_interval_ms() gives both on one device clock, so launches on different
//     streams can be compared (CUDA: timing events around it; OpenCL: the kernel's profiling info).
//   - primitives() offers device-wide sort, gather and scans from libraries, ordered after the
//     default queue's work and complete on return (device_primitives.h).
//   - Device constants (SM count, scratchpad sizes, ...) come from the device, never hard-coded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "codegen/dialect.h"

namespace hqc::runtime {

class KernelCache;
class DevicePrimitives;

enum class DeviceChoice { Auto, Cuda, OpenCL };

// "auto", "cuda", "opencl" (as the CLI spells it); throws Error(Usage) listing the choices otherwise.
DeviceChoice parse_device_choice(std::string_view text);
const char* device_choice_name(DeviceChoice choice);

// What the planner needs to know about a device. Fields the API cannot report stay 0.
struct DeviceProperties {
  std::string name;             // "NVIDIA H100 80GB HBM3", "pthread-skylake-avx512-..."
  std::string vendor;           // "NVIDIA", "Portable Computing Language", ...
  std::string driver_version;   // CUDA driver "13.0" / OpenCL driver version string
  std::string api_version;      // "CUDA 13.0" / "OpenCL 3.0 PoCL ..."
  std::string compiler_version; // "NVRTC 13.0" / OpenCL C version; part of the kernel cache key
  int compute_major = 0;        // CUDA compute capability; on OpenCL NVIDIA's (cl_nv_device_attribute_query), else 0
  int compute_minor = 0;
  bool is_gpu = false;
  uint32_t multiprocessors = 0;        // SMs / OpenCL compute units
  uint32_t max_threads_per_block = 0;
  uint32_t max_threads_per_multiprocessor = 0;
  uint32_t max_blocks_per_multiprocessor = 0;
  uint32_t warp_size = 0;              // warp size / preferred work-group size multiple
  uint64_t shared_memory_per_block = 0;        // default static limit (48 KiB on NVIDIA)
  uint64_t shared_memory_per_block_optin = 0;  // with the opt-in attribute (227 KiB on H100)
  uint64_t shared_memory_per_multiprocessor = 0;
  uint64_t reserved_shared_memory_per_block = 0;
  uint32_t registers_per_block = 0;
  uint32_t registers_per_multiprocessor = 0;
  uint64_t global_memory = 0;
  uint64_t l2_cache_bytes = 0;
  uint32_t clock_khz = 0;
  uint32_t memory_clock_khz = 0;
  uint32_t memory_bus_width_bits = 0;
  uint32_t async_engines = 0;          // copy engines (CUDA)
  bool int64_atomics = false;          // 64-bit global atomics available
};

// What the compiler decided for one kernel (cuFuncGetAttribute / clGetKernelWorkGroupInfo).
struct KernelAttributes {
  int registers_per_thread = 0;        // 0 when the API does not say (OpenCL)
  uint64_t static_shared_bytes = 0;    // __shared__ / __local declared in the kernel
  uint64_t local_bytes_per_thread = 0; // spills / private memory
  uint32_t max_threads_per_block = 0;  // the most this compiled kernel can be launched with
  uint32_t preferred_block_multiple = 0;
};

class Backend;

// Page-locked host memory (CUDA cuMemHostAlloc; OpenCL a CL_MEM_ALLOC_HOST_PTR buffer kept mapped),
// the source of asynchronous uploads. Movable, frees itself; must not outlive its Backend.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(Backend* owner, uint64_t handle, void* data, uint64_t bytes)
      : owner_(owner), handle_(handle), data_(data), bytes_(bytes) {}
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  ~PinnedBuffer();

  void* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t handle() const { return handle_; }
  void release();

 private:
  Backend* owner_ = nullptr;
  uint64_t handle_ = 0;
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// An in-order queue of copies and launches (CUstream / cl_command_queue). Movable, destroys itself.
class Stream {
 public:
  Stream() = default;
  Stream(Backend* owner, uint64_t handle) : owner_(owner), handle_(handle) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept : owner_(other.owner_), handle_(other.handle_) { other.owner_ = nullptr; }
  Stream& operator=(Stream&& other) noexcept;
  ~Stream();
  uint64_t handle() const { return handle_; }

 private:
  Backend* owner_ = nullptr;
  uint64_t handle_ = 0;
};

// A point in a stream (CUevent / a marker's cl_event): another stream can wait for it. Movable.
class Event {
 public:
  Event() = default;
  Event(Backend* owner, uint64_t handle) : owner_(owner), handle_(handle) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : owner_(other.owner_), handle_(other.handle_) { other.owner_ = nullptr; }
  Event& operator=(Event&& other) noexcept;
  ~Event();
  uint64_t handle() const { return handle_; }
  bool valid() const { return owner_ != nullptr; }

 private:
  Backend* owner_ = nullptr;
  uint64_t handle_ = 0;
};

// A launch on a stream whose device start and end can be read once it completed
// (Backend::launch_on_timed / launch_interval_ms). CUDA: events recorded before and after it;
// OpenCL: `start` is the launch's own profiled event and `end` is unused.
struct TimedLaunch {
  Event start;
  Event end;
};

// Device memory. Movable, not copyable; frees itself. Sizes are in bytes and 64-bit.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Backend* owner, uint64_t handle, uint64_t bytes) : owner_(owner), handle_(handle), bytes_(bytes) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer();

  uint64_t bytes() const { return bytes_; }
  bool valid() const { return owner_ != nullptr; }
  // CUdeviceptr or cl_mem, as an integer; only backends interpret it.
  uint64_t handle() const { return handle_; }

  // Copies `bytes` from the host to the buffer at `offset`; throws Error(Internal) if out of range.
  void upload(const void* host, uint64_t bytes, uint64_t offset = 0);
  template <typename T>
  void upload(const std::vector<T>& host) { upload(host.data(), host.size() * sizeof(T)); }
  void download(void* host, uint64_t bytes, uint64_t offset = 0) const;
  template <typename T>
  std::vector<T> download_as(uint64_t count) const {
    std::vector<T> out(count);
    download(out.data(), count * sizeof(T));
    return out;
  }
  // Fills the whole buffer with a repeated 4- or 8-byte pattern (bytes() must be a multiple of it).
  void fill(const void* pattern, uint32_t pattern_bytes);
  void fill_u32(uint32_t value) { fill(&value, 4); }
  void fill_u64(uint64_t value) { fill(&value, 8); }
  void release();

 private:
  Backend* owner_ = nullptr;
  uint64_t handle_ = 0;
  uint64_t bytes_ = 0;
};

// One argument of a kernel launch. `Scratch` is the dialect difference for dynamic scratchpad:
// OpenCL receives it as a __local pointer argument of LaunchConfig::dynamic_shared_bytes bytes,
// CUDA kernels use `extern __shared__` and the argument is skipped.
struct KernelArg {
  enum class Kind { Buffer, I32, I64, U64, F64, Scratch };
  Kind kind = Kind::I32;
  uint64_t buffer = 0;  // handle for Kind::Buffer
  int32_t i32 = 0;
  int64_t i64 = 0;
  uint64_t u64 = 0;
  double f64 = 0;

  static KernelArg buf(const DeviceBuffer& b) { KernelArg a; a.kind = Kind::Buffer; a.buffer = b.handle(); return a; }
  static KernelArg int32(int32_t v) { KernelArg a; a.kind = Kind::I32; a.i32 = v; return a; }
  static KernelArg int64(int64_t v) { KernelArg a; a.kind = Kind::I64; a.i64 = v; return a; }
  static KernelArg uint64(uint64_t v) { KernelArg a; a.kind = Kind::U64; a.u64 = v; return a; }
  static KernelArg float64(double v) { KernelArg a; a.kind = Kind::F64; a.f64 = v; return a; }
  static KernelArg scratch() { KernelArg a; a.kind = Kind::Scratch; return a; }
};

struct LaunchConfig {
  uint64_t grid_blocks = 1;          // number of CTAs / work-groups
  uint32_t block_size = 128;         // threads per CTA / work-items per work-group
  uint32_t dynamic_shared_bytes = 0; // dynamic scratchpad per CTA
};

// A compiled kernel inside a Module. Valid while its Module lives.
struct Kernel {
  std::string name;
  KernelAttributes attributes;
  uint64_t handle = 0;  // CUfunction or cl_kernel
};

// A loaded program (CUmodule / cl_program) and its kernels; unloads itself.
class Module {
 public:
  Module(Backend* owner, uint64_t handle, std::vector<Kernel> kernels)
      : owner_(owner), handle_(handle), kernels_(std::move(kernels)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  const std::vector<Kernel>& kernels() const { return kernels_; }
  // The module's own kernel, else a linked library module's; throws Error(Internal) naming the
  // kernel and the kernels that exist.
  const Kernel& kernel(const std::string& name) const;
  // Links a library module (one whose kernels the launches of this module's plans also name: the
  // compaction module): kernel() finds its kernels after the module's own, and it lives as long as
  // this module. Linking the same module again does nothing.
  void link(std::shared_ptr<const Module> library);

 private:
  Backend* owner_;
  uint64_t handle_;
  std::vector<Kernel> kernels_;
  std::vector<std::shared_ptr<const Module>> libraries_;
};

struct ModuleSource {
  std::string source;
  std::vector<std::string> options;       // compiler options ("-DTILE=4", "-cl-std=CL1.2", ...)
  std::vector<std::string> kernel_names;  // entry points to look up after loading
  std::string label = "kernel";           // names the source in compiler error messages
  // The first shared_prefix bytes of `source` (dialect prelude + device library) are the same in every
  // generated module of a dialect, so modules can be compiled as one (Executor::precompile); 0: none.
  size_t shared_prefix = 0;
};

struct CompileResult {
  std::shared_ptr<Module> module;
  bool cache_hit = false;
  double compile_ms = 0;  // compiler (miss) or load-from-cache (hit) time
  std::string log;        // compiler warnings, if any
};

// A compile begun by Backend::begin_compile: a cache hit (loaded), or a miss whose compiler runs on
// its own thread where the backend compiles off the calling thread (CUDA), so the caller can upload
// columns meanwhile, and otherwise when Backend::end_compile waits for it; end_compile then loads
// the binary. Movable only; the ModuleSource must outlive it.
struct PendingCompile {
  const ModuleSource* source = nullptr;
  KernelCache* cache = nullptr;
  std::string key;
  CompileResult result;  // module set: a cache hit
  struct Compiled {
    std::vector<char> binary;
    std::string log;
    double ms = 0;
  };
  std::future<Compiled> compiling;  // a miss: its compile (std::launch::async or deferred)
  double caller_ms = 0;             // the calling thread's own time in begin_compile
};

class Backend {
 public:
  virtual ~Backend() = default;

  // The source dialect this device runs (its kernels are generated for it); name() spells it.
  virtual codegen::Dialect dialect() const = 0;
  std::string name() const { return codegen::dialect_name(dialect()); }  // "cuda" or "opencl"
  virtual const DeviceProperties& properties() const = 0;
  // One line: backend, device, vendor, compute capability / OpenCL version, memory.
  std::string device_description() const;

  DeviceBuffer allocate(uint64_t bytes);
  // Device memory for temporaries that come and go with every call of a kind (a library sort's
  // double buffers and temporary storage, a device top-k's words and rows): the smallest buffer of at
  // least `bytes` that release_scratch() kept, else a new one. release_scratch() keeps buffers for the
  // next call, up to kScratchCacheBytes (the largest are freed first past it); an allocation that
  // fails frees them all and tries again. On an H200 a cuMemAlloc and cuMemFree pair cost 0.1-0.8 ms,
  // most of a device top-k's time (bench/results/2026-11-29-h200-session-2). Each backend's
  // destructor calls drop_scratch() first.
  static constexpr uint64_t kScratchCacheBytes = uint64_t{256} << 20;
  DeviceBuffer acquire_scratch(uint64_t bytes);
  void release_scratch(DeviceBuffer buffer);
  void drop_scratch() noexcept;
  uint64_t cached_scratch_bytes() const;
  PinnedBuffer allocate_pinned(uint64_t bytes);
  // Page-locks `bytes` of existing host memory at `data` in place (CUDA: cuMemHostRegister), so
  // asynchronous uploads read it without a pinned copy; the buffer unregisters it when released.
  // The memory must stay allocated and unchanged while the buffer lives. Empty where the backend
  // cannot (OpenCL has no such call) or the driver refuses (e.g. the range shares a page with memory
  // registered already); the caller then copies into allocate_pinned() and says so.
  std::optional<PinnedBuffer> register_host(const void* data, uint64_t bytes);
  Stream create_stream();
  // Device memory still free for horseqc: CUDA cuMemGetInfo; OpenCL (which cannot say) the global
  // memory minus what this backend has allocated.
  virtual uint64_t free_memory() = 0;
  // Bytes of device memory this backend holds through DeviceBuffers now.
  uint64_t allocated_bytes() const { return allocated_bytes_; }

  // Compiles (or loads from `cache`, which may be null) and returns the kernels. A compiler error
  // throws Error(Device) containing `label` and the compiler log.
  CompileResult compile(const ModuleSource& source, KernelCache* cache);
  // compile() in two steps, so that other work (a query's column uploads) overlaps the compiler
  // where compiles_off_thread(): begin looks the module up in the cache and, on a miss, starts the
  // compiler on its own thread (else end runs it); end waits, loads and stores the binary, and
  // throws the compiler's error. compile_ms is the compiler's own time plus the lookup and loading.
  PendingCompile begin_compile(const ModuleSource& source, KernelCache* cache);
  CompileResult end_compile(PendingCompile pending);
  // A compile begun before this backend was opened (CudaAheadCompile), under its module's key
  // (KernelCache::key_for with this backend's cache_identity()): begin_compile of that module, on a
  // cache miss, waits for it instead of compiling again. Used once.
  void adopt_compile(const std::string& key, std::shared_future<PendingCompile::Compiled> compile);

  // Asynchronous launch. Throws Error(Device) on an invalid configuration.
  virtual void launch(const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchConfig& config) = 0;
  // Launches, waits, and returns the device-measured kernel time in milliseconds
  // (CUDA events / OpenCL profiling info).
  virtual double launch_timed(const Kernel& kernel, const std::vector<KernelArg>& args,
                              const LaunchConfig& config) = 0;
  // Waits for the default queue and every stream.
  virtual void synchronize() = 0;

  // ---- streams (see the contract on top) ----
  // Asynchronous launch on `stream`.
  virtual void launch_on(const Stream& stream, const Kernel& kernel, const std::vector<KernelArg>& args,
                         const LaunchConfig& config) = 0;
  // Asynchronous launch on `stream` that keeps its device start and end times.
  virtual TimedLaunch launch_on_timed(const Stream& stream, const Kernel& kernel, const std::vector<KernelArg>& args,
                                      const LaunchConfig& config) = 0;
  // Start and end of `launch`, in milliseconds after the start of `origin` (negative when it
  // started earlier); both must have completed (synchronize first).
  struct Interval {
    double start_ms = 0;
    double end_ms = 0;
  };
  virtual Interval launch_interval_ms(const TimedLaunch& launch, const TimedLaunch& origin) = 0;
  // Asynchronous copy of `bytes` from `source` + source_offset to `target` + target_offset on
  // `stream`; both buffers must stay alive until the stream has passed it.
  void upload_async(const Stream& stream, const DeviceBuffer& target, uint64_t target_offset,
                    const PinnedBuffer& source, uint64_t source_offset, uint64_t bytes);
  // An event completed once everything issued on `stream` so far has completed.
  Event record(const Stream& stream);
  // Work issued on `stream` after this call starts only after `event` completed.
  virtual void wait(const Stream& stream, const Event& event) = 0;
  virtual void synchronize(const Stream& stream) = 0;
  // Synchronous device-to-device copy (the stream model's calibration measures it).
  virtual void copy_device(const DeviceBuffer& target, const DeviceBuffer& source, uint64_t bytes) = 0;

  // Resident blocks per multiprocessor of `kernel` at `block_size` threads and `dynamic_shared_bytes`
  // of dynamic shared memory, as the driver computes it (CUDA: cuOccupancyMaxActiveBlocksPerMultiprocessor,
  // after opting the kernel in to the most dynamic shared memory the device allows, as the planner
  // assumes); -1 when the API has no such query (OpenCL).
  virtual int driver_active_blocks(const Kernel& kernel, uint32_t block_size, uint32_t dynamic_shared_bytes) {
    (void)kernel;
    (void)block_size;
    (void)dynamic_shared_bytes;
    return -1;
  }

  // Device-wide sort, gather and scans from a library (device_primitives.h: Boost.Compute on
  // OpenCL, CUB on CUDA), created on first use; valid while the backend lives.
  virtual DevicePrimitives& primitives() = 0;
  // Whether primitives()'s sort builds its programs at its first call (OpenCL's Boost.Compute), so
  // that a caller may build them ahead (DevicePrimitives::prepare_sort). Asked without creating the
  // primitives (CUDA's primitives() waits for its library's warm-up).
  virtual bool library_sort_builds_at_first_use() const { return false; }

  // The part of the cache key that identifies device + compiler: the same source compiled by a
  // different driver/compiler/architecture must not hit.
  virtual std::string cache_identity() const = 0;

  // ---- hooks for DeviceBuffer / Module / compile(); not for general use ----
  virtual uint64_t raw_allocate(uint64_t bytes) = 0;
  virtual void raw_free(uint64_t handle) noexcept = 0;
  virtual void raw_upload(uint64_t handle, uint64_t offset, const void* host, uint64_t bytes) = 0;
  virtual void raw_download(uint64_t handle, uint64_t offset, void* host, uint64_t bytes) = 0;
  virtual void raw_fill(uint64_t handle, uint64_t bytes, const void* pattern, uint32_t pattern_bytes) = 0;
  // Compiles source to a loadable binary (cubin / OpenCL program binary); throws with the log.
  // CUDA compiles the module as one NVRTC program on every core (nvrtc_compile_module); OpenCL
  // builds it whole.
  virtual std::vector<char> compile_binary(const ModuleSource& source, std::string& log) = 0;
  // Whether compile_binary() may run on another thread while this one uses the device (CUDA: NVRTC
  // needs no context). OpenCL compiles on the calling thread.
  virtual bool compiles_off_thread() const { return false; }
  // Loads a binary produced by compile_binary(); returns nullptr (not throw) when the binary is
  // unusable so the caller can recompile a stale cache entry.
  virtual std::shared_ptr<Module> load_binary(const std::vector<char>& binary, const ModuleSource& source) = 0;
  virtual void raw_unload(uint64_t module_handle) noexcept = 0;
  virtual uint64_t raw_allocate_pinned(uint64_t bytes, void** data) = 0;
  virtual void raw_free_pinned(uint64_t handle, void* data) noexcept = 0;  // also unregisters
  // Registers host memory in place; the handle raw_free_pinned receives for it. nullopt: not possible.
  virtual std::optional<uint64_t> raw_register_host(void* /*data*/, uint64_t /*bytes*/) noexcept { return std::nullopt; }
  virtual uint64_t raw_create_stream() = 0;
  virtual void raw_destroy_stream(uint64_t handle) noexcept = 0;
  virtual uint64_t raw_record(uint64_t stream) = 0;
  virtual void raw_release_event(uint64_t event) noexcept = 0;
  virtual void raw_upload_async(uint64_t stream, uint64_t target, uint64_t target_offset, const void* host,
                                uint64_t bytes) = 0;
  void note_released(uint64_t bytes) noexcept { allocated_bytes_ -= bytes < allocated_bytes_ ? bytes : allocated_bytes_; }

 private:
  uint64_t allocated_bytes_ = 0;
  std::vector<DeviceBuffer> scratch_;  // kept by release_scratch, smallest first
  std::map<std::string, std::shared_future<PendingCompile::Compiled>> adopted_;  // adopt_compile
};

struct BackendOptions {
  // OpenCL: pick the first device whose name/vendor/platform contains this (case-insensitive);
  // empty = $HORSEQC_OPENCL_DEVICE, else GPU first, then CPU.
  std::string opencl_device;
  int cuda_device_ordinal = 0;
};

std::unique_ptr<Backend> open_backend(DeviceChoice choice, const BackendOptions& options = {});

}  // namespace hqc::runtime
