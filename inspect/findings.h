// What the AST of one generated module says about each kernel: the facts horseqc-inspect reports
// and checks. Filled by inspect/kernel_walk.cpp from Clang's AST only (never from codegen's own
// bookkeeping); the manifest and the IR come in later, in inspect/consistency.cpp.
//
// Contract:
//   - every line is a 1-based line of the module source (GeneratedProgram::source, the file
//     horseqc-compile writes), at the kernel's statement that causes the access: an access inside a
//     library function is attributed to the kernel line that calls it, `via` names the function;
//   - `guard` names the operators (their banner comments) whose narrowing of the tuple's flag
//     precedes the access and reaches its condition; empty = every row of the tile (a tail tile's
//     bound is not a guard);
//   - vectors are in source order, so reports are deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hqc::inspect {

enum class Space : uint8_t { Global, Shared, Private, Unknown };
const char* space_name(Space s);  // "global", "shared", "private", "unknown"

// Where an atomic or a barrier sits: the static signature of Table 4's x2 (per tuple) and x3 (per
// CTA after local resolution).
enum class Position : uint8_t {
  PerTuple,   // inside the grid-stride tile loop, executed by every work-item for its tuple
  PerWarp,    // guarded by lane == 0
  PerCta,     // guarded by local id == 0
  PerThread,  // outside the tile loop, by every work-item (e.g. merging a scratchpad table per slot)
};
const char* position_name(Position p);  // "per tuple", "per warp", "per CTA", "per thread"

struct Access {
  int line = 0;
  std::string via;                 // library function called at `line`, or "" (the kernel itself)
  std::vector<std::string> guard;  // banners of the narrowing operators, in source order
  bool in_match_loop = false;      // inside a probe's do-while match loop
};

// One kernel parameter or scratchpad array and what the kernel does to it.
struct ArrayUse {
  std::string name;   // parameter or variable name
  Space space = Space::Global;
  std::string type;   // pointee type as written ("const hqc_i32")
  std::vector<Access> reads;
  std::vector<Access> writes;  // plain stores (atomics are in KernelFindings::atomics)
};

struct Atomic {
  int line = 0;
  std::string via;
  std::string op;      // "add", "cas", "min", "max", "xchg"
  std::string target;  // array name
  Space space = Space::Global;
  Position position = Position::PerTuple;
  int library_line = 0;  // the atomic call itself (inside the library, or == line)
  // Per tuple only where a lookup in the CTA's scratchpad table failed (C3's spill path when the
  // CTA's hashed table is full): its condition depends on a call given a shared array.
  bool spill = false;
};

struct Barrier {
  int line = 0;
  std::string via;
  int library_line = 0;
};

struct Loop {
  int line = 0;
  std::string kind;   // "for", "while", "do"
  std::string bound;  // the condition as written
  std::string role;   // "grid-stride tile loop", "match loop", ""
};

struct SharedDecl {
  std::string name;
  std::string type;
  bool dynamic = false;  // the dynamic scratchpad (extern __shared__ / a __local parameter)
  uint64_t bytes = 0;    // constant-sized arrays; 0 when dynamic
  int line = 0;
};

struct Call {
  std::string function;
  std::vector<int> lines;
};

struct KernelFindings {
  std::string name;
  int first_line = 0, last_line = 0;
  std::vector<std::string> params;    // in order, as declared
  std::string tile_bound;             // the parameter the grid-stride loop runs to ("" if none)
  std::vector<ArrayUse> arrays;       // every array read or written, parameters first (in order)
  std::vector<Atomic> atomics;
  std::vector<Barrier> barriers;
  std::vector<Loop> loops;            // the kernel's own loops (not the library's)
  std::vector<SharedDecl> shared;
  std::vector<Call> calls;            // library functions the kernel calls, first-call order

  const ArrayUse* find_array(const std::string& array) const;
};

// Lines of the module tagged with the operator banner they belong to (kernels only).
struct LineTag {
  std::string kernel;
  std::string banner;  // "" outside any banner of the kernel
};

struct ModuleFindings {
  std::vector<KernelFindings> kernels;  // in source order
  std::vector<LineTag> lines;           // index = line - 1
};

}  // namespace hqc::inspect
