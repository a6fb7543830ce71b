// Test-only helpers for running device source without the runtime module: compile with NVRTC
// (no GPU needed) and build + run on the first OpenCL device (PoCL on the CPU here).
//
// Contract: every failure is a doctest-reportable std::runtime_error carrying the compiler log or
// the OpenCL error code and the call that failed. Kernels run synchronously.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hqc::test {

// "sm_70" where this NVRTC still supports Volta, else its oldest architecture ("sm_75" in CUDA 13).
std::string nvrtc_oldest_architecture();

// Compiles CUDA source with NVRTC for `arch` ("sm_70", "sm_90"); returns "" on success, else the log.
std::string nvrtc_compile_log(const std::string& source, const std::string& arch,
                              const std::vector<std::string>& extra_options = {});

// One OpenCL context/queue on the first device (GPU preferred, then CPU).
class OpenClDevice {
 public:
  OpenClDevice();
  ~OpenClDevice();
  OpenClDevice(const OpenClDevice&) = delete;
  OpenClDevice& operator=(const OpenClDevice&) = delete;

  // Builds with -cl-std=CL1.2; returns "" on success, else the build log.
  std::string build_log(const std::string& source);
  // Builds (throwing with the log on failure) and keeps the program for run().
  void build(const std::string& source);

  cl_mem buffer(size_t bytes, const void* init);
  template <typename T>
  cl_mem buffer(const std::vector<T>& init) { return buffer(init.size() * sizeof(T), init.data()); }
  template <typename T>
  std::vector<T> read(cl_mem mem, size_t count) {
    std::vector<T> out(count);
    read_bytes(mem, out.data(), count * sizeof(T));
    return out;
  }
  void read_bytes(cl_mem mem, void* host, size_t bytes);

  struct Arg {
    enum class Kind { Mem, I32, I64, Local } kind;
    cl_mem mem = nullptr;
    int64_t value = 0;  // I32/I64 value, or Local byte count
  };
  static Arg mem(cl_mem m) { return {Arg::Kind::Mem, m, 0}; }
  static Arg i32(int32_t v) { return {Arg::Kind::I32, nullptr, v}; }
  static Arg i64(int64_t v) { return {Arg::Kind::I64, nullptr, v}; }
  static Arg local(size_t bytes) { return {Arg::Kind::Local, nullptr, static_cast<int64_t>(bytes)}; }

  // Runs kernel `name` of the last built program with `groups` work-groups of `block` items.
  void run(const std::string& name, const std::vector<Arg>& args, size_t groups, size_t block);

 private:
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<cl_mem> buffers_;
};

}  // namespace hqc::test
