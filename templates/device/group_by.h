// Dialect-neutral device library, layer 5: grouped aggregation (techniques C2, C3).
// Expects: base.h, hash_table.h. Aggregation state = one int64 (or double) array per aggregate plus
//   an int64 `count` array per table (the occupancy the host reads back: a group exists iff its
//   count is non-zero). `groups` (slots of a direct-indexed table) and `capacity` (of a hashed one)
//   are kernel arguments.
// Guarantees:
//   - Direct-indexed (group index = mixed-radix combination of dense keys, computed by the caller):
//     C3 — the CTA privatises the table in scratchpad: hqc_gb_local_fill_* once before the tile loop,
//       per tuple scratchpad atomics (hqc_gb_local_*), and after the loop hqc_gb_flush_* issues ONE
//       global atomic per non-empty group per CTA. The caller places HQC_BARRIER() after the fills
//       and before the flushes (one barrier serves all aggregates).
//     C2 — hqc_gb_global_*: one global atomic per qualifying tuple.
//   - hqc_gb_index_ok(): a group index outside [0, groups) raises HQC_FLAG_OUT_OF_RANGE and the
//     tuple is skipped (the statistics were wrong), never a write out of bounds.
//   - Hashed (C2): hqc_gb_hash_slot_i64 finds or inserts the packed int64 key (open addressing,
//     linear probing, CAS on the key) and returns its slot, or -1 after raising HQC_FLAG_FULL; the
//     aggregates are then updated with the C2 global atomics at that slot.
// Scratchpad for C3, in 8-byte words: groups per aggregate, plus groups for the count.

HQC_FN hqc_i32 hqc_gb_index_ok(hqc_i64 g, hqc_i64 groups, HQC_GLOBAL hqc_u32* flags) {
  if (g >= 0 && g < groups) return 1;
  hqc_set_flag(flags, HQC_FLAG_OUT_OF_RANGE);
  return 0;
}

// ---- C3: scratchpad pre-aggregation ----
HQC_FN void hqc_gb_local_fill_i64(HQC_LOCAL hqc_i64* s, hqc_i64 groups, hqc_i64 identity) {
  for (hqc_i64 g = HQC_LID(); g < groups; g += HQC_BDIM()) s[g] = identity;
}
HQC_FN void hqc_gb_local_fill_f64(HQC_LOCAL hqc_f64* s, hqc_i64 groups) {
  for (hqc_i64 g = HQC_LID(); g < groups; g += HQC_BDIM()) s[g] = 0.0;
}

HQC_FN void hqc_gb_local_sum_i64(HQC_LOCAL hqc_i64* s, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_ADD_I64(&s[g], v); }
HQC_FN void hqc_gb_local_min_i64(HQC_LOCAL hqc_i64* s, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_MIN_I64_L(&s[g], v); }
HQC_FN void hqc_gb_local_max_i64(HQC_LOCAL hqc_i64* s, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_MAX_I64_L(&s[g], v); }
HQC_FN void hqc_gb_local_sum_f64(HQC_LOCAL hqc_f64* s, hqc_i64 g, hqc_f64 v) { HQC_ATOMIC_ADD_F64_L(&s[g], v); }

// Flushes read `count` to skip groups this CTA never saw: one atomic per group per CTA at most.
HQC_FN void hqc_gb_flush_sum_i64(HQC_GLOBAL hqc_i64* out, HQC_LOCAL const hqc_i64* s, HQC_LOCAL const hqc_i64* count,
                                 hqc_i64 groups) {
  for (hqc_i64 g = HQC_LID(); g < groups; g += HQC_BDIM())
    if (count[g] != 0) HQC_ATOMIC_ADD_I64(&out[g], s[g]);
}
HQC_FN void hqc_gb_flush_min_i64(HQC_GLOBAL hqc_i64* out, HQC_LOCAL const hqc_i64* s, HQC_LOCAL const hqc_i64* count,
                                 hqc_i64 groups) {
  for (hqc_i64 g = HQC_LID(); g < groups; g += HQC_BDIM())
    if (count[g] != 0) HQC_ATOMIC_MIN_I64_G(&out[g], s[g]);
}
HQC_FN void hqc_gb_flush_max_i64(HQC_GLOBAL hqc_i64* out, HQC_LOCAL const hqc_i64* s, HQC_LOCAL const hqc_i64* count,
                                 hqc_i64 groups) {
  for (hqc_i64 g = HQC_LID(); g < groups; g += HQC_BDIM())
    if (count[g] != 0) HQC_ATOMIC_MAX_I64_G(&out[g], s[g]);
}
HQC_FN void hqc_gb_flush_sum_f64(HQC_GLOBAL hqc_f64* out, HQC_LOCAL const hqc_f64* s, HQC_LOCAL const hqc_i64* count,
                                 hqc_i64 groups) {
  for (hqc_i64 g = HQC_LID(); g < groups; g += HQC_BDIM())
    if (count[g] != 0) HQC_ATOMIC_ADD_F64_G(&out[g], s[g]);
}

// ---- C2: one global atomic per tuple ----
HQC_FN void hqc_gb_global_sum_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_ADD_I64(&out[g], v); }
HQC_FN void hqc_gb_global_min_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_MIN_I64_G(&out[g], v); }
HQC_FN void hqc_gb_global_max_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_MAX_I64_G(&out[g], v); }
HQC_FN void hqc_gb_global_sum_f64(HQC_GLOBAL hqc_f64* out, hqc_i64 g, hqc_f64 v) { HQC_ATOMIC_ADD_F64_G(&out[g], v); }

// ---- hashed group table (C2) ----
HQC_FN hqc_i64 hqc_gb_hash_slot_i64(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, hqc_i64 key, HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I64) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_i64 slot = (hqc_i64)(hqc_hash_u64((hqc_u64)key) % (hqc_u64)capacity);
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    hqc_i64 prev = HQC_ATOMIC_CAS_I64(&keys[slot], HQC_EMPTY_I64, key);
    // Either we claimed the slot or another tuple of the same group did: both are this group's slot.
    if (prev == HQC_EMPTY_I64 || prev == key) return slot;
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}
