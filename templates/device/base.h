// Dialect-neutral device library, layer 0: constants and scalar helpers every other file uses.
// Written in the common subset of CUDA C++ and OpenCL C 1.2, against the dialect prelude only
// (codegen/dialect.cpp generates it); no file here may name a CUDA or OpenCL built-in directly.
// Expects: the prelude (and, on OpenCL, device/atomics_cas.cl).
// Guarantees: HQC_EMPTY_* sentinels for hash-table key slots, hash mixers with good avalanche
//   (murmur3 finalizers), hqc_set_flag() for overflow / error flags that the host reads back,
//   hqc_bits_set() for several bits of a word (key bits, device/hash_table.h), and
//   hqc_i128 (two-word integers with carry, atomic adds) for exact decimal sums, and what later
//   stages compute from them: words <-> value, add/sub, product with an int64, comparison,
//   min/max, conversion to double (codegen/expr_emitter.cpp emits these for Decimal(38, s) values),
//   and hqc_atomic_{min,max}_i128_g: exact MIN/MAX of 128-bit values into two words guarded by a
//   32-bit state word (see the argument above them).
// Rule for every file of this library: no loop whose trip count is the same for every work-item
//   (a count fixed by a constant or a kernel argument) in a function that may run per tuple, i.e.
//   inside a probe's match loop. PoCL (3.1) puts an implicit work-group barrier into such a loop
//   when the kernel has barriers (C3, A3, compaction), judging it uniform although the loop around
//   it runs a different number of times per work-item; the barrier then splits the work-items'
//   iterations and the answer is wrong (a SUBSTRING group key packed inside a multi-match probe
//   counted one match in four). Let the loop's exit depend on the data (hqc_str_pack stops at the
//   string's end), give it an early exit, unroll it, or place it after a data-dependent branch
//   (group_by.h's per-lane key loops follow an early return, so PoCL sees them as divergent).
//   tests/oracle/sql_breadth.py (substring_key_multi_match) guards the case that was found.

// Key slots of hash tables start as these; a build key equal to one of them cannot be stored and
// raises HQC_FLAG_RESERVED_KEY instead of being silently dropped.
#define HQC_EMPTY_I32 ((hqc_i32)(-2147483647 - 1))
#define HQC_EMPTY_I64 ((hqc_i64)(-9223372036854775807L - 1))
#define HQC_I64_MAX ((hqc_i64)9223372036854775807L)
#define HQC_I64_MIN HQC_EMPTY_I64

// Bits of a state object's flag word (element 0 of its *_flags buffer); the host requires 0.
#define HQC_FLAG_FULL 1u          // no free slot: the host rebuilds the table larger
#define HQC_FLAG_RESERVED_KEY 2u  // a key equal to the empty sentinel: unsupported, fails the query
#define HQC_FLAG_OUT_OF_RANGE 4u  // perfect hash / direct index outside [min, min + capacity)
#define HQC_FLAG_ARITH_OVERFLOW 8u  // a checked 64-bit + - * left int64: the host fails the query

HQC_FN void hqc_set_flag(HQC_GLOBAL hqc_u32* flags, hqc_u32 bit) {
  // An atomic OR is not in every OpenCL 1.2 core; max of distinct bits would lose bits, so CAS.
  hqc_u32 seen = *flags;
  while ((seen & bit) == 0u) {
    hqc_u32 prev = HQC_ATOMIC_CAS_U32(flags, seen, seen | bit);
    if (prev == seen) break;
    seen = prev;
  }
}

// Every bit of `mask` set in `*word` by one atomic OR (never a CAS loop: lanes setting other bits of
// one word would make each other retry). With `read_first` the word is read before: a word that
// has the bits already costs no atomic (a key-bits table's duplicate keys, device/hash_table.h).
HQC_FN void hqc_bits_set(HQC_GLOBAL hqc_u32* word, hqc_u32 mask, hqc_i32 read_first) {
  if (!read_first || (*word & mask) != mask) HQC_ATOMIC_OR_U32(word, mask);
}

