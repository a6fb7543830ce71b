// OpenCL backend on whatever OpenCL device this machine has (PoCL on the CPU in CI): compile, launch
// with buffers and every scalar kind, scratchpad arguments, fills, timing, compile errors.
#include <doctest/doctest.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <future>
#include <numeric>

#include <unistd.h>

#include "runtime/device/backend.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/device/opencl_backend.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

const char* kAxpbSource = R"(
__kernel void axpb(__global const int* in, __global long* out, int a, long b, ulong n) {
  ulong i = get_global_id(0);
  if (i < n) out[i] = (long)in[i] * a + b;
}
__kernel void block_sum(__global const int* in, __global int* sums, __local int* scratch, ulong n) {
  ulong i = get_global_id(0);
  uint t = get_local_id(0);
  scratch[t] = i < n ? in[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (t < s) scratch[t] += scratch[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) sums[get_group_id(0)] = scratch[0];
}
)";

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("hqc-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("OpenCL backend opens and reports its device") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  REQUIRE(backend);
  CHECK(backend->name() == "opencl");
  const DeviceProperties& p = backend->properties();
  CHECK(!p.name.empty());
  CHECK(p.multiprocessors > 0);
  CHECK(p.max_threads_per_block > 0);
  CHECK(p.shared_memory_per_block > 0);
  CHECK(p.global_memory > 0);
  CHECK(p.warp_size > 0);
  CHECK(backend->device_description().find(p.name) != std::string::npos);
  CHECK(backend->device_description().rfind("opencl: ", 0) == 0);
}

TEST_CASE("OpenCL: compile, launch with scalar arguments, download") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  ModuleSource src{kAxpbSource, {}, {"axpb", "block_sum"}, "axpb-test"};
  CompileResult compiled = backend->compile(src, nullptr);
  CHECK_FALSE(compiled.cache_hit);
  const Kernel& axpb = compiled.module->kernel("axpb");
  CHECK(axpb.attributes.max_threads_per_block > 0);

  const uint64_t n = 1000;  // not a multiple of the block: the tail guard matters
  std::vector<int32_t> input(n);
  std::iota(input.begin(), input.end(), -500);
  DeviceBuffer in = backend->allocate(n * 4);
  DeviceBuffer out = backend->allocate(1024 * 8);
  in.upload(input);
  out.fill_u64(0xDEADBEEFCAFEF00DULL);
  const int64_t b = 5'000'000'000LL;  // does not fit in 32 bits
  const double ms = backend->launch_timed(
      axpb, {KernelArg::buf(in), KernelArg::buf(out), KernelArg::int32(-3), KernelArg::int64(b), KernelArg::uint64(n)},
      {8, 128, 0});
  CHECK(ms >= 0.0);
  auto result = out.download_as<int64_t>(1024);
  for (uint64_t i = 0; i < n; ++i) REQUIRE(result[i] == static_cast<int64_t>(input[i]) * -3 + b);
  // Past n the fill pattern must survive: the kernel guarded its tail.
  CHECK(static_cast<uint64_t>(result[n]) == 0xDEADBEEFCAFEF00DULL);
  CHECK(static_cast<uint64_t>(result[1023]) == 0xDEADBEEFCAFEF00DULL);
}

TEST_CASE("OpenCL: dynamic scratchpad argument") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  CompileResult compiled = backend->compile({kAxpbSource, {}, {"block_sum"}, "scratch-test"}, nullptr);
  const uint64_t n = 1000;
  const uint32_t block = 64;
  const uint64_t blocks = (n + block - 1) / block;
  std::vector<int32_t> input(n);
  for (uint64_t i = 0; i < n; ++i) input[i] = static_cast<int32_t>(i % 17);
  DeviceBuffer in = backend->allocate(n * 4);
  DeviceBuffer sums = backend->allocate(blocks * 4);
  in.upload(input);
  backend->launch(compiled.module->kernel("block_sum"),
                  {KernelArg::buf(in), KernelArg::buf(sums), KernelArg::scratch(), KernelArg::uint64(n)},
                  {blocks, block, block * 4});
  backend->synchronize();
  auto got = sums.download_as<int32_t>(blocks);
  for (uint64_t g = 0; g < blocks; ++g) {
    int32_t expected = 0;
    for (uint64_t i = g * block; i < std::min(n, (g + 1) * block); ++i) expected += input[i];
    CHECK(got[g] == expected);
  }
}

