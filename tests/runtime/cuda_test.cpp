// CUDA without a GPU: NVRTC compiles (no device needed), and opening the CUDA backend either works
// (on the GPU machine) or fails with an error that names CUDA — never a silent switch to OpenCL.
#include <doctest/doctest.h>

#include <filesystem>

#include <unistd.h>

#include "runtime/device/backend.h"
#include "runtime/device/cuda_backend.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/device/nvrtc_compiler.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

const char* kCudaSource = R"(
extern "C" __global__ void axpb(const int* in, long long* out, int a, long long b, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = (long long)in[i] * a + b;
}
)";

bool cuda_present() {
  try {
    open_cuda_backend();
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

TEST_CASE("compile_cuda_only produces a cubin for sm_90 without a GPU") {
  std::vector<char> cubin = compile_cuda_only(kCudaSource, "sm_90");
  REQUIRE(cubin.size() > 4);
  // A cubin is an ELF object.
  CHECK(cubin[0] == 0x7f);
  CHECK(cubin[1] == 'E');
  CHECK(cubin[2] == 'L');
  CHECK(cubin[3] == 'F');
  CHECK(nvrtc_version().rfind("NVRTC ", 0) == 0);
  CHECK(cuda_arch_name(9, 0) == "sm_90");
}

TEST_CASE("an NVRTC compile error surfaces the compiler log") {
  try {
    compile_cuda_only("extern \"C\" __global__ void k(int* x) { x[0] = not_declared_here; }", "sm_90");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(std::string(e.what()).find("not_declared_here") != std::string::npos);
  }
}

TEST_CASE("asking for CUDA either opens CUDA or says why, never falls back") {
  if (cuda_present()) {
    auto backend = open_backend(DeviceChoice::Cuda);
    CHECK(backend->name() == "cuda");
    return;
  }
  try {
    open_backend(DeviceChoice::Cuda);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(std::string(e.what()).find("CUDA") != std::string::npos);
  }
  // Auto still finds a device (OpenCL) and says which.
  auto fallback = open_backend(DeviceChoice::Auto);
  CHECK(fallback->name() == "opencl");
}

TEST_CASE("a CUDA warm-up changes nothing a backend reports: with or without CUDA, the open says the same") {
  // The warm-up (cuInit, the primary context, NVRTC's first compile on a thread) swallows its own
  // failures; the backend opened while or after it runs must be the one a plain open gives, and an
  // open that fails must fail with the same message.
  auto open_says = [] {  // the device it opened, or why not
    try {
      return "opened " + open_backend(DeviceChoice::Cuda)->device_description();
    } catch (const Error& e) {
      return std::string("failed: ") + e.what();
    }
  };
  const std::string plain = open_says();
  for (int ordinal : {0, 7}) {  // 7: a device that does not exist here nor on the GPU machine
    CudaWarmup warmup(ordinal);
    CHECK(open_says() == plain);
  }
  CudaWarmup unused;  // destroyed without any open: joins its thread, releases what it retained
}

TEST_CASE("CUDA backend end to end (GPU machines only)") {
  if (!cuda_present()) {
    MESSAGE("no CUDA device here; skipped");
    return;
  }
  auto backend = open_backend(DeviceChoice::Cuda);
  const DeviceProperties& p = backend->properties();
  CHECK(p.compute_major > 0);
  CHECK(p.multiprocessors > 0);
  CHECK(p.warp_size == 32);
  CHECK(p.registers_per_multiprocessor > 0);
  CHECK(p.shared_memory_per_multiprocessor > 0);
  MESSAGE(backend->device_description());
  CompileResult compiled = backend->compile({kCudaSource, {}, {"axpb"}, "cuda-axpb"}, nullptr);
  const Kernel& k = compiled.module->kernel("axpb");
  CHECK(k.attributes.registers_per_thread > 0);
  CHECK(k.attributes.max_threads_per_block > 0);
  const uint64_t n = 1000;
  std::vector<int32_t> input(n);
  for (uint64_t i = 0; i < n; ++i) input[i] = static_cast<int32_t>(i) - 500;
  DeviceBuffer in = backend->allocate(n * 4);
  DeviceBuffer out = backend->allocate(1024 * 8);
  in.upload(input);
  out.fill_u64(0xDEADBEEFCAFEF00DULL);
  double ms = backend->launch_timed(
      k, {KernelArg::buf(in), KernelArg::buf(out), KernelArg::int32(-3), KernelArg::int64(5'000'000'000LL),
          KernelArg::uint64(n)},
      {8, 128, 0});
  CHECK(ms >= 0.0);
  auto result = out.download_as<int64_t>(1024);
  for (uint64_t i = 0; i < n; ++i) REQUIRE(result[i] == static_cast<int64_t>(input[i]) * -3 + 5'000'000'000LL);
  CHECK(static_cast<uint64_t>(result[n]) == 0xDEADBEEFCAFEF00DULL);
  CHECK(static_cast<uint64_t>(result[1023]) == 0xDEADBEEFCAFEF00DULL);

  // The cubin round-trips through the kernel cache.
  auto dir = std::filesystem::temp_directory_path() / ("hqc-cuda-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelCache cache(dir);
  CHECK_FALSE(backend->compile({kCudaSource, {}, {"axpb"}, "cuda-axpb"}, &cache).cache_hit);
  CompileResult hit = backend->compile({kCudaSource, {}, {"axpb"}, "cuda-axpb"}, &cache);
  CHECK(hit.cache_hit);
  CHECK(hit.module->kernel("axpb").attributes.registers_per_thread == k.attributes.registers_per_thread);
  std::filesystem::remove_all(dir);
}
