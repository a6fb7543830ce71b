// Dialect-neutral device library, layer 3: single-tuple aggregates (techniques B2, B3).
// Expects: base.h (and warp.cuh when HQC_HAS_SIMD); the calling conventions of scan.h (all
//   work-items call hqc_cta_*, power-of-two HQC_BDIM() <= 1024, a multiple of the warp for SIMD).
// Guarantees:
//   - hqc_cta_<op>_<type>_{we,simd}(x, scratch): the CTA-wide reduction, returned to every work-item.
//     Work-efficient = scratchpad (HQC_BDIM() words), 32 strided partial folds, no barrier in a loop; SIMD = warp shuffles, then one
//     scratchpad word per warp (HQC_REDUCE_SIMD_WORDS).
//   - hqc_cta_<op>_<type>_{we,simd}_to(out, x, scratch): B3 — the reduction, then ONE atomic per CTA
//     into *out (skipped when the CTA's value is the identity).
//   - hqc_tuple_<op>_<type>(out, flag, x): B2 — one atomic per qualifying tuple.
//   - Sums of int64 wrap like the hardware add; the planner bounds them (see DESIGN.md §3).
//   - All hqc_cta_* functions end with a barrier (scratch reusable).
//   - hqc_cta_sum_i128_{we,simd}_to / hqc_tuple_sum_i128: exact 128-bit sums (base.h's hqc_i128)
//     into two words (low, high). The CTA reduction splits each value into three int64 limbs
//     (low 32 bits, next 32 bits, high word) that cannot overflow over <= 1024 work-items.
//   - hqc_cta_{min,max}_i128_{we,simd}_to(out, state, x, scratch) / hqc_tuple_{min,max}_i128: exact
//     MIN/MAX of 128-bit values: the CTA's extreme lexicographically (the high words' extreme, then
//     the extreme low word among the work-items holding that high word, low words compared unsigned
//     through a flipped sign bit) by two int64 reductions, then one locked update per CTA
//     (base.h's hqc_atomic_{min,max}_i128_g; `state` is the slot's state word). The identities
//     (hqc_i128_max_value / min_value, +-2^127) are never a sum of fewer than 2^64 int64 terms.
// Ops: sum_i64, min_i64, max_i64, sum_f64 (and the 128-bit ones above). Identity elements: 0, HQC_I64_MAX, HQC_I64_MIN, 0.0.

#define HQC_REDUCE_SIMD_WORDS 33

HQC_FN hqc_i64 hqc_combine_sum_i64(hqc_i64 a, hqc_i64 b) { return a + b; }
HQC_FN hqc_f64 hqc_combine_sum_f64(hqc_f64 a, hqc_f64 b) { return a + b; }
HQC_FN hqc_i64 hqc_combine_min_i64(hqc_i64 a, hqc_i64 b) { return a < b ? a : b; }
HQC_FN hqc_i64 hqc_combine_max_i64(hqc_i64 a, hqc_i64 b) { return a > b ? a : b; }

// One definition per (op, type): only the combine and identity differ. No barrier sits in a loop:
// HQC_REDUCE_WE_LANES work-items each fold a strided column of the scratchpad (consecutive
// work-items read consecutive words), then every work-item folds those partials. Four straight-line
// barriers, whatever HQC_BDIM(): PoCL's work-group compiler replicates the code between barriers,
// and a kernel with several tree loops of barriers took exponential time to compile (two 128-bit
// sums: 24 s, three: minutes). A collective (HQC_CTA_FN) with loops kept rolled (HQC_NO_UNROLL): it
// runs once per CTA, and NVRTC inlining and unrolling it at each call spent ~60 ms of a query's compile
// on one 128-bit sum (three calls).
#define HQC_REDUCE_WE_LANES 32
#define HQC_DEFINE_CTA_REDUCE_WE(OP, T, IDENTITY)                                   \
  HQC_CTA_FN T hqc_cta_##OP##_we(T x, HQC_LOCAL hqc_u64* scratch) {                 \
    HQC_LOCAL T* s = (HQC_LOCAL T*)scratch;                                         \
    const hqc_i32 lanes = HQC_BDIM() < HQC_REDUCE_WE_LANES ? HQC_BDIM() : HQC_REDUCE_WE_LANES; \
    s[HQC_LID()] = x;                                                               \
    HQC_BARRIER();                                                                  \
    T partial = (IDENTITY);                                                         \
    if (HQC_LID() < lanes)                                                          \
      HQC_NO_UNROLL for (hqc_i32 i = HQC_LID(); i < HQC_BDIM(); i += lanes) partial = hqc_combine_##OP(partial, s[i]); \
    HQC_BARRIER();                                                                  \
    if (HQC_LID() < lanes) s[HQC_LID()] = partial;                                  \
    HQC_BARRIER();                                                                  \
    T result = s[0];                                                                \
    if (lanes == HQC_REDUCE_WE_LANES) {  /* a constant trip count: unrolled, loads in flight together */ \
      for (hqc_i32 i = 1; i < HQC_REDUCE_WE_LANES; ++i) result = hqc_combine_##OP(result, s[i]); \
    } else {                                                                        \
      HQC_NO_UNROLL for (hqc_i32 i = 1; i < lanes; ++i) result = hqc_combine_##OP(result, s[i]); \
    }                                                                               \
    HQC_BARRIER();                                                                  \
    return result;                                                                  \
  }

