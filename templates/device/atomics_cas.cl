// OpenCL only (joined by codegen/dialect when the table has no native instruction).
// Expects: the dialect prelude (hqc_i64, hqc_f64, HQC_F64_AS_I64, HQC_I64_AS_F64; 64-bit atom_cmpxchg
//   from cl_khr_int64_base_atomics).
// Guarantees: HQC_ATOMIC_{MIN,MAX}_I64_{G,L}(p, v) and HQC_ATOMIC_ADD_F64_{G,L}(p, v) as
//   compare-and-swap loops, one function per address space because OpenCL C 1.2 pointers carry
//   their address space in the type. Each returns the value before the update, like the natives.

hqc_i64 hqc_atomic_min_i64_g(__global hqc_i64* p, hqc_i64 v) {
  hqc_i64 seen = *p;
  // Stops as soon as the stored value is already <= v: nothing to do, no CAS issued.
  while (v < seen) {
    hqc_i64 prev = atom_cmpxchg(p, seen, v);
    if (prev == seen) break;
    seen = prev;
  }
  return seen;
}

hqc_i64 hqc_atomic_min_i64_l(__local hqc_i64* p, hqc_i64 v) {
  hqc_i64 seen = *p;
  while (v < seen) {
    hqc_i64 prev = atom_cmpxchg(p, seen, v);
    if (prev == seen) break;
    seen = prev;
  }
  return seen;
}

hqc_i64 hqc_atomic_max_i64_g(__global hqc_i64* p, hqc_i64 v) {
  hqc_i64 seen = *p;
  while (v > seen) {
    hqc_i64 prev = atom_cmpxchg(p, seen, v);
    if (prev == seen) break;
    seen = prev;
  }
  return seen;
}

hqc_i64 hqc_atomic_max_i64_l(__local hqc_i64* p, hqc_i64 v) {
  hqc_i64 seen = *p;
  while (v > seen) {
    hqc_i64 prev = atom_cmpxchg(p, seen, v);
    if (prev == seen) break;
    seen = prev;
  }
  return seen;
}

hqc_f64 hqc_atomic_add_f64_g(__global hqc_f64* p, hqc_f64 v) {
  __global hqc_i64* bits = (__global hqc_i64*)p;
  hqc_i64 seen = *bits;
  while (1) {
    hqc_i64 next = HQC_F64_AS_I64(HQC_I64_AS_F64(seen) + v);
    hqc_i64 prev = atom_cmpxchg(bits, seen, next);
    if (prev == seen) break;
    seen = prev;
  }
  return HQC_I64_AS_F64(seen);
}

hqc_f64 hqc_atomic_add_f64_l(__local hqc_f64* p, hqc_f64 v) {
  __local hqc_i64* bits = (__local hqc_i64*)p;
  hqc_i64 seen = *bits;
  while (1) {
    hqc_i64 next = HQC_F64_AS_I64(HQC_I64_AS_F64(seen) + v);
    hqc_i64 prev = atom_cmpxchg(bits, seen, next);
    if (prev == seen) break;
    seen = prev;
  }
  return HQC_I64_AS_F64(seen);
}

#define HQC_ATOMIC_MIN_I64_G(p, v) hqc_atomic_min_i64_g((p), (v))
#define HQC_ATOMIC_MIN_I64_L(p, v) hqc_atomic_min_i64_l((p), (v))
#define HQC_ATOMIC_MAX_I64_G(p, v) hqc_atomic_max_i64_g((p), (v))
#define HQC_ATOMIC_MAX_I64_L(p, v) hqc_atomic_max_i64_l((p), (v))
#define HQC_ATOMIC_ADD_F64_G(p, v) hqc_atomic_add_f64_g((p), (v))
#define HQC_ATOMIC_ADD_F64_L(p, v) hqc_atomic_add_f64_l((p), (v))
