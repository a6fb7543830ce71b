// The occupancy model against NVIDIA's own calculator, cuda_occupancy.h (host-only, no GPU needed):
// every built-in compute capability, block sizes 1..1024, registers 16..255, shared memory from 0 to
// past the opt-in limit. Exact equality of blocks per SM on every combination, and of the warp,
// register and shared-memory limits where the oracle reports them.
#include <doctest/doctest.h>

#include <climits>
#include <cstring>
#include <set>
#include <sstream>

#include <cuda_occupancy.h>

#include "planner/device_profile.h"
#include "planner/occupancy.h"
#include "storage/error.h"

using namespace hqc::planner;

namespace {

cudaOccDeviceProp oracle_device(const DeviceProfile& p) {
  cudaOccDeviceProp d;
  d.computeMajor = p.cc_major;
  d.computeMinor = p.cc_minor;
  d.maxThreadsPerBlock = static_cast<int>(p.max_threads_per_block);
  d.maxThreadsPerMultiprocessor = static_cast<int>(p.max_threads_per_sm);
  d.regsPerBlock = static_cast<int>(p.registers_per_block);
  d.regsPerMultiprocessor = static_cast<int>(p.registers_per_sm);
  d.warpSize = static_cast<int>(p.warp_size);
  d.sharedMemPerBlock = p.shared_per_block;
  d.sharedMemPerMultiprocessor = p.shared_per_sm;
  d.numSms = static_cast<int>(p.sm_count);
  d.sharedMemPerBlockOptin = p.shared_per_block_optin;
  d.reservedSharedMemPerBlock = p.shared_reserved_per_block;
  return d;
}

// What cudaFuncGetAttributes reports for a kernel whose shared memory is all dynamic and which
// opted in to the device's per-block maximum (the runtime does that for large scratchpads).
cudaOccFuncAttributes oracle_function(const DeviceProfile& p, int registers) {
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = INT_MAX;
  f.numRegs = registers;
  f.sharedSizeBytes = 0;
  f.partitionedGCConfig = PARTITIONED_GC_OFF;
  f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  f.maxDynamicSharedSizeBytes = p.shared_per_block_optin;
  f.numBlockBarriers = 1;
  f.virtualResourceCount = 0;
  return f;
}

std::vector<uint32_t> block_sizes() {
  std::vector<uint32_t> out;
  // Every multiple of the warp size, and sizes that leave a partial warp.
  for (uint32_t t = 32; t <= 1024; t += 32) out.push_back(t);
  for (uint32_t t : {1u, 17u, 31u, 33u, 63u, 65u, 100u, 257u, 500u, 999u, 1000u, 1023u}) out.push_back(t);
  out.push_back(1025);  // above the block limit: both must say 0
  return out;
}

std::vector<uint64_t> shared_sizes(const DeviceProfile& p) {
  std::set<uint64_t> s{0, 1, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025};
  for (uint64_t v = 2048; v <= p.shared_per_block_optin + 4096; v += 3 * 1024 + 77) s.insert(v);
  for (uint64_t edge : {p.shared_per_block, p.shared_per_block_optin, p.shared_per_sm / 2, p.shared_per_sm / 3}) {
    for (int64_t delta = -129; delta <= 129; delta += 43) s.insert(static_cast<uint64_t>(static_cast<int64_t>(edge) + delta));
  }
  return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("occupancy equals cudaOccMaxActiveBlocksPerMultiprocessor on every combination") {
  uint64_t combinations = 0;
  for (auto [major, minor] : known_compute_capabilities()) {
    const DeviceProfile profile = profile_for_compute_capability(major, minor);
    const cudaOccDeviceProp device = oracle_device(profile);
    const cudaOccDeviceState state;
    const std::vector<uint64_t> shared = shared_sizes(profile);
    uint64_t mismatches = 0;
    uint64_t oracle_errors = 0;
    std::ostringstream first;
    for (int registers = 16; registers <= 255; ++registers) {
      const cudaOccFuncAttributes function = oracle_function(profile, registers);
      for (uint32_t threads : block_sizes()) {
        for (uint64_t bytes : shared) {
          cudaOccResult result;
          std::memset(&result, 0, sizeof(result));
          const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &device, &function, &state,
                                                                              static_cast<int>(threads), bytes);
          if (status != CUDA_OCC_SUCCESS) ++oracle_errors;
          const Occupancy mine = compute_occupancy(profile, KernelResources{threads, static_cast<uint32_t>(registers), bytes});
          ++combinations;
          bool same = static_cast<int>(mine.blocks_per_sm) == result.activeBlocksPerMultiprocessor;
          if (threads <= profile.max_threads_per_block) {
            same = same && static_cast<int>(mine.limit_warps) == result.blockLimitWarps;
            same = same && static_cast<int>(mine.limit_registers) == result.blockLimitRegs;
            // The oracle reports 0 for shared memory beyond the per-block limit; ours counts SM capacity.
            if (result.blockLimitSharedMem != 0 && result.blockLimitSharedMem != INT_MAX) {
              same = same && static_cast<int>(mine.limit_shared) == result.blockLimitSharedMem;
            }
          }
          if (!same && mismatches++ == 0) {
            first << "cc" << major << minor << " T=" << threads << " R=" << registers << " S=" << bytes
                  << ": ours " << mine.blocks_per_sm << " (W " << mine.limit_warps << " R " << mine.limit_registers
                  << " S " << mine.limit_shared << "), oracle " << result.activeBlocksPerMultiprocessor << " (W "
                  << result.blockLimitWarps << " R " << result.blockLimitRegs << " S " << result.blockLimitSharedMem << ")";
          }
        }
      }
    }
    INFO(first.str());
    CHECK(mismatches == 0);
    CHECK(oracle_errors == 0);
  }
  MESSAGE("occupancy oracle combinations: " << combinations);
  CHECK(combinations > 100000);
}

TEST_CASE("occupancy: the H100 cases of seed 000's kind, by hand") {
  const DeviceProfile h100 = named_profile("h100");
  // 256 threads, 32 registers, no shared memory: 8 warps per block, warps limit 64/8 = 8 blocks.
  Occupancy o = compute_occupancy(h100, {256, 32, 0});
  CHECK(o.blocks_per_sm == 8);
  CHECK(o.limiting == OccupancyLimit::Warps);
  CHECK(o.occupancy == doctest::Approx(1.0));
  // 128 registers: θ = 4096, 16384/4096 = 4 warps per sub-partition, 16 per SM, 2 blocks.
  o = compute_occupancy(h100, {256, 128, 0});
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.limiting == OccupancyLimit::Registers);
  CHECK(o.occupancy == doctest::Approx(0.25));
  // 100 KiB of shared memory: ζ = 100 KiB + 1 KiB reserved, 228 / 101 = 2 blocks.
  o = compute_occupancy(h100, {128, 32, 100 * 1024});
  CHECK(o.shared_allocated_per_block == 101 * 1024);
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.limiting == OccupancyLimit::SharedMemory);
  // 32 threads: the 32-blocks limit binds before the 64 warps.
  o = compute_occupancy(h100, {32, 16, 0});
  CHECK(o.blocks_per_sm == 32);
  CHECK(o.limiting == OccupancyLimit::Blocks);
  CHECK(o.occupancy == doctest::Approx(0.5));
  // Not launchable: too many threads, registers, shared memory.
  CHECK(compute_occupancy(h100, {2048, 32, 0}).blocks_per_sm == 0);
  CHECK(compute_occupancy(h100, {256, 256, 0}).blocks_per_sm == 0);
  CHECK(compute_occupancy(h100, {256, 32, 227 * 1024 + 1}).blocks_per_sm == 0);
  CHECK_FALSE(compute_occupancy(h100, {256, 32, 227 * 1024 + 1}).reason.empty());
}

