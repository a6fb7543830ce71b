// Dialect-neutral device library, layer 4: join hash tables (state objects built by one pipeline
// and probed by later ones; DESIGN.md §3).
// Expects: base.h, HQC_ATOMIC_XCHG_I64 (the dialect prelude). A table is two buffers: `keys`
//   (capacity slots, every slot initialised by the host to HQC_EMPTY_I32 / HQC_EMPTY_I64) and one payload buffer per build attribute the probe side needs (capacity
//   elements each; none for semi-joins), plus a flag word. Capacity and key minimum are kernel arguments, so the
//   same source serves every scale factor. Build and probe run in different launches.
// Guarantees:
//   - Perfect hash (slot = key - key_min, for dense key domains): build stores the key in its slot;
//     a key outside [key_min, key_min + capacity) raises HQC_FLAG_OUT_OF_RANGE.
//   - Open addressing: murmur3-finalizer hash, home slot hqc_oa_home (Fibonacci multiply-high), linear probing, the key claimed with one CAS;
//     a build that finds no free slot after `capacity` probes raises HQC_FLAG_FULL (the host grows the
//     table and re-runs; never a silently dropped row).
//   - Build keys equal to the empty sentinel raise HQC_FLAG_RESERVED_KEY; probes of that key miss.
//   - Build returns the slot (or -1 after raising a flag); probe returns the slot of a matching key or
//     -1. Duplicate build keys (non-unique join keys) occupy separate slots of one probe chain:
//     hqc_oa_probe_* returns the first; the chain walk below visits every one.
//   - Chain walk (several matches per probe, composite keys): a key's chain starts at its home slot
//     hqc_oa_home(hash, capacity) and ends at the first empty slot (or after `capacity` slots).
//     hqc_oa_first_* / hqc_oa_next_* return the first / the next slot of the chain whose key column
//     equals `key` (-1 when the chain ends), so a probe visits every duplicate of a key. For a
//     single key column the home slot is the one hqc_oa_build_* starts from; a composite key is
//     hashed with hqc_hash_combine over hqc_key_hash_* of its columns, claimed on its first column
//     with hqc_oa_claim_* (the other columns are stored with hqc_ht_put_*), and a probe compares
//     the other columns itself at every slot the walk returns.
//   - Chained (non-unique keys where every build row is stored): `keys` holds each distinct first
//     key column once, claimed like insert-if-absent from the home slot of all key columns' hash;
//     `heads` (capacity elements, -1 when empty) the latest entry of each slot; `next` (one per
//     entry) the entry inserted before it under the same slot, -1 after the last. An entry is the
//     build row, so a build writes next, payload and the other key columns where it reads its row
//     and no insert walks past its key's duplicates (hqc_ch_link). hqc_ch_first_* / hqc_ch_next list a key's
//     entries (of a composite key: every entry whose first column equals; the probe compares the rest).
//     A single dense key may take its slot by perfect hash instead (hqc_ph_build_*, then
//     hqc_ch_link; probes hqc_ch_head of hqc_ph_probe_*): no search, and sorted keys touch the
//     heads in order.
//   - Insert-if-absent (keys-only tables of semi/anti joins, which ask only whether a key exists):
//     hqc_oa_insert_absent_* returns the slot holding the key, claiming a free one only when no
//     slot holds it yet, so duplicate build keys share one slot and need no extra capacity. A
//     perfect-hash build is already idempotent (every duplicate writes the same key to the same
//     slot), so hqc_ph_build_* serves keys-only tables unchanged.
//   - Key bits (a perfect-hash table without payload, ir::HashTable::key_bits): slot = key - key_min says
//     the key, so the table is one bit per slot (U32 words, zeroed by the host) instead of a key per
//     slot — 32x smaller (TPC-H Q4's late lineitems' order keys at SF 10: 240 MB of keys, 7.5 MB of
//     bits, in L2). hqc_ph_bits_slot gives a build key's slot (a key outside the range raises
//     HQC_FLAG_OUT_OF_RANGE, -1); hqc_bits_set (base.h) sets the bits of `mask` in word `word` by an
//     atomic OR, read first where keys repeat in no order (ir::HashTable::key_bits_read_first); on
//     CUDA hqc_warp_bits_set does it once per run of lanes sharing a word (sorted keys);
//     hqc_ph_probe_bits returns the slot of a built key or -1.
//   - Probe bitmap (a perfect-hash table built from a subset of its rows, ir::HashTable::bitmap_buffer:
//     one bit per slot, zeroed by the host): hqc_bitmap_set marks a built slot; hqc_ph_probe_bm_*
//     answers as hqc_ph_probe_* but reads the key only where the slot's bit is set — a bitmap of a
//     table too large for L2 stays there, so probes that find nothing read no key from DRAM.

