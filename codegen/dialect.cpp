// The dialect table and the prelude generated from it. See dialect.h for the contract.
#include "codegen/dialect.h"

#include "storage/error.h"
#include "templates/template_library.h"

namespace hqc::codegen {
namespace {

const DialectTable kCuda = {
    Dialect::Cuda,
    "cuda",
    "",
    "extern \"C\" __global__",
    "__device__ __forceinline__",
    "static __device__ __noinline__",  // static: each relocatable part (nvrtc_compile_module) keeps its own copy
    "_Pragma(\"unroll 1\")",
    "",
    "",
    "__shared__",
    "__restrict__",
    "threadIdx.x",
    "blockIdx.x",
    "blockDim.x",
    "gridDim.x",
    "__syncthreads()",
    "__threadfence()",
    "__threadfence_block()",
    "int",
    "unsigned int",
    "long long",
    "unsigned long long",
    "double",
    "unsigned char",
    "signed char",
    "short",
    "const char*",
    "atomicAdd((p), (v))",
    "atomicAdd((p), (v))",
    // CUDA has no signed 64-bit atomicAdd/atomicCAS; two's complement makes the unsigned one exact.
    "((hqc_i64)atomicAdd((hqc_u64*)(p), (hqc_u64)(v)))",
    "atomicAdd((p), (v))",
    "atomicCAS((p), (c), (v))",
    "atomicCAS((p), (c), (v))",
    "((hqc_i64)atomicCAS((hqc_u64*)(p), (hqc_u64)(c), (hqc_u64)(v)))",
    "atomicCAS((p), (c), (v))",
    "((hqc_i64)atomicExch((hqc_u64*)(p), (hqc_u64)(v)))",
    "atomicMin((p), (v))",
    "atomicMax((p), (v))",
    "atomicOr((p), (v))",
    "atomicMin((p), (v))",
    "atomicMax((p), (v))",
    "atomicAdd((p), (v))",
    "__double_as_longlong(x)",
    "__longlong_as_double(x)",
    "__umul64hi((hqc_u64)(a), (hqc_u64)(b))",
    true,
    32,
    "__shfl_up_sync(0xffffffffu, (v), (d))",
    "__shfl_down_sync(0xffffffffu, (v), (d))",
    "__shfl_sync(0xffffffffu, (v), (l))",
    "__ballot_sync(0xffffffffu, (pred))",
    "__popc(x)",
    "__syncthreads_count(pred)",
    "__syncwarp()",
    "",
    // 16-byte aligned as a whole-program compile aligns it, also when compiled as relocatable code
    // (nvrtc_compile_module), which would align it to 8 and lose 16-byte scratchpad accesses.
    "extern __shared__ __attribute__((aligned(16))) hqc_u64 hqc_scratch[];",
    {"device/loads.cuh", "device/warp.cuh"},
    {"device/warp_groups.cuh"},
};

const DialectTable kOpenCL = {
    Dialect::OpenCL,
    "opencl",
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
    "__kernel",
    "",
    // PoCL's work-group compiler needs a barrier's function inlined into the kernel; the same
    // text as HQC_FN keeps every OpenCL driver's choice its own.
    "",
    "",
    "__global",
    "__local",
    "__local",
    "restrict",
    "get_local_id(0)",
    "get_group_id(0)",
    "get_local_size(0)",
    "get_num_groups(0)",
    "barrier(CLK_LOCAL_MEM_FENCE)",
    "mem_fence(CLK_GLOBAL_MEM_FENCE)",
    "mem_fence(CLK_LOCAL_MEM_FENCE)",
    "int",
    "uint",
    "long",
    "ulong",
    "double",
    "uchar",
    "char",  // OpenCL C's char is signed
    "short",
    // OpenCL C places string literals in the constant address space.
    "__constant char*",
    "atomic_add((p), (v))",
    "atomic_add((p), (v))",
    "atom_add((p), (v))",
    "atom_add((p), (v))",
    "atomic_cmpxchg((p), (c), (v))",
    "atomic_cmpxchg((p), (c), (v))",
    "atom_cmpxchg((p), (c), (v))",
    "atom_cmpxchg((p), (c), (v))",
    "atom_xchg((p), (v))",
    "atomic_min((p), (v))",
    "atomic_max((p), (v))",
    "atomic_or((p), (v))",  // 32-bit: OpenCL 1.1 core
    // 64-bit min/max need cl_khr_int64_extended_atomics, which not every OpenCL 1.2 driver has;
    // CAS loops over the base atomics work everywhere (device/atomics_cas.cl).
    nullptr,
    nullptr,
    nullptr,
    "as_long(x)",
    "as_double(x)",
    "mul_hi((hqc_u64)(a), (hqc_u64)(b))",
    false,  // OpenCL 1.2 has no sub-group functions; local resolution uses the work-efficient scan
    0,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    "",  // no independent lanes to reconverge
    ", __local hqc_u64* hqc_scratch",
    "",
    {"device/loads.cl", "device/atomics_cas.cl"},
    {},
};

void define(std::string& out, const char* macro, const char* body) {
  out += "#define ";
  out += macro;
  if (*body != '\0') {
    out += ' ';
    out += body;
  }
  out += '\n';
}

}  // namespace

const DialectTable& dialect_table(Dialect dialect) {
  return dialect == Dialect::Cuda ? kCuda : kOpenCL;
}

Dialect parse_dialect(std::string_view text) {
  if (text == "cuda") return Dialect::Cuda;
  if (text == "opencl") return Dialect::OpenCL;
  throw Error(ErrorKind::Usage, "unknown dialect \"" + std::string(text) + "\": expected \"cuda\" or \"opencl\"");
}

const char* dialect_name(Dialect dialect) { return dialect_table(dialect).name; }

std::string dialect_prelude(Dialect dialect) {
  const DialectTable& t = dialect_table(dialect);
  std::string out;
  out += "// ---- horseqc dialect prelude: ";
  out += t.name;
  out += " (generated from codegen/dialect.cpp) ----\n";
  out += t.extension_pragmas;
  out += "typedef " + std::string(t.i32) + " hqc_i32;\n";
  out += "typedef " + std::string(t.u32) + " hqc_u32;\n";
  out += "typedef " + std::string(t.i64) + " hqc_i64;\n";
  out += "typedef " + std::string(t.u64) + " hqc_u64;\n";
  out += "typedef " + std::string(t.f64) + " hqc_f64;\n";
  out += "typedef " + std::string(t.u8) + " hqc_u8;\n";
  out += "typedef " + std::string(t.i8) + " hqc_i8;\n";
  out += "typedef " + std::string(t.i16) + " hqc_i16;\n";
  define(out, "HQC_KERNEL", t.kernel_qualifier);
  define(out, "HQC_FN", t.device_function);
  define(out, "HQC_CTA_FN", t.collective_function);
  define(out, "HQC_NO_UNROLL", t.no_unroll);
  define(out, "HQC_GLOBAL", t.global_pointer);
  define(out, "HQC_LOCAL", t.local_pointer);
  define(out, "HQC_LOCAL_DECL", t.local_declaration);
  define(out, "HQC_RESTRICT", t.restrict_qualifier);
  define(out, "HQC_CONST_STR", t.const_string);
  define(out, "HQC_LID()", (std::string("((hqc_i32)") + t.local_id + ")").c_str());
  define(out, "HQC_BID()", (std::string("((hqc_i64)") + t.block_id + ")").c_str());
  define(out, "HQC_BDIM()", (std::string("((hqc_i32)") + t.block_dim + ")").c_str());
  define(out, "HQC_GDIM()", (std::string("((hqc_i64)") + t.grid_dim + ")").c_str());
  define(out, "HQC_BARRIER()", t.barrier);
  define(out, "HQC_FENCE_GLOBAL()", t.global_fence);
  define(out, "HQC_FENCE_LOCAL()", t.local_fence);
  define(out, "HQC_ATOMIC_ADD_I32(p, v)", t.atomic_add_i32);
  define(out, "HQC_ATOMIC_ADD_U32(p, v)", t.atomic_add_u32);
  define(out, "HQC_ATOMIC_ADD_I64(p, v)", t.atomic_add_i64);
  define(out, "HQC_ATOMIC_ADD_U64(p, v)", t.atomic_add_u64);
  define(out, "HQC_ATOMIC_CAS_I32(p, c, v)", t.atomic_cas_i32);
  define(out, "HQC_ATOMIC_CAS_U32(p, c, v)", t.atomic_cas_u32);
  define(out, "HQC_ATOMIC_CAS_I64(p, c, v)", t.atomic_cas_i64);
  define(out, "HQC_ATOMIC_CAS_U64(p, c, v)", t.atomic_cas_u64);
  define(out, "HQC_ATOMIC_XCHG_I64(p, v)", t.atomic_xchg_i64);
  define(out, "HQC_ATOMIC_MIN_I32(p, v)", t.atomic_min_i32);
  define(out, "HQC_ATOMIC_MAX_I32(p, v)", t.atomic_max_i32);
  define(out, "HQC_ATOMIC_OR_U32(p, v)", t.atomic_or_u32);
  // Global (_G) and scratchpad (_L) spellings: identical where the instruction is native and
  // overloaded, separate CAS-loop functions where it is not (OpenCL address spaces).
  const struct { const char* g; const char* l; const char* body; } natives[] = {
      {"HQC_ATOMIC_MIN_I64_G(p, v)", "HQC_ATOMIC_MIN_I64_L(p, v)", t.atomic_min_i64},
      {"HQC_ATOMIC_MAX_I64_G(p, v)", "HQC_ATOMIC_MAX_I64_L(p, v)", t.atomic_max_i64},
      {"HQC_ATOMIC_ADD_F64_G(p, v)", "HQC_ATOMIC_ADD_F64_L(p, v)", t.atomic_add_f64},
  };
  for (const auto& n : natives) {
    if (n.body == nullptr) continue;
    define(out, n.g, n.body);
    define(out, n.l, n.body);
  }
  define(out, "HQC_F64_AS_I64(x)", t.f64_as_i64);
  define(out, "HQC_I64_AS_F64(x)", t.i64_as_f64);
  define(out, "HQC_MUL_HI_U64(a, b)", t.mul_hi_u64);
  define(out, "HQC_HAS_SIMD", t.has_simd ? "1" : "0");
  define(out, "HQC_SIMD_WIDTH", std::to_string(t.simd_width).c_str());
  if (t.has_simd) {
    define(out, "HQC_SHFL_UP(v, d)", t.shuffle_up);
    define(out, "HQC_SHFL_DOWN(v, d)", t.shuffle_down);
    define(out, "HQC_SHFL_IDX(v, l)", t.shuffle_idx);
    define(out, "HQC_BALLOT(pred)", t.ballot);
    define(out, "HQC_POPC(x)", t.popcount);
    define(out, "HQC_BARRIER_COUNT(pred)", t.barrier_count);
  }
  define(out, "HQC_WARP_RECONVERGE()", t.warp_reconverge);
  define(out, "HQC_SCRATCH_PARAMS", t.scratch_params);
  define(out, "HQC_SCRATCH_BEGIN", t.scratch_begin);
  return out;
}

std::string device_library_source(Dialect dialect) {
  std::string out = dialect_prelude(dialect);
  auto append = [&out](const std::string& file) {
    out += "\n// ==== templates/" + file + " ====\n";
    out += templates::template_source(file);
  };
  for (const std::string& f : dialect_table(dialect).helper_files) append(f);
  for (const std::string& f : templates::library_files()) append(f);
  for (const std::string& f : dialect_table(dialect).tail_files) append(f);
  return out;
}

std::vector<std::string> compile_options(Dialect dialect) {
  // --minimal: NVRTC leaves out what generated kernels never use (textures, surfaces, the device
  // runtime's functions); the same PTX, ~20 ms less front end per compile.
  if (dialect == Dialect::Cuda) return {"--std=c++17", "--minimal"};
  // -w: the OpenCL compiler's warnings about generated code (e.g. PoCL's clang on a folded
  // comparison) are not the user's business and would leak onto stderr past --quiet.
  return {"-cl-std=CL1.2", "-w"};
}

}  // namespace hqc::codegen