#define HQC_DEFINE_CTA_REDUCE_SIMD(OP, T, IDENTITY)                                 \
  HQC_FN T hqc_cta_##OP##_simd(T x, HQC_LOCAL hqc_u64* scratch) {                   \
    HQC_LOCAL T* s = (HQC_LOCAL T*)scratch;                                         \
    const hqc_i32 warps = HQC_BDIM() / HQC_SIMD_WIDTH;                               \
    T w = hqc_warp_##OP(x);                                                         \
    if (hqc_lane() == 0) s[hqc_warp()] = w;                                         \
    HQC_BARRIER();                                                                  \
    if (hqc_warp() == 0) {                                                          \
      T t = hqc_warp_##OP(hqc_lane() < warps ? s[hqc_lane()] : (IDENTITY));         \
      if (hqc_lane() == 0) s[HQC_SIMD_WIDTH] = t;                                   \
    }                                                                               \
    HQC_BARRIER();                                                                  \
    T result = s[HQC_SIMD_WIDTH];                                                   \
    HQC_BARRIER();                                                                  \
    return result;                                                                  \
  }

HQC_DEFINE_CTA_REDUCE_WE(sum_i64, hqc_i64, 0)
HQC_DEFINE_CTA_REDUCE_WE(min_i64, hqc_i64, HQC_I64_MAX)
HQC_DEFINE_CTA_REDUCE_WE(max_i64, hqc_i64, HQC_I64_MIN)
HQC_DEFINE_CTA_REDUCE_WE(sum_f64, hqc_f64, 0.0)
#if HQC_HAS_SIMD
HQC_DEFINE_CTA_REDUCE_SIMD(sum_i64, hqc_i64, 0)
HQC_DEFINE_CTA_REDUCE_SIMD(min_i64, hqc_i64, HQC_I64_MAX)
HQC_DEFINE_CTA_REDUCE_SIMD(max_i64, hqc_i64, HQC_I64_MIN)
HQC_DEFINE_CTA_REDUCE_SIMD(sum_f64, hqc_f64, 0.0)
#endif

// Global propagation of a CTA's value, by work-item 0 (B3), and per tuple (B2).
HQC_FN void hqc_propagate_sum_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 v) { if (v != 0) HQC_ATOMIC_ADD_I64(out, v); }
HQC_FN void hqc_propagate_min_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 v) { if (v != HQC_I64_MAX) HQC_ATOMIC_MIN_I64_G(out, v); }
HQC_FN void hqc_propagate_max_i64(HQC_GLOBAL hqc_i64* out, hqc_i64 v) { if (v != HQC_I64_MIN) HQC_ATOMIC_MAX_I64_G(out, v); }
HQC_FN void hqc_propagate_sum_f64(HQC_GLOBAL hqc_f64* out, hqc_f64 v) { if (v != 0.0) HQC_ATOMIC_ADD_F64_G(out, v); }

#define HQC_DEFINE_CTA_REDUCE_TO(OP, T, MECH)                                         \
  HQC_FN void hqc_cta_##OP##_##MECH##_to(HQC_GLOBAL T* out, T x, HQC_LOCAL hqc_u64* scratch) { \
    T v = hqc_cta_##OP##_##MECH(x, scratch);                                            \
    if (HQC_LID() == 0) hqc_propagate_##OP(out, v);                                     \
  }

HQC_DEFINE_CTA_REDUCE_TO(sum_i64, hqc_i64, we)
HQC_DEFINE_CTA_REDUCE_TO(min_i64, hqc_i64, we)
HQC_DEFINE_CTA_REDUCE_TO(max_i64, hqc_i64, we)
HQC_DEFINE_CTA_REDUCE_TO(sum_f64, hqc_f64, we)
#if HQC_HAS_SIMD
HQC_DEFINE_CTA_REDUCE_TO(sum_i64, hqc_i64, simd)
HQC_DEFINE_CTA_REDUCE_TO(min_i64, hqc_i64, simd)
HQC_DEFINE_CTA_REDUCE_TO(max_i64, hqc_i64, simd)
HQC_DEFINE_CTA_REDUCE_TO(sum_f64, hqc_f64, simd)
#endif

HQC_FN void hqc_tuple_sum_i64(HQC_GLOBAL hqc_i64* out, hqc_i32 flag, hqc_i64 x) { if (flag) hqc_propagate_sum_i64(out, x); }
HQC_FN void hqc_tuple_min_i64(HQC_GLOBAL hqc_i64* out, hqc_i32 flag, hqc_i64 x) { if (flag) HQC_ATOMIC_MIN_I64_G(out, x); }
HQC_FN void hqc_tuple_max_i64(HQC_GLOBAL hqc_i64* out, hqc_i32 flag, hqc_i64 x) { if (flag) HQC_ATOMIC_MAX_I64_G(out, x); }
HQC_FN void hqc_tuple_sum_f64(HQC_GLOBAL hqc_f64* out, hqc_i32 flag, hqc_f64 x) { if (flag) hqc_propagate_sum_f64(out, x); }