// Home slot of a key: its hash (of every key column, combined) modulo the capacity.
HQC_FN hqc_u64 hqc_key_hash_i32(hqc_i32 key) { return (hqc_u64)hqc_hash_u32((hqc_u32)key); }
HQC_FN hqc_u64 hqc_key_hash_i64(hqc_i64 key) { return hqc_hash_u64((hqc_u64)key); }
// Order-sensitive mix of a composite key's column hashes (boost::hash_combine's recipe, 64-bit).
HQC_FN hqc_u64 hqc_hash_combine(hqc_u64 h, hqc_u64 column_hash) {
  return h ^ (column_hash + (hqc_u64)0x9e3779b97f4a7c15UL + (h << 6) + (h >> 2));
}
// The home slot: the high word of (hash x 2^64/phi) x capacity — Fibonacci hashing onto [0, capacity)
// by one multiply-high, where `hash % capacity` took a 64-bit remainder (a long ptxas routine, 6-8
// per large module); the multiply by 2^64/phi spreads the hash's low bits into the high word.
HQC_FN hqc_i64 hqc_oa_home(hqc_u64 hash, hqc_i64 capacity) {
  return (hqc_i64)HQC_MUL_HI_U64(hash * (hqc_u64)0x9e3779b97f4a7c15UL, (hqc_u64)capacity);
}

HQC_FN hqc_i64 hqc_ph_build_i32(HQC_GLOBAL hqc_i32* keys, hqc_i64 capacity, hqc_i64 key_min, hqc_i32 key,
                                HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I32) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  hqc_i64 slot = (hqc_i64)key - key_min;
  if (slot < 0 || slot >= capacity) { hqc_set_flag(flags, HQC_FLAG_OUT_OF_RANGE); return -1; }
  keys[slot] = key;
  return slot;
}

HQC_FN hqc_i64 hqc_ph_probe_i32(HQC_GLOBAL const hqc_i32* keys, hqc_i64 capacity, hqc_i64 key_min, hqc_i32 key) {
  hqc_i64 slot = (hqc_i64)key - key_min;
  if (key == HQC_EMPTY_I32 || slot < 0 || slot >= capacity) return -1;
  return keys[slot] == key ? slot : -1;
}

HQC_FN hqc_i64 hqc_ph_bits_slot(hqc_i64 capacity, hqc_i64 key_min, hqc_i64 key, HQC_GLOBAL hqc_u32* flags) {
  const hqc_i64 slot = key - key_min;
  if (slot < 0 || slot >= capacity) { hqc_set_flag(flags, HQC_FLAG_OUT_OF_RANGE); return -1; }
  return slot;
}
HQC_FN hqc_i64 hqc_ph_probe_bits(HQC_GLOBAL const hqc_u32* bits, hqc_i64 capacity, hqc_i64 key_min, hqc_i64 key) {
  const hqc_i64 slot = key - key_min;
  if (slot < 0 || slot >= capacity) return -1;
  return ((bits[slot >> 5] >> (hqc_u32)(slot & 31)) & 1u) != 0u ? slot : -1;
}

