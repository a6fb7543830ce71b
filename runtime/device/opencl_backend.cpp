// OpenCL implementation of Backend. cl_mem handles are stored in DeviceBuffer as integers; kernel
// objects are created per module and reused, so launches must not run concurrently from several
// host threads (the executor is single-threaded per backend; clSetKernelArg + enqueue capture the
// arguments, so one kernel object may be enqueued on several queues one after the other).
// Streams are further in-order command queues of the same context; events are markers
// (clEnqueueMarkerWithWaitList) and waits are barriers on them; pinned host memory is a
// CL_MEM_ALLOC_HOST_PTR buffer mapped once (page-locked on NVIDIA's OpenCL).
#define CL_TARGET_OPENCL_VERSION 120
#include "runtime/device/opencl_backend.h"

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/device/device_primitives.h"
#include "runtime/device/opencl_primitives.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// From cl_ext.h (cl_khr_icd): the ICD loader found no platform. Spelled out to avoid the extension header.
constexpr cl_int kPlatformNotFoundKhr = -1001;

std::string cl_error_name(cl_int status) {
  switch (status) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case kPlatformNotFoundKhr: return "kPlatformNotFoundKhr (no OpenCL platform registered)";
    default: return "OpenCL error " + std::to_string(status);
  }
}

void check(cl_int status, const std::string& call) {
  if (status != CL_SUCCESS) throw Error(ErrorKind::Device, "OpenCL error: " + call + ": " + cl_error_name(status));
}

