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
//     hqc_gb_hash_slot_keys does the same for n > 1 key columns stored as n lanes per slot
//     (keys[slot * n + lane]); lane 0 doubles as the slot's state, see there.
//   - Hashed C3: each CTA aggregates into a small hashed table in scratchpad
//     (hqc_gb_local_slot_keys; a tuple that finds no slot within a few probes goes to the global
//     table at once), and after the loop every occupied slot is merged into the global table with
//     one find-or-insert and one atomic per aggregate (hqc_gb_merge_*).
//   - *_i128 variants: exact 128-bit sums, two words (low, high) per group in scratchpad and global.
//     128-bit MIN/MAX exist for C2 only (hqc_gb_global_{min,max}_i128: base.h's locked update with
//     one state word per group); codegen runs a table holding one with C2.
// Scratchpad for C3, in 8-byte words: groups per aggregate (2 x groups for an i128 sum), plus groups
// for the count.

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

// 128-bit sums (base.h's hqc_i128): two words per group, low then high.
HQC_FN void hqc_gb_local_sum_i128(HQC_LOCAL hqc_i64* s, hqc_i64 g, hqc_i64 v) { hqc_atomic_add_i128_l(&s[2 * g], hqc_i128_from_i64(v)); }
HQC_FN void hqc_gb_flush_sum_i128(HQC_GLOBAL hqc_i64* out, HQC_LOCAL const hqc_i64* s, HQC_LOCAL const hqc_i64* count,
                                  hqc_i64 groups) {
  for (hqc_i64 g = HQC_LID(); g < groups; g += HQC_BDIM()) {
    if (count[g] == 0) continue;
    hqc_i128 v;
    v.lo = (hqc_u64)s[2 * g];
    v.hi = s[2 * g + 1];
    if (v.lo != 0u || v.hi != 0) hqc_atomic_add_i128_g(&out[2 * g], v);
  }
}

// ---- C3 with each work-item's own slots ----
// A direct-indexed table of a few slots (the statistics' count; codegen/sink_emitter.cpp decides
// where) is kept by every work-item in registers over all its tiles, and merged into the CTA's table
// once, after the tile loop: every work-item calls hqc_gb_thread_merge_<op>_<type>(s, g, v) for
// slot g with its value v, which updates the table unless v is the identity (a slot the work-item
// never saw). The caller places the table's fills and their HQC_BARRIER() before, and the flushes'
// barrier after. The update is a collective compiled once (HQC_CTA_FN, behind an HQC_FN that names
// it): a kernel calls it once per slot and accumulator (TPC-H Q1: 36), and inlined at every call
// it took NVRTC ~370 ms more to compile Q1 (when CUDA took this path).
#define HQC_GB_THREAD_MERGE(OP, T, IDENTITY)                                                          \
  HQC_CTA_FN void hqc_gb_thread_merge_##OP##_##T##_once(HQC_LOCAL hqc_##T* s, hqc_i64 g, hqc_##T v) { \
    if (v != IDENTITY) hqc_gb_local_##OP##_##T(s, g, v);                                              \
  }                                                                                                   \
  HQC_FN void hqc_gb_thread_merge_##OP##_##T(HQC_LOCAL hqc_##T* s, hqc_i64 g, hqc_##T v) {            \
    hqc_gb_thread_merge_##OP##_##T##_once(s, g, v);                                                   \
  }
HQC_GB_THREAD_MERGE(sum, i64, 0)
HQC_GB_THREAD_MERGE(min, i64, HQC_I64_MAX)
HQC_GB_THREAD_MERGE(max, i64, HQC_I64_MIN)
HQC_GB_THREAD_MERGE(sum, f64, 0.0)
#undef HQC_GB_THREAD_MERGE