// CUDA (warp shuffles, device/warp.cuh): a key-bits table's build (hqc_bits_set) with one update per run of
// neighbouring lanes whose slots share a 32-bit word (`slot` from hqc_ph_bits_slot, -1 for a lane
// that builds nothing): sorted build keys (lineitem's order keys) put a word's keys side by side, and
// their updates of one word would otherwise serialise. A lane ORs in the mask of the lane d below
// only where that lane's word is its own (log2(32) shuffle steps), so a mask holds bits of its own
// word only and the last lane of a run of equal words holds every bit of the run; that lane sets them.
#if HQC_HAS_SIMD
HQC_FN void hqc_warp_bits_set(HQC_GLOBAL hqc_u32* bits, hqc_i64 slot, hqc_i32 read_first) {
  if (HQC_BALLOT(slot >= 0) == 0u) return;  // no lane builds: a sparse build costs one vote per row
  const hqc_i32 lane = hqc_lane();
  const hqc_i64 word = slot >= 0 ? (slot >> 5) : -1;
  hqc_u32 mask = slot >= 0 ? (1u << (hqc_u32)(slot & 31)) : 0u;
  for (hqc_i32 d = 1; d < HQC_SIMD_WIDTH; d <<= 1) {
    const hqc_u32 below = HQC_SHFL_UP(mask, d);
    const hqc_i64 word_below = HQC_SHFL_UP(word, d);
    if (lane >= d && word_below == word) mask |= below;
  }
  const hqc_i64 word_above = HQC_SHFL_DOWN(word, 1);
  const hqc_i32 last = lane == HQC_SIMD_WIDTH - 1 || word_above != word;
  if (last && word >= 0) hqc_bits_set(&bits[word], mask, read_first);
}
#endif

HQC_FN void hqc_bitmap_set(HQC_GLOBAL hqc_u32* bitmap, hqc_i64 slot) {
  hqc_set_flag(bitmap + (slot >> 5), (hqc_u32)1 << (hqc_u32)(slot & 31));
}
HQC_FN hqc_i32 hqc_bitmap_test(HQC_GLOBAL const hqc_u32* bitmap, hqc_i64 slot) {
  return (hqc_i32)((bitmap[slot >> 5] >> (hqc_u32)(slot & 31)) & 1u);
}

HQC_FN hqc_i64 hqc_ph_probe_bm_i32(HQC_GLOBAL const hqc_i32* keys, HQC_GLOBAL const hqc_u32* bitmap, hqc_i64 capacity,
                                   hqc_i64 key_min, hqc_i32 key) {
  hqc_i64 slot = (hqc_i64)key - key_min;
  if (key == HQC_EMPTY_I32 || slot < 0 || slot >= capacity || !hqc_bitmap_test(bitmap, slot)) return -1;
  return keys[slot] == key ? slot : -1;
}

HQC_FN hqc_i64 hqc_ph_build_i64(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, hqc_i64 key_min, hqc_i64 key,
                                HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I64) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  hqc_i64 slot = key - key_min;
  // key < key_min also catches a wrapped subtraction for keys far below the minimum.
  if (key < key_min || slot >= capacity) { hqc_set_flag(flags, HQC_FLAG_OUT_OF_RANGE); return -1; }
  keys[slot] = key;
  return slot;
}

HQC_FN hqc_i64 hqc_ph_probe_i64(HQC_GLOBAL const hqc_i64* keys, hqc_i64 capacity, hqc_i64 key_min, hqc_i64 key) {
  hqc_i64 slot = key - key_min;
  if (key == HQC_EMPTY_I64 || key < key_min || slot >= capacity) return -1;
  return keys[slot] == key ? slot : -1;
}

HQC_FN hqc_i64 hqc_ph_probe_bm_i64(HQC_GLOBAL const hqc_i64* keys, HQC_GLOBAL const hqc_u32* bitmap, hqc_i64 capacity,
                                   hqc_i64 key_min, hqc_i64 key) {
  hqc_i64 slot = key - key_min;
  if (key == HQC_EMPTY_I64 || key < key_min || slot >= capacity || !hqc_bitmap_test(bitmap, slot)) return -1;
  return keys[slot] == key ? slot : -1;
}

HQC_FN hqc_i64 hqc_oa_build_i32(HQC_GLOBAL hqc_i32* keys, hqc_i64 capacity, hqc_i32 key, HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I32) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  // Once one insert found the table full the whole build is redone larger: stop probing early.
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_i64 slot = hqc_oa_home((hqc_u64)hqc_hash_u32((hqc_u32)key), capacity);
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    if (keys[slot] == HQC_EMPTY_I32 && HQC_ATOMIC_CAS_I32(&keys[slot], HQC_EMPTY_I32, key) == HQC_EMPTY_I32) return slot;
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}

