// String functions on the host: the reference semantics of ExprKind::StringFn, and the evaluation of
// an expression over one dictionary column for each string of its dictionary.
//
// Contract:
//   - Semantics are byte-wise and match templates/device/strings.h exactly (tests/templates/
//     strings_test.cpp checks the device against these): upper/lower change ASCII letters only,
//     trim/ltrim/rtrim remove spaces (' '), length counts bytes, strpos is the 1-based byte position
//     of the first occurrence (0 when absent, 1 for an empty needle), replace with an empty `from`
//     returns the string unchanged. For ASCII text (TPC-H's) this is SQL's character semantics.
//   - evaluate_per_string(e, s) evaluates `e`, whose only column is a dictionary column, with that
//     column's value being `s`: the host side of ExprKind::CodeTable (ir/pass_dictionary_tables.cpp).
//     It evaluates what per_string_evaluable() accepts and throws Error(Internal) on anything else.
//     A DictCode compared with the column compares strings the way its code does (DictMatch: the
//     dictionary is order-preserving), so no dictionary lookup is needed.
//   - Results: Bool and integer expressions as int64 (a flag is 0/1); packed strings as
//     storage/types.h pack_string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/expr.h"

namespace hqc::plan {

std::string string_upper(std::string_view s);
std::string string_lower(std::string_view s);
std::string string_trim(std::string_view s, bool leading, bool trailing);
int64_t string_position(std::string_view s, std::string_view needle);
std::string string_replace(std::string_view s, std::string_view from, std::string_view to);

// The value of a StringFn whose arguments are all literals (the binder folds such calls).
ExprPtr fold_string_fn(StringFn fn, const std::vector<ExprPtr>& literal_args);

// The one dictionary column `e` reads when it reads nothing else (no other column, no run-time
// parameter, no per-code table); nullptr otherwise. Such an expression can be evaluated per
// dictionary string.
const Expr* per_string_column(const Expr& e);

// True when the device holds `e` as a byte range of a heap string (templates/device/strings.h): a
// heap column, or a SUBSTRING, upper, lower, trim, ltrim or rtrim of such a range (also when the
// result is short enough to be packed). LIKE and the byte-wise comparisons work on such ranges.
bool is_byte_range(const Expr& e);

// True when `e` computes something from a string (contains a LIKE, SUBSTRING or StringFn), as
// opposed to comparing dictionary codes.
bool computes_from_string(const Expr& e);

// True when evaluate_per_string can evaluate `e`: integers, booleans, strings, comparisons, AND/OR/
// NOT, IN, BETWEEN, CASE, LIKE, SUBSTRING, StringFn, + - * of integers, integer casts, and the
// dictionary column itself; no other column, no decimal, date or double.
bool per_string_evaluable(const Expr& e);

// `e` for the dictionary string `s` (see the contract above).
int64_t evaluate_per_string(const Expr& e, std::string_view s);

}  // namespace hqc::plan
