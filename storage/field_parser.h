// Parsers for one field of a .tbl line, shared by the loader and anyone who reads dbgen-style text.
//
// Contract: each parser consumes the whole field (no surrounding spaces, no trailing garbage) and
// returns FieldStatus::Ok with the value, Malformed when the text is not of the expected form, or
// OutOfRange when it is well formed but does not fit the type. No floating point is involved in
// integers, decimals or dates. describe_expectation() gives the "expected ..." words for a column,
// so every caller words errors alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/catalog.h"

namespace hqc {

enum class FieldStatus : uint8_t { Ok, Malformed, OutOfRange };

// Optional leading '-', then 1..n decimal digits.
FieldStatus parse_int32_field(std::string_view text, int32_t& out);
FieldStatus parse_int64_field(std::string_view text, int64_t& out);
// [-]digits[.digits] with at most `scale` fractional digits (fewer are padded) and at most
// precision - scale integer digits; out = value * 10^scale exactly.
FieldStatus parse_decimal_field(std::string_view text, uint8_t precision, uint8_t scale, int64_t& out);
// YYYY-MM-DD, a valid calendar date; out = days since 1970-01-01.
FieldStatus parse_iso_date_field(std::string_view text, int32_t& out);
// YYYYMMDD (as SSB writes dates), a valid calendar date; out = days since 1970-01-01.
FieldStatus parse_yyyymmdd_date_field(std::string_view text, int32_t& out);
FieldStatus parse_float64_field(std::string_view text, double& out);
// Well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF) with at most
// max_chars code points (0 = unbounded). Malformed = bad UTF-8, OutOfRange = too long.
FieldStatus check_string_field(std::string_view text, uint32_t max_chars);
// The offset of the first byte where `text` stops being well-formed UTF-8 (the rules above);
// std::string_view::npos when all of it is.
size_t first_malformed_utf8(std::string_view text);

// The words after "expected" for a column, for both failure kinds, e.g. "integer" and
// "integer in [-2147483648, 2147483647]".
std::string describe_expectation(const ColumnDef& column, FieldStatus status);
// The offending text quoted for a message: printable ASCII and valid UTF-8 as is, other bytes as
// \xNN, cut after 40 bytes with "...".
std::string quote_field(std::string_view text);

}  // namespace hqc
