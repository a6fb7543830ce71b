// Seed 002's synthetic kernels (Table I) as one parameterised kernel frame, for the benchmarks
// bench/synthetic_mix (concurrent mix: knapsack vs sequential vs random launch parameters) and
// bench/occupancy_vs_driver. Not part of the query device library (library_files()).
//
// The including source defines, before this file (defaults: kernel I):
//   HQC_SYN_NAME          the entry point
//   HQC_SYN_LUT_WORDS     32-bit words of the block's lookup table in static shared memory: Table
//                         I's shared memory ÷ 4 (I 6144, II 3072, III 1536, IV 1152, V 384 words)
//   HQC_SYN_ACCUMULATORS  accumulators each work-item keeps live (what makes the kernel need its
//                         registers; CUDA modules are compiled with -maxrregcount = Table I's count)
//   HQC_SYN_ROUNDS        multiply-add rounds over the accumulators per element: 1 makes the kernel
//                         memory-intensive (a load and a store per few operations), 48 compute-intensive
// out[i] = mix(in[i]) for every i < n, grid-stride: any grid and block size give the same outputs
// (32-bit integer arithmetic; the table's words depend only on their index). bench/synthetic_kernels.cpp
// computes the same function on the host.
#ifndef HQC_SYN_NAME
#define HQC_SYN_NAME hqc_synthetic
#endif
#ifndef HQC_SYN_LUT_WORDS
#define HQC_SYN_LUT_WORDS 6144
#endif
#ifndef HQC_SYN_ACCUMULATORS
#define HQC_SYN_ACCUMULATORS 1
#endif
#ifndef HQC_SYN_ROUNDS
#define HQC_SYN_ROUNDS 1
#endif

HQC_KERNEL void HQC_SYN_NAME(HQC_GLOBAL const hqc_u32* HQC_RESTRICT in, HQC_GLOBAL hqc_u32* HQC_RESTRICT out, hqc_i64 n) {
  HQC_LOCAL_DECL hqc_u32 lut[HQC_SYN_LUT_WORDS];
  for (hqc_i32 w = HQC_LID(); w < HQC_SYN_LUT_WORDS; w += HQC_BDIM()) lut[w] = ((hqc_u32)w * 2654435761u) ^ 0x9e3779b9u;
  HQC_BARRIER();
  const hqc_i64 stride = HQC_GDIM() * (hqc_i64)HQC_BDIM();
  for (hqc_i64 i = HQC_BID() * (hqc_i64)HQC_BDIM() + HQC_LID(); i < n; i += stride) {
    const hqc_u32 x = in[i];
    hqc_u32 acc[HQC_SYN_ACCUMULATORS];
    for (hqc_i32 k = 0; k < HQC_SYN_ACCUMULATORS; ++k) acc[k] = x + (hqc_u32)k * 0x85ebca6bu;
    for (hqc_i32 r = 0; r < HQC_SYN_ROUNDS; ++r) {
      for (hqc_i32 k = 0; k < HQC_SYN_ACCUMULATORS; ++k) {
        acc[k] = acc[k] * 1664525u + lut[(acc[k] >> 7) % HQC_SYN_LUT_WORDS] + (hqc_u32)r;
      }
    }
    hqc_u32 h = 0;
    for (hqc_i32 k = 0; k < HQC_SYN_ACCUMULATORS; ++k) h = (h ^ acc[k]) * 16777619u;
    out[i] = h;
  }
}