HQC_FN hqc_i64 hqc_oa_probe_i32(HQC_GLOBAL const hqc_i32* keys, hqc_i64 capacity, hqc_i32 key) {
  if (key == HQC_EMPTY_I32) return -1;
  hqc_i64 slot = hqc_oa_home((hqc_u64)hqc_hash_u32((hqc_u32)key), capacity);
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    hqc_i32 k = keys[slot];
    if (k == key) return slot;
    if (k == HQC_EMPTY_I32) return -1;
    if (++slot == capacity) slot = 0;
  }
  return -1;
}

HQC_FN hqc_i64 hqc_oa_build_i64(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, hqc_i64 key, HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I64) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_i64 slot = hqc_oa_home(hqc_hash_u64((hqc_u64)key), capacity);
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    if (keys[slot] == HQC_EMPTY_I64 && HQC_ATOMIC_CAS_I64(&keys[slot], HQC_EMPTY_I64, key) == HQC_EMPTY_I64) return slot;
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}

HQC_FN hqc_i64 hqc_oa_probe_i64(HQC_GLOBAL const hqc_i64* keys, hqc_i64 capacity, hqc_i64 key) {
  if (key == HQC_EMPTY_I64) return -1;
  hqc_i64 slot = hqc_oa_home(hqc_hash_u64((hqc_u64)key), capacity);
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    hqc_i64 k = keys[slot];
    if (k == key) return slot;
    if (k == HQC_EMPTY_I64) return -1;
    if (++slot == capacity) slot = 0;
  }
  return -1;
}

// Insert-if-absent: a CAS that fails because another thread stored the SAME key ends the search
// (the key is present); one that fails on a different key moves on, as in the plain build.
// Builds, claims and inserts read a slot before they CAS it: a claimed slot keeps its key for good,
// so a plain read that sees a key is the truth and saves the atomic (duplicate keys, such as a
// semi join's lineitem rows per order, otherwise CAS every slot of their chain), and one that sees
// EMPTY (perhaps stale) leaves the decision to the CAS.
// The slot holding `key` on the chain from `home`, claiming the first free one when none holds it.
HQC_FN hqc_i64 hqc_oa_find_or_claim_i32(HQC_GLOBAL hqc_i32* keys, hqc_i64 capacity, hqc_i64 home, hqc_i32 key,
                                        HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I32) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_i64 slot = home;
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    hqc_i32 prev = keys[slot];
    if (prev == HQC_EMPTY_I32) prev = HQC_ATOMIC_CAS_I32(&keys[slot], HQC_EMPTY_I32, key);
    if (prev == HQC_EMPTY_I32 || prev == key) return slot;
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}

HQC_FN hqc_i64 hqc_oa_find_or_claim_i64(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, hqc_i64 home, hqc_i64 key,
                                        HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I64) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_i64 slot = home;
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    hqc_i64 prev = keys[slot];
    if (prev == HQC_EMPTY_I64) prev = HQC_ATOMIC_CAS_I64(&keys[slot], HQC_EMPTY_I64, key);
    if (prev == HQC_EMPTY_I64 || prev == key) return slot;
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}

HQC_FN hqc_i64 hqc_oa_insert_absent_i32(HQC_GLOBAL hqc_i32* keys, hqc_i64 capacity, hqc_i32 key,
                                        HQC_GLOBAL hqc_u32* flags) {
  return hqc_oa_find_or_claim_i32(keys, capacity, hqc_oa_home(hqc_key_hash_i32(key), capacity), key, flags);
}

HQC_FN hqc_i64 hqc_oa_insert_absent_i64(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, hqc_i64 key,
                                        HQC_GLOBAL hqc_u32* flags) {
  return hqc_oa_find_or_claim_i64(keys, capacity, hqc_oa_home(hqc_key_hash_i64(key), capacity), key, flags);
}