// 128-bit sums. Limbs a, b < 2^32 each; their CTA sums stay below 2^42.
#define HQC_DEFINE_CTA_SUM_I128_TO(MECH)                                                       \
  HQC_FN void hqc_cta_sum_i128_##MECH##_to(HQC_GLOBAL hqc_i64* out, hqc_i128 x, HQC_LOCAL hqc_u64* scratch) { \
    const hqc_i64 a = hqc_cta_sum_i64_##MECH((hqc_i64)(x.lo & 0xffffffffUL), scratch);        \
    const hqc_i64 b = hqc_cta_sum_i64_##MECH((hqc_i64)(x.lo >> 32), scratch);                  \
    const hqc_i64 c = hqc_cta_sum_i64_##MECH(x.hi, scratch);                                   \
    if (HQC_LID() == 0) {                                                                      \
      hqc_i128 t;                                                                              \
      t.lo = (hqc_u64)a;                                                                       \
      t.hi = c;                                                                                \
      hqc_i128 u;                                                                              \
      u.lo = (hqc_u64)b << 32;                                                                 \
      u.hi = (hqc_i64)((hqc_u64)b >> 32);                                                      \
      t = hqc_i128_add(t, u);                                                                  \
      if (t.lo != 0u || t.hi != 0) hqc_atomic_add_i128_g(out, t);                              \
    }                                                                                          \
  }

HQC_DEFINE_CTA_SUM_I128_TO(we)
#if HQC_HAS_SIMD
HQC_DEFINE_CTA_SUM_I128_TO(simd)
#endif

HQC_FN void hqc_tuple_sum_i128(HQC_GLOBAL hqc_i64* out, hqc_i32 flag, hqc_i64 x) {
  if (flag && x != 0) hqc_atomic_add_i128_g(out, hqc_i128_from_i64(x));
}

// 128-bit MIN / MAX: lexicographic over (high signed, low unsigned); the low words' order is the
// signed order of low ^ 2^63.
#define HQC_I128_LOW_FLIP ((hqc_u64)0x8000000000000000UL)
#define HQC_DEFINE_CTA_EXTREME_I128_TO(OP, MECH, IDENTITY_I64)                                   \
  HQC_FN hqc_i128 hqc_cta_##OP##_i128_##MECH(hqc_i128 x, HQC_LOCAL hqc_u64* scratch) {           \
    const hqc_i64 hi = hqc_cta_##OP##_i64_##MECH(x.hi, scratch);                                 \
    const hqc_i64 lo = hqc_cta_##OP##_i64_##MECH(x.hi == hi ? (hqc_i64)(x.lo ^ HQC_I128_LOW_FLIP) \
                                                            : (IDENTITY_I64), scratch);          \
    return hqc_i128_from_words((hqc_i64)((hqc_u64)lo ^ HQC_I128_LOW_FLIP), hi);                  \
  }                                                                                              \
  HQC_FN void hqc_cta_##OP##_i128_##MECH##_to(HQC_GLOBAL hqc_i64* out, HQC_GLOBAL hqc_u32* state, hqc_i128 x, \
                                              HQC_LOCAL hqc_u64* scratch) {                      \
    const hqc_i128 v = hqc_cta_##OP##_i128_##MECH(x, scratch);                                   \
    if (HQC_LID() == 0 && hqc_i128_cmp(v, hqc_i128_##OP##_identity()) != 0) hqc_atomic_##OP##_i128_g(out, state, v); \
  }

HQC_FN hqc_i128 hqc_i128_max_identity(void) { return hqc_i128_min_value(); }
HQC_FN hqc_i128 hqc_i128_min_identity(void) { return hqc_i128_max_value(); }
HQC_DEFINE_CTA_EXTREME_I128_TO(max, we, HQC_I64_MIN)
HQC_DEFINE_CTA_EXTREME_I128_TO(min, we, HQC_I64_MAX)
#if HQC_HAS_SIMD
HQC_DEFINE_CTA_EXTREME_I128_TO(max, simd, HQC_I64_MIN)
HQC_DEFINE_CTA_EXTREME_I128_TO(min, simd, HQC_I64_MAX)
#endif

HQC_FN void hqc_tuple_max_i128(HQC_GLOBAL hqc_i64* out, HQC_GLOBAL hqc_u32* state, hqc_i32 flag, hqc_i128 x) {
  if (flag) hqc_atomic_max_i128_g(out, state, x);
}
HQC_FN void hqc_tuple_min_i128(HQC_GLOBAL hqc_i64* out, HQC_GLOBAL hqc_u32* state, hqc_i32 flag, hqc_i128 x) {
  if (flag) hqc_atomic_min_i128_g(out, state, x);
}