// ---- C2: one global atomic per tuple ----
HQC_FN void hqc_gb_global_sum_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_ADD_I64(&out[g], v); }
HQC_FN void hqc_gb_global_min_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_MIN_I64_G(&out[g], v); }
HQC_FN void hqc_gb_global_max_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i64 v) { HQC_ATOMIC_MAX_I64_G(&out[g], v); }
HQC_FN void hqc_gb_global_sum_f64(HQC_GLOBAL hqc_f64* out, hqc_i64 g, hqc_f64 v) { HQC_ATOMIC_ADD_F64_G(&out[g], v); }
HQC_FN void hqc_gb_global_sum_i128(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i64 v) { hqc_atomic_add_i128_g(&out[2 * g], hqc_i128_from_i64(v)); }
HQC_FN void hqc_gb_global_min_i128(HQC_GLOBAL hqc_i64* out, HQC_GLOBAL hqc_u32* state, hqc_i64 g, hqc_i128 v) {
  hqc_atomic_min_i128_g(&out[2 * g], &state[g], v);
}
HQC_FN void hqc_gb_global_max_i128(HQC_GLOBAL hqc_i64* out, HQC_GLOBAL hqc_u32* state, hqc_i64 g, hqc_i128 v) {
  hqc_atomic_max_i128_g(&out[2 * g], &state[g], v);
}

// ---- hashed group table (C2) ----
// The insert-or-find of a hashed join table's unique build (hash_table.h) is exactly this lookup:
// the slot that holds `key` (claimed if absent); a group's accumulators then live at that slot.
HQC_FN hqc_i64 hqc_gb_hash_slot_i64(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, hqc_i64 key, HQC_GLOBAL hqc_u32* flags) {
  return hqc_oa_insert_absent_i64(keys, capacity, key, flags);
}

// Several key columns. Slot s holds lanes keys[s * n .. s * n + n - 1], all widened to int64. Lane 0
// is the slot's state as well as the first key: EMPTY -> HQC_BUSY_I64 (one tuple claimed the slot and
// is writing lanes 1..n-1) -> the first key (published after a fence, so a reader that sees it also
// sees the other lanes). A tuple that finds BUSY waits for the claimer; the claimer itself never
// waits, so this cannot deadlock where work-items of a CTA run one after another (PoCL) nor under
// independent thread scheduling (CUDA, sm_70 and newer). The first key may not be EMPTY or BUSY.
#define HQC_BUSY_I64 ((hqc_i64)(-9223372036854775807L))

HQC_FN hqc_i64 hqc_gb_hash_slot_keys(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, const hqc_i64* key, hqc_i32 n,
                                     HQC_GLOBAL hqc_u32* flags) {
  if (key[0] == HQC_EMPTY_I64 || key[0] == HQC_BUSY_I64) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_u64 h = hqc_hash_u64((hqc_u64)key[0]);
  for (hqc_i32 i = 1; i < n; ++i) h = hqc_hash_u64(h ^ (hqc_u64)key[i]);
  hqc_i64 slot = hqc_oa_home(h, capacity);
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    HQC_GLOBAL hqc_i64* lanes = keys + slot * n;
    hqc_i64 prev = HQC_ATOMIC_CAS_I64(&lanes[0], HQC_EMPTY_I64, HQC_BUSY_I64);
    if (prev == HQC_EMPTY_I64) {
      for (hqc_i32 i = 1; i < n; ++i) lanes[i] = key[i];
      HQC_FENCE_GLOBAL();
      HQC_ATOMIC_CAS_I64(&lanes[0], HQC_BUSY_I64, key[0]);  // publish: this tuple holds BUSY
      return slot;
    }
    // A CAS that cannot succeed is an atomic read: lane 0 never returns to EMPTY. Terminates: the
    // work-item that set BUSY publishes in the same branch, waiting on nothing — on NVIDIA (Volta's
    // independent thread scheduling) it makes progress while this one spins; on PoCL work-items of a
    // work-group run one after another between barriers, so a sibling's BUSY is never seen
    // unpublished, and another work-group's owner runs on its own thread.
    while (prev == HQC_BUSY_I64) prev = HQC_ATOMIC_CAS_I64(&lanes[0], HQC_EMPTY_I64, HQC_BUSY_I64);
    if (prev == key[0]) {
      HQC_FENCE_GLOBAL();
      hqc_i32 same = 1;
      for (hqc_i32 i = 1; i < n; ++i) same = same && ((HQC_GLOBAL volatile hqc_i64*)lanes)[i] == key[i];
      if (same) return slot;
    }
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}

