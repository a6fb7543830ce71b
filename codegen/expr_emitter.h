// Bound scalar expressions (frontend/expr.h) → C expressions in the common subset of CUDA C++ and
// OpenCL C, over values already in registers.
//
// Contract:
//   - Column references resolve through the caller's resolver (the IR's attribute variables);
//     DictCode nodes become their run-time parameter (a kernel argument), never a literal code.
//   - Every sub-expression is parenthesized, so the text never depends on C precedence rules.
//   - Integer-backed values are computed in hqc_i64 unless both sides are 32-bit (then hqc_i32);
//     decimals stay scaled integers (a product's scale is the sum of the scales, as the binder typed
//     it); Cast rescales decimals by powers of ten and converts to double for Float64.
//   - Booleans are hqc_i32 0/1. Integer division goes through hqc_div_* (no trap on a zero divisor:
//     filtered-out rows still evaluate expressions).
//   - Heap strings (String, not dictionary-encoded) are byte ranges (templates/device/strings.h):
//     the caller's StringResolver gives a column's byte pointer and range variables; SUBSTRING
//     narrows a range. They appear only where the result is a number or a boolean: LIKE, comparisons
//     and IN lists against string literals or other heap strings. String literals become C string
//     literals with their length (c_string_literal), constants of the query, not of the data.
//   - Packed strings (DataType::packed, ir/state.h "Packed strings") are hqc_i64 values: a SUBSTRING
//     of at most 7 bytes packs its byte range (hqc_str_pack), narrows another packed value
//     (hqc_packed_substr) or reads a dictionary column's per-code table (Expr::param); a CASE's
//     string literals become packed constants. Comparisons and IN lists use the byte ranges where
//     every string operand has one (as before), else the packed integers (a literal packed by the
//     compiler; a heap string against a packed value through hqc_str_cmp_packed).
//   - String functions (ExprKind::StringFn): over a heap string, upper/lower read its range through
//     a case mapping, trim narrows it, length is the range's size, strpos searches it for a literal;
//     over packed values (and a heap string short enough to pack) hqc_packed_* compute the packed
//     result. A string result too long to pack has no device value (Unsupported).
//   - A CodeTable node (what the IR computed from one dictionary column on the host: LIKE, SUBSTRING,
//     string functions, predicates over them) reads the entry of the row's code in its table
//     (hqc_code_in_set / hqc_code_value). EXTRACT calls the civil-date functions of
//     templates/device/strings.h.
//   - Decimal(38, s) values (128-bit decimal sums and what later stages compute from them, typed by
//     ir/decimal128.cpp) are hqc_i128 (templates/device/base.h): + and - through hqc_i128_add/sub,
//     * by a 64-bit value through hqc_i128_mul_i64, comparisons through hqc_i128_cmp (the 64-bit
//     side widened), a raised scale as a product with a power of ten, float64 through
//     hqc_i128_to_f64; a 128-bit param is its two words (ir::high_word_param). The product of two
//     128-bit values, division and IN lists over them are Unsupported.
//   - Overflow: a 64-bit + - * or raised decimal scale the IR marked (Expr::overflow_check: its
//     bounds do not prove it stays within int64) goes through hqc_{add,sub,mul}_chk_i64, which raise
//     HQC_FLAG_ARITH_OVERFLOW in the pipeline's flag word for a live row (OverflowChecks); unmarked
//     ones are plain C operators. A comparison of decimals of different scales never forms the
//     raised product: the lower-scale side's Cast is compared exactly by hqc_cmp_scaled_i64 (64-bit)
//     or widened to 128 bits first (against a 128-bit side).
//   - A construct without a device form (a heap string as a value, a string literal against a
//     number) throws hqc::Error(Unsupported) naming the expression.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "frontend/expr.h"

namespace hqc::codegen {

// Returns the register variable holding attribute (source, column); throws if unbound.
using AttributeResolver = std::function<std::string(const std::string& source, const std::string& column)>;

// A heap string column as the kernel holds it: the heap's byte pointer (a kernel argument) and the
// variables of this row's range [begin, end).
struct StringView {
  std::string bytes;
  std::string begin;
  std::string end;
  // Case mapping the bytes are read through: "" (none), or "HQC_FOLD_UPPER" / "HQC_FOLD_LOWER" for
  // upper(s) / lower(s) of a heap string (templates/device/strings.h "Case-mapped views").
  std::string fold;
};
// Returns the view of heap string column (source, column); throws if it has none in this kernel.
using StringResolver = std::function<StringView(const std::string& source, const std::string& column)>;

// Where checked arithmetic reports an overflow: `flags` returns the kernel argument of the
// pipeline's flag word (called only when a checked node is emitted; it throws when the pipeline has
// none), `live` is the C expression that is nonzero for a row still in the result.
struct OverflowChecks {
  std::function<std::string()> flags;
  std::string live;
};

// `resolve_string` may be empty when no heap string occurs (then one is Unsupported); `checks` may
// be empty when no node is marked (then one is Error(Internal)).
std::string emit_expr(const plan::Expr& e, const AttributeResolver& resolve, const StringResolver& resolve_string = {},
                      const OverflowChecks& checks = {});

// A C string literal (the same text in CUDA C++ and OpenCL C) holding exactly `bytes`: printable
// ASCII as is, everything else (quotes, backslash, '?' against trigraphs, bytes >= 0x80) as
// three-digit octal escapes.
std::string c_string_literal(std::string_view bytes);

// The hqc_* scalar type name values of `t` are held in ("hqc_i32", "hqc_i64", "hqc_f64", "hqc_i128").
const char* device_type_of(const DataType& t);

}  // namespace hqc::codegen
