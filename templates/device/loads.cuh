// CUDA only (joined by codegen/dialect after the prelude): a global load that only a set predicate
// issues, as one predicated PTX instruction.
// Expects: the dialect prelude (HQC_FN, HQC_GLOBAL, the hqc_* integer and double types).
// Guarantees: hqc_load_if_<t>(p, pred) is *p (widened to hqc_i32 for 8- and 16-bit values) where
//   pred is non-zero and 0 without touching memory where it is zero.
//
// Why not `pred ? *p : 0`: NVVM cannot speculate a load, so that is a branch around it, and a
// branch ends the basic block ptxas schedules in. With the branches gone a tile's loads and the next
// tile's (several tiles per iteration, device/tile.h) are one block, and ptxas issues the next
// tile's loads before this tile's values are used — several rows' chains of dependent loads (a
// filter's column, then the columns of its qualifying rows) in flight at once.
// The loads are plain ld.global (not .nc): a kernel may read a buffer that another of its steps
// writes. Not volatile: a load of data the kernel does not write may be moved or merged freely.

// ld: the loaded type (8- and 16-bit values sign-extended into a 32-bit register); mov: the
// register's type for the zero.
#define HQC_LOAD_IF_PTX(name, type, ld, mov, constraint, zero)                                        \
  HQC_FN type hqc_load_if_##name(HQC_GLOBAL const void* p, hqc_i32 pred) {                          \
    type v;                                                                                           \
    asm("{\n\t.reg .pred q;\n\tsetp.ne.s32 q, %2, 0;\n\tmov." mov " %0, " zero ";\n\t@q ld.global." ld \
        " %0, [%1];\n\t}"                                                                             \
        : "=" constraint(v)                                                                           \
        : "l"(p), "r"(pred));                                                                         \
    return v;                                                                                         \
  }
HQC_LOAD_IF_PTX(i8, hqc_i32, "s8", "s32", "r", "0")
HQC_LOAD_IF_PTX(i16, hqc_i32, "s16", "s32", "r", "0")
HQC_LOAD_IF_PTX(i32, hqc_i32, "s32", "s32", "r", "0")
HQC_LOAD_IF_PTX(i64, hqc_i64, "s64", "s64", "l", "0")
HQC_LOAD_IF_PTX(u64, hqc_u64, "u64", "u64", "l", "0")
HQC_LOAD_IF_PTX(f64, hqc_f64, "f64", "f64", "d", "0d0000000000000000")
#undef HQC_LOAD_IF_PTX