// Payload columns: one buffer per payload attribute, indexed by slot (columnar, so each probe
// reads only the attributes it needs). A slot of -1 (failed build / probe miss) is ignored / reads 0.
HQC_FN void hqc_ht_put_i32(HQC_GLOBAL hqc_i32* col, hqc_i64 slot, hqc_i32 v) { if (slot >= 0) col[slot] = v; }
HQC_FN void hqc_ht_put_i64(HQC_GLOBAL hqc_i64* col, hqc_i64 slot, hqc_i64 v) { if (slot >= 0) col[slot] = v; }
HQC_FN void hqc_ht_put_f64(HQC_GLOBAL hqc_f64* col, hqc_i64 slot, hqc_f64 v) { if (slot >= 0) col[slot] = v; }
HQC_FN hqc_i32 hqc_ht_get_i32(HQC_GLOBAL const hqc_i32* col, hqc_i64 slot) { return slot >= 0 ? col[slot] : 0; }
HQC_FN hqc_i64 hqc_ht_get_i64(HQC_GLOBAL const hqc_i64* col, hqc_i64 slot) { return slot >= 0 ? col[slot] : 0; }
HQC_FN hqc_f64 hqc_ht_get_f64(HQC_GLOBAL const hqc_f64* col, hqc_i64 slot) { return slot >= 0 ? col[slot] : 0.0; }
// A 128-bit payload (an aggregate's 128-bit SUM on the build side): two words per slot.
HQC_FN void hqc_ht_put_i128(HQC_GLOBAL hqc_i64* col, hqc_i64 slot, hqc_i128 v) {
  if (slot >= 0) hqc_i128_store(col, (hqc_u64)slot, v);
}
HQC_FN hqc_i128 hqc_ht_get_i128(HQC_GLOBAL const hqc_i64* col, hqc_i64 slot) {
  return slot >= 0 ? hqc_i128_from_words(col[2 * slot], col[2 * slot + 1]) : hqc_i128_zero();
}

// ---------------------------------------------------------------- chain walk and composite keys


// Claims the first free slot of the chain starting at `home` for `key` (the first key column).
HQC_FN hqc_i64 hqc_oa_claim_i32(HQC_GLOBAL hqc_i32* keys, hqc_i64 capacity, hqc_i64 home, hqc_i32 key,
                                HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I32) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_i64 slot = home;
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    if (keys[slot] == HQC_EMPTY_I32 && HQC_ATOMIC_CAS_I32(&keys[slot], HQC_EMPTY_I32, key) == HQC_EMPTY_I32) return slot;
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}

HQC_FN hqc_i64 hqc_oa_claim_i64(HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, hqc_i64 home, hqc_i64 key,
                                HQC_GLOBAL hqc_u32* flags) {
  if (key == HQC_EMPTY_I64) { hqc_set_flag(flags, HQC_FLAG_RESERVED_KEY); return -1; }
  if ((*flags & HQC_FLAG_FULL) != 0u) return -1;
  hqc_i64 slot = home;
  for (hqc_i64 probes = 0; probes < capacity; ++probes) {
    if (keys[slot] == HQC_EMPTY_I64 && HQC_ATOMIC_CAS_I64(&keys[slot], HQC_EMPTY_I64, key) == HQC_EMPTY_I64) return slot;
    if (++slot == capacity) slot = 0;
  }
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return -1;
}

// Walks the chain from `distance` slots past `home`: the first slot whose key equals, or -1.
HQC_FN hqc_i64 hqc_oa_walk_i32(HQC_GLOBAL const hqc_i32* keys, hqc_i64 capacity, hqc_i64 home, hqc_i64 distance,
                               hqc_i32 key) {
  if (key == HQC_EMPTY_I32) return -1;
  hqc_i64 slot = home + distance;
  if (slot >= capacity) slot -= capacity;
  for (; distance < capacity; ++distance) {
    hqc_i32 k = keys[slot];
    if (k == key) return slot;
    if (k == HQC_EMPTY_I32) return -1;
    if (++slot == capacity) slot = 0;
  }
  return -1;
}

HQC_FN hqc_i64 hqc_oa_walk_i64(HQC_GLOBAL const hqc_i64* keys, hqc_i64 capacity, hqc_i64 home, hqc_i64 distance,
                               hqc_i64 key) {
  if (key == HQC_EMPTY_I64) return -1;
  hqc_i64 slot = home + distance;
  if (slot >= capacity) slot -= capacity;
  for (; distance < capacity; ++distance) {
    hqc_i64 k = keys[slot];
    if (k == key) return slot;
    if (k == HQC_EMPTY_I64) return -1;
    if (++slot == capacity) slot = 0;
  }
  return -1;
}

// Slots from `home` to `slot` along the chain (0 for the home slot itself).
HQC_FN hqc_i64 hqc_oa_distance(hqc_i64 home, hqc_i64 slot, hqc_i64 capacity) {
  return slot >= home ? slot - home : slot + capacity - home;
}