HQC_FN hqc_u32 hqc_hash_u32(hqc_u32 h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

HQC_FN hqc_u64 hqc_hash_u64(hqc_u64 h) {
  h ^= h >> 33;
  h *= (hqc_u64)0xff51afd7ed558ccdUL;
  h ^= h >> 33;
  h *= (hqc_u64)0xc4ceb9fe1a85ec53UL;
  h ^= h >> 33;
  return h;
}

// Integer division that cannot trap: a zero divisor yields 0. Rows that are filtered out still
// evaluate expressions (branch-free pipelines), and on CPU devices (PoCL) x / 0 raises SIGFPE.
HQC_FN hqc_i32 hqc_div_i32(hqc_i32 a, hqc_i32 b) { return b != 0 ? a / b : 0; }
HQC_FN hqc_i64 hqc_div_i64(hqc_i64 a, hqc_i64 b) { return b != 0 ? a / b : 0; }

// ---- Checked 64-bit arithmetic and exact comparison across decimal scales ----
// The IR marks a + - * (or a raised decimal scale) whose operands' bounds do not prove it stays
// within int64 (ir/build_state.cpp, mark_overflow_checks); codegen emits these for it. An overflow
// in a live row (`live` nonzero; filtered-out rows still evaluate expressions) raises
// HQC_FLAG_ARITH_OVERFLOW in the pipeline's flag word and the host fails the query, so a wrapped
// value is computed but never reaches a result.
HQC_FN hqc_i64 hqc_add_chk_i64(hqc_i64 a, hqc_i64 b, hqc_i32 live, HQC_GLOBAL hqc_u32* flags) {
  const hqc_i64 r = (hqc_i64)((hqc_u64)a + (hqc_u64)b);
  if (live && ((a ^ r) & (b ^ r)) < 0) hqc_set_flag(flags, HQC_FLAG_ARITH_OVERFLOW);
  return r;
}
HQC_FN hqc_i64 hqc_sub_chk_i64(hqc_i64 a, hqc_i64 b, hqc_i32 live, HQC_GLOBAL hqc_u32* flags) {
  const hqc_i64 r = (hqc_i64)((hqc_u64)a - (hqc_u64)b);
  if (live && ((a ^ b) & (a ^ r)) < 0) hqc_set_flag(flags, HQC_FLAG_ARITH_OVERFLOW);
  return r;
}
// The product fits int64 exactly when its signed high word is the sign extension of its low word;
// the signed high word is the unsigned one less b where a < 0 and less a where b < 0.
HQC_FN hqc_i64 hqc_mul_chk_i64(hqc_i64 a, hqc_i64 b, hqc_i32 live, HQC_GLOBAL hqc_u32* flags) {
  const hqc_u64 lo = (hqc_u64)a * (hqc_u64)b;
  hqc_u64 hi = HQC_MUL_HI_U64(a, b);
  if (a < 0) hi -= (hqc_u64)b;
  if (b < 0) hi -= (hqc_u64)a;
  if (live && hi != ((hqc_i64)lo < 0 ? ~(hqc_u64)0 : (hqc_u64)0)) hqc_set_flag(flags, HQC_FLAG_ARITH_OVERFLOW);
  return (hqc_i64)lo;
}
// The sign (-1, 0, 1) of a * p - b for p > 0 (p = 10^d: a at a scale d digits below b's), exact
// and without forming a * p: with b = q * p + r, 0 <= r < p (floor division), a * p < b when
// a < q, a * p > b when a > q, and when a == q the difference is -r.
HQC_FN hqc_i32 hqc_cmp_scaled_i64(hqc_i64 a, hqc_i64 p, hqc_i64 b) {
  hqc_i64 q = b / p;
  hqc_i64 r = b - q * p;
  if (r < 0) {
    q -= 1;
    r += p;
  }
  if (a != q) return a < q ? -1 : 1;
  return r == 0 ? 0 : -1;
}

HQC_FN hqc_i64 hqc_min_i64(hqc_i64 a, hqc_i64 b) { return a < b ? a : b; }
HQC_FN hqc_i64 hqc_max_i64(hqc_i64 a, hqc_i64 b) { return a > b ? a : b; }

// ---- ROUND (frontend/expr.h ExprKind::Round): halves away from zero, as DuckDB ----
// v / d rounded to the nearest integer (d > 0): the quotient moves away from zero when the
// remainder is at least half of d (|r| >= d - |r| cannot overflow).
HQC_FN hqc_i64 hqc_round_div_i64(hqc_i64 v, hqc_i64 d) {
  const hqc_i64 q = v / d;
  const hqc_i64 r = v % d < 0 ? -(v % d) : v % d;
  return r >= d - r ? q + (v < 0 ? -1 : 1) : q;
}
// ROUND(v, n) of a double with m = 10^|n|: round(v * m) / m for n >= 0 (v itself where that is not
// finite), round(v / m) * m for n < 0 (0 where not finite). x - x is 0 exactly for finite x.
HQC_FN hqc_f64 hqc_round_f64_digits(hqc_f64 v, hqc_f64 m) {
  const hqc_f64 r = round(v * m) / m;
  return r - r == 0.0 ? r : v;
}
HQC_FN hqc_f64 hqc_round_f64_tens(hqc_f64 v, hqc_f64 m) {
  const hqc_f64 r = round(v / m) * m;
  return r - r == 0.0 ? r : 0.0;
}

// ---- 128-bit integers: exact sums of scaled decimals (OpenCL C has no __int128) ----
// Two's complement over two words; sums wrap modulo 2^128 like the hardware add does for 64 bits.
// In memory a 128-bit value is two consecutive int64 words: low, high.
typedef struct {
  hqc_u64 lo;
  hqc_i64 hi;
} hqc_i128;

HQC_FN hqc_i128 hqc_i128_zero(void) {
  hqc_i128 r;
  r.lo = 0;
  r.hi = 0;
  return r;
}
HQC_FN hqc_i128 hqc_i128_from_i64(hqc_i64 v) {
  hqc_i128 r;
  r.lo = (hqc_u64)v;
  r.hi = v < 0 ? -1 : 0;
  return r;
}
HQC_FN hqc_i128 hqc_i128_add(hqc_i128 a, hqc_i128 b) {
  hqc_i128 r;
  r.lo = a.lo + b.lo;
  r.hi = (hqc_i64)((hqc_u64)a.hi + (hqc_u64)b.hi + (r.lo < a.lo ? 1u : 0u));
  return r;
}
HQC_FN hqc_i128 hqc_i128_add_i64(hqc_i128 a, hqc_i64 v) { return hqc_i128_add(a, hqc_i128_from_i64(v)); }
// The value whose words are lo (low) and hi (high), as buffers and kernel arguments hold it.
HQC_FN hqc_i128 hqc_i128_from_words(hqc_i64 lo, hqc_i64 hi) {
  hqc_i128 r;
  r.lo = (hqc_u64)lo;
  r.hi = hi;
  return r;
}
HQC_FN hqc_i128 hqc_i128_neg(hqc_i128 a) {
  hqc_i128 r;
  r.lo = ~a.lo + 1u;
  r.hi = (hqc_i64)(~(hqc_u64)a.hi + (r.lo == 0u ? 1u : 0u));
  return r;
}
HQC_FN hqc_i128 hqc_i128_sub(hqc_i128 a, hqc_i128 b) { return hqc_i128_add(a, hqc_i128_neg(b)); }
// a * b modulo 2^128 (exact while the product fits, as for the 64-bit product of two int64).
// With b sign-extended to (bh, bl): low = lo(a.lo * bl), high = hi(a.lo * bl) + a.lo * bh + a.hi * bl.
HQC_FN hqc_i128 hqc_i128_mul_i64(hqc_i128 a, hqc_i64 b) {
  const hqc_u64 bl = (hqc_u64)b;
  hqc_i128 r;
  r.lo = a.lo * bl;
  hqc_u64 hi = HQC_MUL_HI_U64(a.lo, bl) + (hqc_u64)a.hi * bl;
  if (b < 0) hi -= a.lo;
  r.hi = (hqc_i64)hi;
  return r;
}
// -1, 0, 1 as a is less than, equal to, greater than b.
HQC_FN hqc_i32 hqc_i128_cmp(hqc_i128 a, hqc_i128 b) {
  if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
  if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
  return 0;
}
// The nearest double (one rounding for values within int64; the magnitude's two words otherwise,
// so a negative value loses nothing to cancellation).
HQC_FN hqc_f64 hqc_i128_to_f64(hqc_i128 a) {
  if (a.hi == ((hqc_i64)a.lo < 0 ? -1 : 0)) return (hqc_f64)(hqc_i64)a.lo;
  const hqc_i32 negative = a.hi < 0 ? 1 : 0;
  const hqc_i128 m = negative ? hqc_i128_neg(a) : a;
  const hqc_f64 magnitude = (hqc_f64)(hqc_u64)m.hi * 18446744073709551616.0 + (hqc_f64)m.lo;
  return negative ? -magnitude : magnitude;
}
// a / d rounded to the nearest integer, halves away from zero (0 < d < 2^62): the magnitude's high
// word divides directly, the remainder and the low word bit by bit (no 128-bit division exists).
HQC_FN hqc_i128 hqc_i128_round_div(hqc_i128 a, hqc_i64 d) {
  const hqc_i32 negative = a.hi < 0 ? 1 : 0;
  const hqc_i128 m = negative ? hqc_i128_neg(a) : a;
  const hqc_u64 ud = (hqc_u64)d;
  hqc_u64 high = (hqc_u64)m.hi / ud;
  hqc_u64 r = (hqc_u64)m.hi % ud;
  hqc_u64 low = 0;
  for (hqc_i32 bit = 63; bit >= 0; --bit) {
    r = (r << 1) | ((m.lo >> bit) & 1u);
    low <<= 1;
    if (r >= ud) {
      r -= ud;
      low |= 1u;
    }
  }
  if (r >= ud - r) {
    low += 1u;
    if (low == 0u) high += 1u;
  }
  hqc_i128 q;
  q.lo = low;
  q.hi = (hqc_i64)high;
  return negative ? hqc_i128_neg(q) : q;
}
HQC_FN hqc_i128 hqc_i128_min(hqc_i128 a, hqc_i128 b) { return hqc_i128_cmp(a, b) <= 0 ? a : b; }
HQC_FN hqc_i128 hqc_i128_max(hqc_i128 a, hqc_i128 b) { return hqc_i128_cmp(a, b) >= 0 ? a : b; }
// Identities of MIN and MAX: the largest and the smallest 128-bit values.
HQC_FN hqc_i128 hqc_i128_max_value(void) { return hqc_i128_from_words((hqc_i64)-1, HQC_I64_MAX); }
HQC_FN hqc_i128 hqc_i128_min_value(void) { return hqc_i128_from_words(0, HQC_I64_MIN); }
// Element `row` of a column of 128-bit values (two words per row: low, high).
HQC_FN void hqc_i128_store(HQC_GLOBAL hqc_i64* col, hqc_u64 row, hqc_i128 v) {
  col[2 * row] = (hqc_i64)v.lo;
  col[2 * row + 1] = v.hi;
}

// Atomic add into words p[0] (low), p[1] (high): the low word's atomic add reports the carry, which
// goes into the high word with the value's own high word. The two words are not updated together,
// but once every add has been applied they hold the exact sum (addition commutes).
HQC_FN void hqc_atomic_add_i128_g(HQC_GLOBAL hqc_i64* p, hqc_i128 v) {
  const hqc_u64 old = (hqc_u64)HQC_ATOMIC_ADD_I64(&p[0], (hqc_i64)v.lo);
  const hqc_i64 hi = (hqc_i64)((hqc_u64)v.hi + (old + v.lo < old ? 1u : 0u));
  if (hi != 0) HQC_ATOMIC_ADD_I64(&p[1], hi);
}
HQC_FN void hqc_atomic_add_i128_l(HQC_LOCAL hqc_i64* p, hqc_i128 v) {
  const hqc_u64 old = (hqc_u64)HQC_ATOMIC_ADD_I64(&p[0], (hqc_i64)v.lo);
  const hqc_i64 hi = (hqc_i64)((hqc_u64)v.hi + (old + v.lo < old ? 1u : 0u));
  if (hi != 0) HQC_ATOMIC_ADD_I64(&p[1], hi);
}

// ---- MIN / MAX of 128-bit values into global memory (no 128-bit atomic exists) ----
// Words p[0] (low), p[1] (high) hold the slot's value; *state is its 32-bit state word, zero-filled:
// HQC_I128_EMPTY (no value yet) -> HQC_I128_BUSY (one work-item owns the words) -> HQC_I128_FULL.
// Why a lock and not two 64-bit atomics: an atomic max on the high word followed by one on the low
// word is wrong — the low word's max runs over values whose high word has since been beaten (e.g.
// (1, 5) then (2, 0) leaves (2, 5)), and no single 64-bit word can tag "low word of which high
// word" without losing bits. So the update is a critical section per slot:
//   - acquire: a 32-bit CAS EMPTY -> BUSY, else FULL -> BUSY (available in CUDA and OpenCL 1.2
//     core); a work-item that gets neither retries. The CAS, the section and the release are all
//     inside one loop iteration of the winning work-item, so a warp whose lanes contend for the
//     same slot cannot livelock under SIMT divergence (the winner finishes before the loop branch
//     reconverges), and work-items of a CPU work-group (PoCL runs them one after another between
//     barriers) never spin on a lock held by an unfinished sibling.
//   - inside: the words are read with atomic adds of 0 and written with CAS from the value just
//     read (which only the lock holder writes, so the CAS succeeds): every access to them is an
//     atomic, coherent across CTAs without relying on L1 or OpenCL 1.2's weak ordering of plain
//     loads; HQC_FENCE_GLOBAL() after the acquire and before the release orders them with the state.
//   - release: CAS BUSY -> FULL. The state never returns to EMPTY, so the first holder writes its
//     value unconditionally and every later holder compares: the words end as the MIN / MAX of
//     every value offered (each offer happens entirely inside one critical section; sections are
//     totally ordered by the lock, and min/max is associative and commutative).
// Callers reduce first where they can (one offer per CTA: hqc_cta_{min,max}_i128_*_to), so the lock
// is taken once per CTA per slot; per-tuple callers (B2, C2) take it per qualifying tuple.
// The kernel boundary makes the words visible to later kernels and to the host.
#define HQC_I128_EMPTY 0u
#define HQC_I128_BUSY 1u
#define HQC_I128_FULL 2u

// dir = 1: keep the maximum; dir = -1: keep the minimum.
HQC_FN void hqc_atomic_extreme_i128_g(HQC_GLOBAL hqc_i64* p, HQC_GLOBAL hqc_u32* state, hqc_i128 v, hqc_i32 dir) {
  hqc_i32 done = 0;
  while (!done) {
    hqc_u32 got = HQC_ATOMIC_CAS_U32(state, HQC_I128_EMPTY, HQC_I128_BUSY);
    if (got == HQC_I128_FULL) got = HQC_ATOMIC_CAS_U32(state, HQC_I128_FULL, HQC_I128_BUSY);
    if (got != HQC_I128_BUSY) {  // acquired: got says whether the words hold a value
      HQC_FENCE_GLOBAL();
      const hqc_i64 lo = HQC_ATOMIC_ADD_I64(&p[0], 0);
      const hqc_i64 hi = HQC_ATOMIC_ADD_I64(&p[1], 0);
      if (got == HQC_I128_EMPTY || hqc_i128_cmp(v, hqc_i128_from_words(lo, hi)) * dir > 0) {
        HQC_ATOMIC_CAS_I64(&p[0], lo, (hqc_i64)v.lo);
        HQC_ATOMIC_CAS_I64(&p[1], hi, v.hi);
      }
      HQC_FENCE_GLOBAL();
      HQC_ATOMIC_CAS_U32(state, HQC_I128_BUSY, HQC_I128_FULL);
      done = 1;
    }
  }
}
HQC_FN void hqc_atomic_max_i128_g(HQC_GLOBAL hqc_i64* p, HQC_GLOBAL hqc_u32* state, hqc_i128 v) {
  hqc_atomic_extreme_i128_g(p, state, v, 1);
}
HQC_FN void hqc_atomic_min_i128_g(HQC_GLOBAL hqc_i64* p, HQC_GLOBAL hqc_u32* state, hqc_i128 v) {
  hqc_atomic_extreme_i128_g(p, state, v, -1);
}
