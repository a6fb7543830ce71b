// Implementation of the test-only NVRTC / OpenCL helpers (see device_harness.h).
#include "tests/templates/device_harness.h"

#include <nvrtc.h>

#include <stdexcept>

namespace hqc::test {
namespace {

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) throw std::runtime_error(std::string(what) + " failed with OpenCL error " + std::to_string(err));
}

}  // namespace

std::string nvrtc_oldest_architecture() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return "sm_75";
  std::vector<int> archs(static_cast<size_t>(count));
  nvrtcGetSupportedArchs(archs.data());
  int oldest = archs[0];
  for (int a : archs) oldest = a < oldest ? a : oldest;
  return "sm_" + std::to_string(oldest < 70 ? 70 : oldest);
}

std::string nvrtc_compile_log(const std::string& source, const std::string& arch,
                              const std::vector<std::string>& extra_options) {
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, source.c_str(), "horseqc_test.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return "nvrtcCreateProgram failed";
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "--std=c++17"};
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) nvrtcGetProgramLog(prog, log.data());
  nvrtcDestroyProgram(&prog);
  if (rc == NVRTC_SUCCESS) return "";
  return std::string(nvrtcGetErrorString(rc)) + ": " + log;
}

OpenClDevice::OpenClDevice() {
  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  for (cl_device_type type : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_CPU}) {
    for (cl_platform_id p : ids) {
      if (clGetDeviceIDs(p, type, 1, &device_, nullptr) == CL_SUCCESS) break;
      device_ = nullptr;
    }
    if (device_ != nullptr) break;
  }
  if (device_ == nullptr) throw std::runtime_error("no OpenCL device (is pocl-opencl-icd installed?)");
  cl_int err = CL_SUCCESS;
  context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  queue_ = clCreateCommandQueue(context_, device_, 0, &err);
  check(err, "clCreateCommandQueue");
}

OpenClDevice::~OpenClDevice() {
  for (cl_mem m : buffers_) clReleaseMemObject(m);
  if (program_ != nullptr) clReleaseProgram(program_);
  if (queue_ != nullptr) clReleaseCommandQueue(queue_);
  if (context_ != nullptr) clReleaseContext(context_);
}

std::string OpenClDevice::build_log(const std::string& source) {
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(program, 1, &device_, "-cl-std=CL1.2", nullptr, nullptr);
  std::string log;
  if (err != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    log.assign(size, '\0');
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    log = "clBuildProgram error " + std::to_string(err) + ": " + log;
    clReleaseProgram(program);
    return log;
  }
  if (program_ != nullptr) clReleaseProgram(program_);
  program_ = program;
  return "";
}

void OpenClDevice::build(const std::string& source) {
  std::string log = build_log(source);
  if (!log.empty()) throw std::runtime_error(log);
}

cl_mem OpenClDevice::buffer(size_t bytes, const void* init) {
  cl_int err = CL_SUCCESS;
  cl_mem_flags flags = CL_MEM_READ_WRITE | (init != nullptr ? CL_MEM_COPY_HOST_PTR : 0);
  cl_mem m = clCreateBuffer(context_, flags, bytes == 0 ? 8 : bytes, const_cast<void*>(init), &err);
  check(err, "clCreateBuffer");
  buffers_.push_back(m);
  return m;
}

void OpenClDevice::read_bytes(cl_mem mem, void* host, size_t bytes) {
  check(clEnqueueReadBuffer(queue_, mem, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr), "clEnqueueReadBuffer");
}

void OpenClDevice::run(const std::string& name, const std::vector<Arg>& args, size_t groups, size_t block) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program_, name.c_str(), &err);
  check(err, ("clCreateKernel(" + name + ")").c_str());
  for (cl_uint i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    switch (a.kind) {
      case Arg::Kind::Mem: err = clSetKernelArg(kernel, i, sizeof(cl_mem), &a.mem); break;
      case Arg::Kind::I32: {
        cl_int v = static_cast<cl_int>(a.value);
        err = clSetKernelArg(kernel, i, sizeof(v), &v);
        break;
      }
      case Arg::Kind::I64: {
        cl_long v = a.value;
        err = clSetKernelArg(kernel, i, sizeof(v), &v);
        break;
      }
      case Arg::Kind::Local: err = clSetKernelArg(kernel, i, static_cast<size_t>(a.value), nullptr); break;
    }
    if (err != CL_SUCCESS) {
      clReleaseKernel(kernel);
      check(err, ("clSetKernelArg(" + name + ", " + std::to_string(i) + ")").c_str());
    }
  }
  size_t global = groups * block;
  err = clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, &block, 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clFinish(queue_);
  clReleaseKernel(kernel);
  check(err, ("running " + name).c_str());
}

}  // namespace hqc::test