std::string device_string(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string value(size, '\0');
  clGetDeviceInfo(device, what, size, value.data(), nullptr);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string value(size, '\0');
  clGetPlatformInfo(platform, what, size, value.data(), nullptr);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  clGetDeviceInfo(device, what, sizeof(T), &value, nullptr);
  return value;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct Candidate {
  cl_platform_id platform;
  cl_device_id device;
  bool is_gpu;
  std::string description;  // "platform / vendor / name", for matching and error messages
};

std::vector<Candidate> list_devices() {
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  if (status == kPlatformNotFoundKhr || platform_count == 0) return {};
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");
  std::vector<Candidate> out;
  for (cl_platform_id platform : platforms) {
    cl_uint device_count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(device_count);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr);
    for (cl_device_id device : devices) {
      const auto type = device_value<cl_device_type>(device, CL_DEVICE_TYPE);
      out.push_back({platform, device, (type & CL_DEVICE_TYPE_GPU) != 0,
                     platform_string(platform, CL_PLATFORM_NAME) + " / " + device_string(device, CL_DEVICE_VENDOR) +
                         " / " + device_string(device, CL_DEVICE_NAME)});
    }
  }
  return out;
}

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(const Candidate& chosen) : platform_(chosen.platform), device_(chosen.device) {
    cl_int status = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &status);
    check(status, "clCreateContext");
    queue_ = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);
    if (status != CL_SUCCESS) {
      clReleaseContext(context_);
      check(status, "clCreateCommandQueue");
    }
    read_properties(chosen.is_gpu);
  }

  ~OpenClBackend() override {
    drop_scratch();
    primitives_.reset();  // releases its references to the context and queue first
    for (cl_command_queue q : streams_) {
      clFinish(q);
      clReleaseCommandQueue(q);
    }
    clFinish(queue_);
    clReleaseCommandQueue(queue_);
    clReleaseContext(context_);
  }

  codegen::Dialect dialect() const override { return codegen::Dialect::OpenCL; }
  const DeviceProperties& properties() const override { return props_; }

  std::string cache_identity() const override {
    return "opencl|" + platform_string(platform_, CL_PLATFORM_NAME) + "|" + props_.vendor + "|" + props_.name + "|" +
           props_.api_version + "|" + props_.driver_version + "|" + props_.compiler_version;
  }

  uint64_t raw_allocate(uint64_t bytes) override {
    cl_int status = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) {
      throw Error(ErrorKind::Device, "OpenCL cannot allocate " + std::to_string(bytes) + " bytes on " + props_.name +
                                         ": " + cl_error_name(status));
    }
    return reinterpret_cast<uint64_t>(mem);
  }

  void raw_free(uint64_t handle) noexcept override { clReleaseMemObject(reinterpret_cast<cl_mem>(handle)); }

  void raw_upload(uint64_t handle, uint64_t offset, const void* host, uint64_t bytes) override {
    check(clEnqueueWriteBuffer(queue_, reinterpret_cast<cl_mem>(handle), CL_TRUE, offset, bytes, host, 0, nullptr,
                               nullptr),
          "clEnqueueWriteBuffer");
  }

  void raw_download(uint64_t handle, uint64_t offset, void* host, uint64_t bytes) override {
    check(clEnqueueReadBuffer(queue_, reinterpret_cast<cl_mem>(handle), CL_TRUE, offset, bytes, host, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer (after kernel execution)");
  }

  void raw_fill(uint64_t handle, uint64_t bytes, const void* pattern, uint32_t pattern_bytes) override {
    check(clEnqueueFillBuffer(queue_, reinterpret_cast<cl_mem>(handle), pattern, pattern_bytes, 0, bytes, 0, nullptr,
                              nullptr),
          "clEnqueueFillBuffer");
  }

  std::vector<char> compile_binary(const ModuleSource& source, std::string& log) override {
    if (source.source.find("cl_khr_int64_base_atomics") != std::string::npos && !props_.int64_atomics) {
      throw Error(ErrorKind::Device, source.label + " needs 64-bit atomics (cl_khr_int64_base_atomics), which " +
                                         props_.name + " does not offer");
    }
    cl_program program = create_from_source(source);
    const cl_int built = build(program, source, log);
    if (built != CL_SUCCESS) {
      clReleaseProgram(program);
      throw Error(ErrorKind::Device, source.label + ": OpenCL build for " + props_.name + " failed (" +
                                         cl_error_name(built) + "):\n" + log);
    }
    size_t size = 0;
    cl_int status = clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr);
    std::vector<char> binary(size);
    unsigned char* ptr = reinterpret_cast<unsigned char*>(binary.data());
    if (status == CL_SUCCESS && size > 0) {
      status = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr);
    }
    clReleaseProgram(program);
    check(status, "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    if (binary.empty()) throw Error(ErrorKind::Device, source.label + ": the OpenCL driver returned no program binary");
    return binary;
  }

  std::shared_ptr<Module> load_binary(const std::vector<char>& binary, const ModuleSource& source) override {
    const size_t size = binary.size();
    const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
    cl_int binary_status = CL_SUCCESS;
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &binary_status, &status);
    if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
      if (program != nullptr) clReleaseProgram(program);
      return nullptr;
    }
    std::string log;
    if (build(program, source, log) != CL_SUCCESS) {
      clReleaseProgram(program);
      return nullptr;
    }
    std::vector<Kernel> kernels;
    for (const std::string& kernel_name : source.kernel_names) {
      cl_kernel kernel = clCreateKernel(program, kernel_name.c_str(), &status);
      if (status != CL_SUCCESS) {
        for (Kernel& k : kernels) clReleaseKernel(reinterpret_cast<cl_kernel>(k.handle));
        clReleaseProgram(program);
        throw Error(ErrorKind::Internal, source.label + ": kernel \"" + kernel_name + "\" not found in the program (" +
                                             cl_error_name(status) + ")");
      }
      Kernel k;
      k.name = kernel_name;
      k.handle = reinterpret_cast<uint64_t>(kernel);
      size_t max_wg = 0;
      size_t multiple = 0;
      cl_ulong local = 0;
      cl_ulong priv = 0;
      clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof(max_wg), &max_wg, nullptr);
      clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof(multiple),
                               &multiple, nullptr);
      clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local), &local, nullptr);
      clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv), &priv, nullptr);
      k.attributes.max_threads_per_block = static_cast<uint32_t>(max_wg);
      k.attributes.preferred_block_multiple = static_cast<uint32_t>(multiple);
      k.attributes.static_shared_bytes = local;
      k.attributes.local_bytes_per_thread = priv;
      kernels.push_back(k);
    }
    // The module owns the program; kernels are released with it (see raw_unload).
    auto module = std::make_shared<Module>(this, reinterpret_cast<uint64_t>(program), kernels);
    module_kernels_.push_back({program, std::move(kernels)});
    return module;
  }

  void raw_unload(uint64_t module_handle) noexcept override {
    auto program = reinterpret_cast<cl_program>(module_handle);
    for (auto it = module_kernels_.begin(); it != module_kernels_.end(); ++it) {
      if (it->first == program) {
        for (Kernel& k : it->second) clReleaseKernel(reinterpret_cast<cl_kernel>(k.handle));
        module_kernels_.erase(it);
        break;
      }
    }
    clReleaseProgram(program);
  }

  void launch(const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchConfig& config) override {
    enqueue(kernel, args, config, nullptr);
  }

  double launch_timed(const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchConfig& config) override {
    cl_event event = nullptr;
    enqueue(kernel, args, config, &event);
    cl_int status = clWaitForEvents(1, &event);
    cl_ulong start = 0;
    cl_ulong end = 0;
    if (status == CL_SUCCESS) {
      status = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
    }
    if (status == CL_SUCCESS) status = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
    clReleaseEvent(event);
    check(status, "kernel " + kernel.name + " (waiting for completion)");
    return static_cast<double>(end - start) / 1e6;
  }

  void synchronize() override {
    check(clFinish(queue_), "clFinish (kernel execution)");
    for (cl_command_queue q : streams_) check(clFinish(q), "clFinish (stream)");
  }

  bool library_sort_builds_at_first_use() const override { return true; }

  DevicePrimitives& primitives() override {
    if (!primitives_) {
      primitives_ = make_boost_compute_primitives(context_, device_, queue_, boost_compute_variants_from_environment());
    }
    return *primitives_;
  }

  uint64_t free_memory() override {
    return props_.global_memory > allocated_bytes() ? props_.global_memory - allocated_bytes() : 0;
  }

  void launch_on(const Stream& stream, const Kernel& kernel, const std::vector<KernelArg>& args,
                 const LaunchConfig& config) override {
    enqueue_on(reinterpret_cast<cl_command_queue>(stream.handle()), kernel, args, config, nullptr);
  }

  TimedLaunch launch_on_timed(const Stream& stream, const Kernel& kernel, const std::vector<KernelArg>& args,
                              const LaunchConfig& config) override {
    cl_event event = nullptr;
    enqueue_on(reinterpret_cast<cl_command_queue>(stream.handle()), kernel, args, config, &event);
    return {Event(this, reinterpret_cast<uint64_t>(event)), Event()};
  }

  Interval launch_interval_ms(const TimedLaunch& launch, const TimedLaunch& origin) override {
    const cl_ulong base = profile(origin.start, CL_PROFILING_COMMAND_START);
    const cl_ulong start = profile(launch.start, CL_PROFILING_COMMAND_START);
    const cl_ulong end = profile(launch.start, CL_PROFILING_COMMAND_END);
    return {(static_cast<double>(start) - static_cast<double>(base)) / 1e6,
            (static_cast<double>(end) - static_cast<double>(base)) / 1e6};
  }

  void wait(const Stream& stream, const Event& event) override {
    auto e = reinterpret_cast<cl_event>(event.handle());
    check(clEnqueueBarrierWithWaitList(reinterpret_cast<cl_command_queue>(stream.handle()), 1, &e, nullptr),
          "clEnqueueBarrierWithWaitList");
  }

  void synchronize(const Stream& stream) override {
    check(clFinish(reinterpret_cast<cl_command_queue>(stream.handle())), "clFinish (stream)");
  }

  void copy_device(const DeviceBuffer& target, const DeviceBuffer& source, uint64_t bytes) override {
    check(clEnqueueCopyBuffer(queue_, reinterpret_cast<cl_mem>(source.handle()), reinterpret_cast<cl_mem>(target.handle()),
                              0, 0, bytes, 0, nullptr, nullptr),
          "clEnqueueCopyBuffer");
    check(clFinish(queue_), "clFinish (device copy)");
  }

  uint64_t raw_allocate_pinned(uint64_t bytes, void** data) override {
    cl_int status = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
    if (status != CL_SUCCESS) {
      throw Error(ErrorKind::Device, "OpenCL cannot allocate " + std::to_string(bytes) +
                                         " bytes of pinned host memory (CL_MEM_ALLOC_HOST_PTR): " + cl_error_name(status));
    }
    *data = clEnqueueMapBuffer(queue_, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &status);
    if (status != CL_SUCCESS) {
      clReleaseMemObject(mem);
      check(status, "clEnqueueMapBuffer (pinned host memory)");
    }
    return reinterpret_cast<uint64_t>(mem);
  }

  void raw_free_pinned(uint64_t handle, void* data) noexcept override {
    auto mem = reinterpret_cast<cl_mem>(handle);
    clEnqueueUnmapMemObject(queue_, mem, data, 0, nullptr, nullptr);
    clFinish(queue_);
    clReleaseMemObject(mem);
  }

  uint64_t raw_create_stream() override {
    cl_int status = CL_SUCCESS;
    // Profiling on, as on the default queue: launch_on_timed reads its launches' device times.
    cl_command_queue q = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &status);
    check(status, "clCreateCommandQueue (stream)");
    streams_.push_back(q);
    return reinterpret_cast<uint64_t>(q);
  }

  void raw_destroy_stream(uint64_t handle) noexcept override {
    auto q = reinterpret_cast<cl_command_queue>(handle);
    clFinish(q);
    clReleaseCommandQueue(q);
    streams_.erase(std::remove(streams_.begin(), streams_.end(), q), streams_.end());
  }

  uint64_t raw_record(uint64_t stream) override {
    cl_event e = nullptr;
    check(clEnqueueMarkerWithWaitList(reinterpret_cast<cl_command_queue>(stream), 0, nullptr, &e),
          "clEnqueueMarkerWithWaitList");
    return reinterpret_cast<uint64_t>(e);
  }

  void raw_release_event(uint64_t event) noexcept override { clReleaseEvent(reinterpret_cast<cl_event>(event)); }

  void raw_upload_async(uint64_t stream, uint64_t target, uint64_t target_offset, const void* host,
                        uint64_t bytes) override {
    check(clEnqueueWriteBuffer(reinterpret_cast<cl_command_queue>(stream), reinterpret_cast<cl_mem>(target), CL_FALSE,
                               target_offset, bytes, host, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer (asynchronous)");
  }

 private:
  // A profiling timestamp (ns) of a completed command's event.
  cl_ulong profile(const Event& event, cl_profiling_info what) {
    cl_ulong value = 0;
    check(clGetEventProfilingInfo(reinterpret_cast<cl_event>(event.handle()), what, sizeof(value), &value, nullptr),
          "clGetEventProfilingInfo");
    return value;
  }

  cl_program create_from_source(const ModuleSource& source) {
    const char* text = source.source.c_str();
    const size_t length = source.source.size();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &status);
    check(status, "clCreateProgramWithSource(" + source.label + ")");
    return program;
  }

  cl_int build(cl_program program, const ModuleSource& source, std::string& log) {
    // OpenCL C 1.2 unless the source's options choose a version themselves.
    std::string options;
    bool has_std = false;
    for (const std::string& o : source.options) {
      options += " " + o;
      has_std = has_std || o.rfind("-cl-std=", 0) == 0;
    }
    if (!has_std) options = "-cl-std=CL1.2" + options;
    const cl_int status = clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
    size_t size = 0;
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    log.assign(size, '\0');
    if (size > 0) clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' ')) log.pop_back();
    return status;
  }

  void enqueue(const Kernel& kernel, const std::vector<KernelArg>& args, const LaunchConfig& config, cl_event* event) {
    enqueue_on(queue_, kernel, args, config, event);
  }

  void enqueue_on(cl_command_queue queue, const Kernel& kernel, const std::vector<KernelArg>& args,
                  const LaunchConfig& config, cl_event* event) {
    auto k = reinterpret_cast<cl_kernel>(kernel.handle);
    for (size_t i = 0; i < args.size(); ++i) {
      const KernelArg& a = args[i];
      const auto index = static_cast<cl_uint>(i);
      cl_int status = CL_SUCCESS;
      cl_mem mem = reinterpret_cast<cl_mem>(a.buffer);
      switch (a.kind) {
        case KernelArg::Kind::Buffer: status = clSetKernelArg(k, index, sizeof(cl_mem), &mem); break;
        case KernelArg::Kind::I32: status = clSetKernelArg(k, index, sizeof(cl_int), &a.i32); break;
        case KernelArg::Kind::I64: status = clSetKernelArg(k, index, sizeof(cl_long), &a.i64); break;
        case KernelArg::Kind::U64: status = clSetKernelArg(k, index, sizeof(cl_ulong), &a.u64); break;
        case KernelArg::Kind::F64: status = clSetKernelArg(k, index, sizeof(cl_double), &a.f64); break;
        case KernelArg::Kind::Scratch:
          status = clSetKernelArg(k, index, std::max<size_t>(config.dynamic_shared_bytes, 4), nullptr);
          break;
      }
      check(status, "clSetKernelArg(" + kernel.name + ", argument " + std::to_string(i) + ")");
    }
    const size_t local = config.block_size;
    const size_t global = static_cast<size_t>(config.grid_blocks) * local;
    const cl_int status = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, event);
    if (status != CL_SUCCESS) {
      throw Error(ErrorKind::Device, "OpenCL launch of " + kernel.name + " (" + std::to_string(config.grid_blocks) +
                                         " work-groups x " + std::to_string(config.block_size) + " work-items, " +
                                         std::to_string(config.dynamic_shared_bytes) +
                                         " B scratchpad) failed: " + cl_error_name(status));
    }
  }

  void read_properties(bool is_gpu) {
    props_.name = device_string(device_, CL_DEVICE_NAME);
    props_.vendor = device_string(device_, CL_DEVICE_VENDOR);
    props_.driver_version = device_string(device_, CL_DRIVER_VERSION);
    props_.api_version = device_string(device_, CL_DEVICE_VERSION);
    props_.compiler_version = device_string(device_, CL_DEVICE_OPENCL_C_VERSION);
    props_.is_gpu = is_gpu;
    props_.multiprocessors = device_value<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS);
    props_.max_threads_per_block = static_cast<uint32_t>(device_value<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE));
    props_.shared_memory_per_block = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
    props_.shared_memory_per_block_optin = props_.shared_memory_per_block;
    props_.global_memory = device_value<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_SIZE);
    props_.l2_cache_bytes = device_value<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    props_.clock_khz = device_value<cl_uint>(device_, CL_DEVICE_MAX_CLOCK_FREQUENCY) * 1000;
    const std::string extensions = device_string(device_, CL_DEVICE_EXTENSIONS);
    props_.int64_atomics = extensions.find("cl_khr_int64_base_atomics") != std::string::npos;
    if (extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
      // NVIDIA's OpenCL names the compute capability: the launch planner then models the device with
      // that architecture's limits (blocks and threads per SM, registers), as it does under CUDA.
      // Without it, OpenCL says nothing about blocks per compute unit and the planner assumes one.
      props_.compute_major = static_cast<int>(device_value<cl_uint>(device_, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV));
      props_.compute_minor = static_cast<int>(device_value<cl_uint>(device_, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV));
    }
    // OpenCL 1.2 has no sub-group query; compile a trivial kernel to learn the preferred multiple.
    props_.warp_size = probe_preferred_multiple();
  }

  uint32_t probe_preferred_multiple() {
    ModuleSource probe;
    probe.source = "__kernel void hqc_probe(__global int* x) { x[get_global_id(0)] = 0; }\n";
    probe.kernel_names = {"hqc_probe"};
    probe.label = "opencl-probe";
    std::string log;
    cl_program program = create_from_source(probe);
    uint32_t multiple = 0;
    if (build(program, probe, log) == CL_SUCCESS) {
      cl_int status = CL_SUCCESS;
      cl_kernel kernel = clCreateKernel(program, "hqc_probe", &status);
      if (status == CL_SUCCESS) {
        size_t value = 0;
        clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof(value), &value,
                                 nullptr);
        multiple = static_cast<uint32_t>(value);
        clReleaseKernel(kernel);
      }
    }
    clReleaseProgram(program);
    return multiple;
  }

  cl_platform_id platform_;
  cl_device_id device_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::vector<cl_command_queue> streams_;  // live streams, finished by synchronize()
  DeviceProperties props_;
  std::vector<std::pair<cl_program, std::vector<Kernel>>> module_kernels_;
  std::unique_ptr<DevicePrimitives> primitives_;  // Boost.Compute on queue_, made by primitives()
};

}  // namespace

