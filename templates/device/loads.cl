// OpenCL only (joined by codegen/dialect after the prelude): a global load only where a predicate
// is set — what device/loads.cuh does with a predicated PTX instruction, here as C for the
// driver's compiler to predicate or branch as it sees fit.
// Expects: the dialect prelude. Guarantees: hqc_load_if_<t>(p, pred) is *p (widened to hqc_i32 for
//   8- and 16-bit values) where pred is non-zero, 0 without touching memory where it is zero.

hqc_i32 hqc_load_if_i8(__global const hqc_i8* p, hqc_i32 pred) { return pred ? *p : 0; }
hqc_i32 hqc_load_if_i16(__global const hqc_i16* p, hqc_i32 pred) { return pred ? *p : 0; }
hqc_i32 hqc_load_if_i32(__global const hqc_i32* p, hqc_i32 pred) { return pred ? *p : 0; }
hqc_i64 hqc_load_if_i64(__global const hqc_i64* p, hqc_i32 pred) { return pred ? *p : 0; }
hqc_u64 hqc_load_if_u64(__global const hqc_u64* p, hqc_i32 pred) { return pred ? *p : 0u; }
hqc_f64 hqc_load_if_f64(__global const hqc_f64* p, hqc_i32 pred) { return pred ? *p : 0.0; }
