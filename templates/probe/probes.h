// Device probes for the planner's calibration (runtime/device/probes.h): the read bandwidth and the
// integer issue rate a kernel reaches with the whole device. Not part of the query device library
// (library_files()); needs only the dialect prelude.
//
// hqc_probe_read(data, n, sink): every work-item reads its grid-stride share of the n 8-byte words
// once and folds them with XOR; the fold is stored only when it equals a constant no test data
// produces, so the loads stay alive without a store per element (a streaming read, as a compound
// kernel's column loads are).
// hqc_probe_compute(iterations, sink): every work-item runs `iterations` × HQC_PROBE_OPS_PER_ITERATION
// 32-bit multiply-adds over 8 independent accumulators (a = a·a + k: not foldable across rounds,
// 8-way instruction-level parallelism); the loop's own counter and branch are not counted.
#define HQC_PROBE_OPS_PER_ITERATION 32

HQC_KERNEL void hqc_probe_read(HQC_GLOBAL const hqc_u64* HQC_RESTRICT data, hqc_i64 n, HQC_GLOBAL hqc_u64* sink) {
  hqc_u64 acc = 0;
  for (hqc_i64 i = HQC_BID() * (hqc_i64)HQC_BDIM() + HQC_LID(); i < n; i += HQC_GDIM() * (hqc_i64)HQC_BDIM()) acc ^= data[i];
  if (acc == 0x9E3779B97F4A7C15ul) sink[0] = acc;
}

#define HQC_PROBE_MAD4(a, k) \
  a = a * a + (k);           \
  a = a * a + (k);           \
  a = a * a + (k);           \
  a = a * a + (k)

HQC_KERNEL void hqc_probe_compute(hqc_i64 iterations, HQC_GLOBAL hqc_u32* sink) {
  const hqc_u32 seed = (hqc_u32)(HQC_BID() * HQC_BDIM() + HQC_LID());
  hqc_u32 a0 = seed, a1 = seed + 1u, a2 = seed + 2u, a3 = seed + 3u;
  hqc_u32 a4 = seed + 4u, a5 = seed + 5u, a6 = seed + 6u, a7 = seed + 7u;
  for (hqc_i64 i = 0; i < iterations; ++i) {
    HQC_PROBE_MAD4(a0, 1u);
    HQC_PROBE_MAD4(a1, 3u);
    HQC_PROBE_MAD4(a2, 5u);
    HQC_PROBE_MAD4(a3, 7u);
    HQC_PROBE_MAD4(a4, 9u);
    HQC_PROBE_MAD4(a5, 11u);
    HQC_PROBE_MAD4(a6, 13u);
    HQC_PROBE_MAD4(a7, 15u);
  }
  const hqc_u32 fold = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
  if (fold == 0x9E3779B9u) sink[0] = fold;
}