TEST_CASE("running rounds: ceil(B / (beta * #SM))") {
  const DeviceProfile h100 = named_profile("h100");
  const Occupancy o = compute_occupancy(h100, {256, 32, 0});  // 8 blocks per SM, 1056 per round
  CHECK(running_rounds(h100, o, 0) == 0);
  CHECK(running_rounds(h100, o, 1) == 1);
  CHECK(running_rounds(h100, o, 1056) == 1);
  CHECK(running_rounds(h100, o, 1057) == 2);
  CHECK(running_rounds(h100, o, 10 * 1056) == 10);
  CHECK_THROWS_AS(running_rounds(h100, compute_occupancy(h100, {2048, 32, 0}), 5), hqc::Error);
}

TEST_CASE("co_resident reduces to the single-kernel limit") {
  for (const std::string& name : builtin_profile_names()) {
    const DeviceProfile p = named_profile(name);
    for (uint32_t threads : {64u, 96u, 256u, 640u, 1024u}) {
      for (uint32_t regs : {24u, 40u, 72u, 128u, 200u}) {
        for (uint64_t shared : {uint64_t{0}, uint64_t{5000}, uint64_t{40000}}) {
          const KernelResources k{threads, regs, shared};
          const uint32_t beta = compute_occupancy(p, k).blocks_per_sm;
          const Placement fits{k, beta};
          const Placement over{k, beta + 1};
          INFO(name << " T=" << threads << " R=" << regs << " S=" << shared);
          if (beta > 0) CHECK(co_resident(p, std::span<const Placement>(&fits, 1)).empty());
          CHECK_FALSE(co_resident(p, std::span<const Placement>(&over, 1)).empty());
        }
      }
    }
  }
}