HQC_FN hqc_i64 hqc_oa_first_i32(HQC_GLOBAL const hqc_i32* keys, hqc_i64 capacity, hqc_i64 home, hqc_i32 key) {
  return hqc_oa_walk_i32(keys, capacity, home, 0, key);
}
HQC_FN hqc_i64 hqc_oa_first_i64(HQC_GLOBAL const hqc_i64* keys, hqc_i64 capacity, hqc_i64 home, hqc_i64 key) {
  return hqc_oa_walk_i64(keys, capacity, home, 0, key);
}
// The next slot after `slot` (a slot a walk returned; -1 stays -1) whose key equals.
HQC_FN hqc_i64 hqc_oa_next_i32(HQC_GLOBAL const hqc_i32* keys, hqc_i64 capacity, hqc_i64 home, hqc_i64 slot,
                               hqc_i32 key) {
  return slot < 0 ? -1 : hqc_oa_walk_i32(keys, capacity, home, hqc_oa_distance(home, slot, capacity) + 1, key);
}
HQC_FN hqc_i64 hqc_oa_next_i64(HQC_GLOBAL const hqc_i64* keys, hqc_i64 capacity, hqc_i64 home, hqc_i64 slot,
                               hqc_i64 key) {
  return slot < 0 ? -1 : hqc_oa_walk_i64(keys, capacity, home, hqc_oa_distance(home, slot, capacity) + 1, key);
}

// ---------------------------------------------------------------- chained tables (non-unique keys)

// Makes entry `entry` (a build row) the head of slot `slot`'s list: the insert after the key's slot
// was found or claimed (hqc_oa_find_or_claim_*, from the home of every key column's hash) or taken
// by perfect hash (hqc_ph_build_*). slot < 0 (no slot, a flag raised): nothing, -1. Returns the
// entry, where the payload and the other key columns go.
HQC_FN hqc_i64 hqc_ch_link(HQC_GLOBAL hqc_i64* heads, HQC_GLOBAL hqc_i64* next, hqc_i64 slot, hqc_i64 entry) {
  if (slot < 0) return -1;
  next[entry] = HQC_ATOMIC_XCHG_I64(&heads[slot], entry);
  return entry;
}

// The first entry of the list of slot `slot` (-1: no slot, -1 stays -1). With a perfect-hash slot
// (hqc_ph_build_* / hqc_ph_probe_*, dense key domains) a chained table needs no key search at all.
HQC_FN hqc_i64 hqc_ch_head(HQC_GLOBAL const hqc_i64* heads, hqc_i64 slot) { return slot < 0 ? -1 : heads[slot]; }

// The first entry of `key`'s list (-1: the key is absent), and the entry after `entry` (-1 stays -1).
HQC_FN hqc_i64 hqc_ch_first_i32(HQC_GLOBAL const hqc_i32* keys, HQC_GLOBAL const hqc_i64* heads, hqc_i64 capacity,
                                hqc_i64 home, hqc_i32 key) {
  return hqc_ch_head(heads, hqc_oa_walk_i32(keys, capacity, home, 0, key));
}
HQC_FN hqc_i64 hqc_ch_first_i64(HQC_GLOBAL const hqc_i64* keys, HQC_GLOBAL const hqc_i64* heads, hqc_i64 capacity,
                                hqc_i64 home, hqc_i64 key) {
  return hqc_ch_head(heads, hqc_oa_walk_i64(keys, capacity, home, 0, key));
}
HQC_FN hqc_i64 hqc_ch_next(HQC_GLOBAL const hqc_i64* next, hqc_i64 entry) { return entry < 0 ? -1 : next[entry]; }

// 1 when `pred` holds for any work-item of the CTA; every work-item calls it (uniform control
// flow). Used as the loop condition of a probe's match loop when the pipeline's sink resolves
// inside the tile loop (A3), so every work-item runs the sink's barriers equally often. One
// scratchpad word; ends with a barrier (the word is reusable).
HQC_FN hqc_i32 hqc_cta_any(hqc_i32 pred, HQC_LOCAL hqc_u64* word) {
  if (HQC_LID() == 0) *word = 0u;
  HQC_BARRIER();
  if (pred) *word = 1u;  // every writer stores the same value
  HQC_BARRIER();
  hqc_i32 any = *word != 0u ? 1 : 0;
  HQC_BARRIER();
  return any;
}