TEST_CASE("OpenCL: 4-byte fill, offsets and range checks") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  DeviceBuffer buf = backend->allocate(64);
  buf.fill_u32(0x01020304u);
  auto words = buf.download_as<uint32_t>(16);
  for (uint32_t w : words) CHECK(w == 0x01020304u);
  const uint32_t seven = 7;
  buf.upload(&seven, 4, 60);
  uint32_t back = 0;
  buf.download(&back, 4, 60);
  CHECK(back == 7);
  CHECK_THROWS_AS(buf.upload(&seven, 4, 62), Error);
  DeviceBuffer odd = backend->allocate(12);
  CHECK_THROWS_AS(odd.fill_u64(1), Error);  // 12 bytes is no multiple of 8
  DeviceBuffer moved = std::move(buf);
  CHECK_FALSE(buf.valid());
  CHECK(moved.bytes() == 64);
}

TEST_CASE("scratch: a released buffer serves the next request it is large enough for, up to the cache's bytes") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  const uint64_t before = backend->allocated_bytes();
  DeviceBuffer a = backend->acquire_scratch(4096);
  const uint64_t a_handle = a.handle();
  a.fill_u32(7);
  backend->release_scratch(std::move(a));
  CHECK_FALSE(a.valid());
  CHECK(backend->cached_scratch_bytes() == 4096);
  CHECK(backend->allocated_bytes() == before + 4096);  // kept, still counted
  // A smaller request takes it (its contents are the last user's: scratch is not cleared).
  DeviceBuffer b = backend->acquire_scratch(1000);
  CHECK(b.handle() == a_handle);
  CHECK(b.bytes() == 4096);
  CHECK(b.download_as<uint32_t>(1).at(0) == 7);
  CHECK(backend->cached_scratch_bytes() == 0);
  // A larger one is new; both kept, smallest served first.
  DeviceBuffer c = backend->acquire_scratch(8192);
  CHECK(c.handle() != a_handle);
  const uint64_t c_handle = c.handle();
  backend->release_scratch(std::move(c));
  backend->release_scratch(std::move(b));
  CHECK(backend->cached_scratch_bytes() == 4096 + 8192);
  DeviceBuffer d = backend->acquire_scratch(2048);
  CHECK(d.handle() == a_handle);
  DeviceBuffer e = backend->acquire_scratch(2048);
  CHECK(e.handle() == c_handle);
  // Up to kScratchCacheBytes are kept; past them the largest are freed.
  DeviceBuffer big = backend->acquire_scratch(Backend::kScratchCacheBytes);
  backend->release_scratch(std::move(big));
  CHECK(backend->cached_scratch_bytes() == Backend::kScratchCacheBytes);
  backend->release_scratch(std::move(d));
  CHECK(backend->cached_scratch_bytes() == 4096);  // the 256 MiB one went
  backend->release_scratch(std::move(e));
  CHECK(backend->cached_scratch_bytes() == 4096 + 8192);
  backend->drop_scratch();
  CHECK(backend->cached_scratch_bytes() == 0);
  CHECK(backend->allocated_bytes() == before);
}

TEST_CASE("OpenCL: a compile error carries the build log and the label") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  ModuleSource bad{"__kernel void broken(__global int* x) { x[0] = undeclared_thing; }", {}, {"broken"}, "q42-probe"};
  try {
    backend->compile(bad, nullptr);
    FAIL("expected a compile error");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(message.find("q42-probe") != std::string::npos);
    CHECK(message.find("undeclared_thing") != std::string::npos);
  }
}

TEST_CASE("OpenCL: a device preference that matches nothing lists the devices") {
  try {
    open_opencl_backend("no-such-device-xyz");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(std::string(e.what()).find("no-such-device-xyz") != std::string::npos);
  }
}