std::unique_ptr<Backend> open_opencl_backend(const std::string& device_preference) {
  std::string wanted = device_preference;
  if (wanted.empty()) {
    if (const char* env = std::getenv("HORSEQC_OPENCL_DEVICE"); env != nullptr) wanted = env;
  }
  const std::vector<Candidate> devices = list_devices();
  if (devices.empty()) {
    throw Error(ErrorKind::Device, "OpenCL is not available: no OpenCL platform or device is registered "
                                   "(see /etc/OpenCL/vendors; `clinfo -l` lists devices)");
  }
  const Candidate* chosen = nullptr;
  if (!wanted.empty()) {
    for (const Candidate& c : devices) {
      if (lower(c.description).find(lower(wanted)) != std::string::npos) {
        chosen = &c;
        break;
      }
    }
    if (chosen == nullptr) {
      std::string seen;
      for (const Candidate& c : devices) seen += "\n  " + c.description;
      throw Error(ErrorKind::Device, "no OpenCL device matches \"" + wanted + "\" (HORSEQC_OPENCL_DEVICE); devices:" + seen);
    }
  } else {
    for (const Candidate& c : devices) {
      if (c.is_gpu) {
        chosen = &c;
        break;
      }
    }
    if (chosen == nullptr) chosen = &devices.front();
  }
  return std::make_unique<OpenClBackend>(*chosen);
}

}  // namespace hqc::runtime
