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
//   - A construct without a device form (string literals against heap strings, LIKE) throws
//     hqc::Error(Unsupported) naming the expression.
#pragma once

#include <functional>
#include <string>

#include "frontend/expr.h"

namespace hqc::codegen {

// Returns the register variable holding attribute (source, column); throws if unbound.
using AttributeResolver = std::function<std::string(const std::string& source, const std::string& column)>;

std::string emit_expr(const plan::Expr& e, const AttributeResolver& resolve);

// The hqc_* scalar type name values of `t` are held in ("hqc_i32", "hqc_i64", "hqc_f64").
const char* device_type_of(const DataType& t);

}  // namespace hqc::codegen