TEST_CASE("OpenCL: second compile hits the kernel cache, also from a fresh cache object") {
  auto dir = fresh_dir("cl-cache");
  auto backend = open_backend(DeviceChoice::OpenCL);
  ModuleSource src{kAxpbSource, {"-DUNUSED_OPTION=1"}, {"axpb"}, "cache-test"};
  {
    KernelCache cache(dir);
    CompileResult first = backend->compile(src, &cache);
    CHECK_FALSE(first.cache_hit);
    CompileResult second = backend->compile(src, &cache);
    CHECK(second.cache_hit);
  }
  {
    KernelCache another_process(dir);  // what a new process sees: only the directory
    CompileResult third = backend->compile(src, &another_process);
    CHECK(third.cache_hit);
    // The cached binary must really work.
    DeviceBuffer in = backend->allocate(4 * 4);
    DeviceBuffer out = backend->allocate(4 * 8);
    in.upload(std::vector<int32_t>{1, 2, 3, 4});
    backend->launch(third.module->kernel("axpb"),
                    {KernelArg::buf(in), KernelArg::buf(out), KernelArg::int32(2), KernelArg::int64(1),
                     KernelArg::uint64(4)},
                    {1, 4, 0});
    CHECK(out.download_as<int64_t>(4) == std::vector<int64_t>{3, 5, 7, 9});
    // Different options are a different key.
    ModuleSource other = src;
    other.options = {"-DUNUSED_OPTION=2"};
    CHECK_FALSE(backend->compile(other, &another_process).cache_hit);
  }
  {
    // Corrupt every entry: the next compile notices, recompiles and rewrites.
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::filesystem::resize_file(entry.path(), std::filesystem::file_size(entry.path()) / 2);
    }
    KernelCache cache(dir);
    CompileResult recovered = backend->compile(src, &cache);
    CHECK_FALSE(recovered.cache_hit);
    CHECK(cache.corrupt_entries() == 1);
    CHECK(backend->compile(src, &cache).cache_hit);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("OpenCL: a compile begun before the backend opened is adopted once: begin_compile waits for it") {
  // runtime::CudaAheadCompile hands such compiles to the CUDA backend; the mechanism is the base
  // class's, tested here with a binary this device made and a marker compile time.
  auto dir = fresh_dir("cl-adopt");
  auto backend = open_backend(DeviceChoice::OpenCL);
  ModuleSource src{kAxpbSource, {"-DADOPTED=1"}, {"axpb"}, "adopt-test"};
  const std::string key = KernelCache::key_for(backend->cache_identity(), src.source, src.options);
  std::vector<char> binary;
  {
    KernelCache cache(dir);
    backend->compile(src, &cache);
    binary = cache.load(key).value();
  }
  std::promise<PendingCompile::Compiled> ahead;
  backend->adopt_compile(key, ahead.get_future().share());
  ahead.set_value({binary, "", 1e6});
  const CompileResult adopted = backend->compile(src, nullptr);
  CHECK_FALSE(adopted.cache_hit);
  CHECK(adopted.compile_ms >= 1e6);  // the adopted compile's own time: this one did not compile
  DeviceBuffer in = backend->allocate(4 * 4);
  DeviceBuffer out = backend->allocate(4 * 8);
  in.upload(std::vector<int32_t>{1, 2, 3, 4});
  backend->launch(adopted.module->kernel("axpb"),
                  {KernelArg::buf(in), KernelArg::buf(out), KernelArg::int32(2), KernelArg::int64(1), KernelArg::uint64(4)},
                  {1, 4, 0});
  CHECK(out.download_as<int64_t>(4) == std::vector<int64_t>{3, 5, 7, 9});
  CHECK(backend->compile(src, nullptr).compile_ms < 1e6);  // used once: the next compiles itself

  // An adopted compile that failed fails the module's compile with its error.
  std::promise<PendingCompile::Compiled> failing;
  backend->adopt_compile(key, failing.get_future().share());
  failing.set_exception(std::make_exception_ptr(Error(ErrorKind::Device, "adopt-test: the ahead compile failed")));
  CHECK_THROWS_WITH_AS(backend->compile(src, nullptr), "adopt-test: the ahead compile failed", Error);
  std::filesystem::remove_all(dir);
}
