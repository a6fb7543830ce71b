// The ONE place where CUDA and OpenCL differ. Everything dialect-specific that generated source or
// the device library needs is a field of DialectTable; dialect_prelude() turns the table into a
// block of #defines/typedefs, and every template and every generated kernel is written against
// those macros only (HQC_KERNEL, HQC_GLOBAL, HQC_BARRIER(), HQC_ATOMIC_ADD_U64(p, v), ...).
// So the generated kernel body is the same text for both dialects; only the prelude differs.
//
// Contract:
//   - dialect_table(d) is a static, complete table: no field is left for the caller to guess.
//   - dialect_prelude(d) is self-contained source (no #include of toolkit headers): NVRTC compiles it
//     without -I, OpenCL 1.2 compilers with cl_khr_int64_base_atomics and cl_khr_fp64 accept it.
//   - device_library_source(d) = prelude + the dialect-specific helper files the table asks for +
//     templates::library_files() in order; it is what a generated program starts with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hqc::codegen {

enum class Dialect { Cuda, OpenCL };

struct DialectTable {
  Dialect dialect;
  const char* name;               // "cuda" | "opencl" (as the CLI and manifests spell it)
  const char* extension_pragmas;  // lines placed before anything else
  // Qualifiers
  const char* kernel_qualifier;   // entry points: unmangled, launchable
  const char* device_function;    // library functions
  // A CTA-wide collective (every work-item calls it, once per CTA, never per tuple or per tile):
  // compiled once and called where the dialect's compiler would otherwise inline its loops at
  // every call site (NVRTC: one 128-bit CTA sum inlined three times cost ~60 ms of compile).
  const char* collective_function;
  const char* no_unroll;          // placed before a loop that is not worth unrolling, or ""
  const char* global_pointer;     // address space of buffers
  const char* local_pointer;      // address space of scratchpad pointers
  const char* local_declaration;  // storage class of a scratchpad array declared in a kernel
  const char* restrict_qualifier;
  // Work-item geometry and synchronisation (1-D)
  const char* local_id;
  const char* block_id;
  const char* block_dim;
  const char* grid_dim;
  const char* barrier;            // CTA-wide barrier that also orders scratchpad accesses
  const char* global_fence;       // orders this work-item's global-memory writes before its later ones, device-wide
  const char* local_fence;        // the same for scratchpad writes, CTA-wide (no barrier)
  // Scalar type names
  const char* i32;
  const char* u32;
  const char* i64;
  const char* u64;
  const char* f64;
  const char* u8;                 // bytes of a string heap
  const char* i8;                 // a narrowed column's values (ir pass narrow_columns): signed 8 bits
  const char* i16;                // and 16 bits
  const char* const_string;       // pointer type of a string literal passed to a function
  // Atomics as macro bodies over (p, v) or (p, c, v); overloaded for global and scratchpad
  // pointers where the dialect overloads them (both do for 32/64-bit add and CAS).
  const char* atomic_add_i32;
  const char* atomic_add_u32;
  const char* atomic_add_i64;
  const char* atomic_add_u64;
  const char* atomic_cas_i32;
  const char* atomic_cas_u32;
  const char* atomic_cas_i64;
  const char* atomic_cas_u64;
  const char* atomic_xchg_i64;    // returns the value it replaced
  const char* atomic_min_i32;
  const char* atomic_max_i32;
  const char* atomic_or_u32;      // global pointers (key bits, device/hash_table.h)
  // nullptr: no native instruction; device/atomics_cas.cl provides CAS loops per address space.
  const char* atomic_min_i64;
  const char* atomic_max_i64;
  const char* atomic_add_f64;
  // Bit casts between double and int64 (for CAS loops on doubles)
  const char* f64_as_i64;
  const char* i64_as_f64;
  // High 64 bits of the 128-bit product of two unsigned 64-bit values, macro body over (a, b)
  // (hqc_i128 multiplication in device/base.h).
  const char* mul_hi_u64;
  // SIMD (warp) level: shuffles and ballot without barriers. nullptr when unavailable.
  bool has_simd;
  int simd_width;                 // 0 when !has_simd
  const char* shuffle_up;         // macro body over (v, d)
  const char* shuffle_down;
  const char* shuffle_idx;        // macro body over (v, l): value of lane l
  const char* ballot;             // macro body over (pred): lane mask
  const char* popcount;           // macro body over (x)
  const char* barrier_count;      // macro body over (pred): a barrier returning how many work-items had pred
  // Statement that brings a warp's lanes back together where the code knows all of them arrive (the
  // top of each tile: device/tile.h); "" where lanes cannot drift apart (OpenCL 1.2 has no
  // independent lanes). CUDA: __syncwarp(). Without it ptxas may leave a warp split by a probe's
  // divergent loop for the rest of the tile loop (TPC-H q7 at 2.4x: bench/results/2026-11-28-h200-compaction-module).
  const char* warp_reconverge;
  // Dynamic scratchpad: how a kernel receives its per-CTA scratch of 8-byte words.
  const char* scratch_params;     // appended to a kernel's parameter list (leading comma) or ""
  const char* scratch_begin;      // first statement of a kernel body that uses scratch, or ""
  // Dialect-specific template files appended after the prelude, before the neutral library.
  std::vector<std::string> helper_files;
  // Dialect-specific template files appended after the neutral library (they build on it).
  std::vector<std::string> tail_files;
};

const DialectTable& dialect_table(Dialect dialect);

// "cuda" | "opencl"; anything else throws hqc::Error(Usage) listing both.
Dialect parse_dialect(std::string_view text);
const char* dialect_name(Dialect dialect);

// The macro block generated from the table (see file contract).
std::string dialect_prelude(Dialect dialect);

// Prelude + helper files + the neutral device library, each file under a "// ==== file ====" banner.
std::string device_library_source(Dialect dialect);

// Compiler options a program from device_library_source() expects ("-cl-std=CL1.2" for OpenCL,
// "--std=c++17" for NVRTC; the architecture is the runtime's choice).
std::vector<std::string> compile_options(Dialect dialect);

}  // namespace hqc::codegen