// ---- hashed C3: a small table per CTA in scratchpad, merged into the global table at the end ----
// The scratchpad table has the global table's shape (n key lanes per slot, lane 0 the state; one
// array per aggregate; the tuple count) with `slots` slots. A tuple whose group is not found within
// HQC_GB_LOCAL_PROBES probes (the CTA's table is crowded) goes to the global table directly, so
// nothing is dropped and a crowded table costs a bounded number of scratchpad probes per tuple.
#define HQC_GB_LOCAL_PROBES 8

HQC_FN void hqc_gb_local_fill_keys(HQC_LOCAL hqc_i64* keys, hqc_i64 slots, hqc_i32 n) {
  for (hqc_i64 i = HQC_LID(); i < slots * n; i += HQC_BDIM()) keys[i] = HQC_EMPTY_I64;
}

// The group's slot in the CTA's table (claimed if new), or -1: not within the probe bound, or a
// reserved first key (the global table then raises the flag).
HQC_FN hqc_i64 hqc_gb_local_slot_keys(HQC_LOCAL hqc_i64* keys, hqc_i64 slots, const hqc_i64* key, hqc_i32 n) {
  if (key[0] == HQC_EMPTY_I64 || key[0] == HQC_BUSY_I64) return -1;
  hqc_u64 h = hqc_hash_u64((hqc_u64)key[0]);
  for (hqc_i32 i = 1; i < n; ++i) h = hqc_hash_u64(h ^ (hqc_u64)key[i]);
  hqc_i64 slot = hqc_oa_home(h, slots);
  for (hqc_i32 probes = 0; probes < HQC_GB_LOCAL_PROBES && probes < slots; ++probes) {
    HQC_LOCAL hqc_i64* lanes = keys + slot * n;
    hqc_i64 prev = HQC_ATOMIC_CAS_I64(&lanes[0], HQC_EMPTY_I64, HQC_BUSY_I64);
    if (prev == HQC_EMPTY_I64) {
      for (hqc_i32 i = 1; i < n; ++i) lanes[i] = key[i];
      HQC_FENCE_LOCAL();
      HQC_ATOMIC_CAS_I64(&lanes[0], HQC_BUSY_I64, key[0]);
      return slot;
    }
    while (prev == HQC_BUSY_I64) prev = HQC_ATOMIC_CAS_I64(&lanes[0], HQC_EMPTY_I64, HQC_BUSY_I64);
    if (prev == key[0]) {
      HQC_FENCE_LOCAL();
      hqc_i32 same = 1;
      for (hqc_i32 i = 1; i < n; ++i) same = same && ((HQC_LOCAL volatile hqc_i64*)lanes)[i] == key[i];
      if (same) return slot;
    }
    if (++slot == slots) slot = 0;
  }
  return -1;
}

// Merging one slot of the CTA's table into global slot g (the caller skips slots without tuples).
HQC_FN void hqc_gb_merge_sum_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, HQC_LOCAL const hqc_i64* s, hqc_i64 slot) {
  HQC_ATOMIC_ADD_I64(&out[g], s[slot]);
}
HQC_FN void hqc_gb_merge_min_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, HQC_LOCAL const hqc_i64* s, hqc_i64 slot) {
  HQC_ATOMIC_MIN_I64_G(&out[g], s[slot]);
}
HQC_FN void hqc_gb_merge_max_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 g, HQC_LOCAL const hqc_i64* s, hqc_i64 slot) {
  HQC_ATOMIC_MAX_I64_G(&out[g], s[slot]);
}
HQC_FN void hqc_gb_merge_sum_f64(HQC_GLOBAL hqc_f64* out, hqc_i64 g, HQC_LOCAL const hqc_f64* s, hqc_i64 slot) {
  HQC_ATOMIC_ADD_F64_G(&out[g], s[slot]);
}
HQC_FN void hqc_gb_merge_sum_i128(HQC_GLOBAL hqc_i64* out, hqc_i64 g, HQC_LOCAL const hqc_i64* s, hqc_i64 slot) {
  hqc_i128 v;
  v.lo = (hqc_u64)s[2 * slot];
  v.hi = s[2 * slot + 1];
  hqc_atomic_add_i128_g(&out[2 * g], v);
}
