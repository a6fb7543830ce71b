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
//   - LIKE over a dictionary column reads the row's flag in its code set (Expr::param, a buffer the
//     IR filled on the host; Prefix and Exact patterns never get here, the binder made them code
//     ranges). EXTRACT calls the civil-date functions of templates/device/strings.h.
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
};
// Returns the view of heap string column (source, column); throws if it has none in this kernel.
using StringResolver = std::function<StringView(const std::string& source, const std::string& column)>;

// `resolve_string` may be empty when no heap string occurs (then one is Unsupported).
std::string emit_expr(const plan::Expr& e, const AttributeResolver& resolve, const StringResolver& resolve_string = {});

// A C string literal (the same text in CUDA C++ and OpenCL C) holding exactly `bytes`: printable
// ASCII as is, everything else (quotes, backslash, '?' against trigraphs, bytes >= 0x80) as
// three-digit octal escapes.
std::string c_string_literal(std::string_view bytes);

// The hqc_* scalar type name values of `t` are held in ("hqc_i32", "hqc_i64", "hqc_f64").
const char* device_type_of(const DataType& t);

}  // namespace hqc::codegen
