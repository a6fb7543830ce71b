// Field parsers for .tbl text (contract in field_parser.h).
#include "storage/field_parser.h"

#include <charconv>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "storage/date.h"

namespace hqc {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Accumulates digits into a non-negative magnitude, refusing to exceed `limit`.
template <typename U>
FieldStatus parse_magnitude(std::string_view digits, U limit, U& out) {
  if (digits.empty()) return FieldStatus::Malformed;
  U v = 0;
  bool overflow = false;
  for (char c : digits) {
    if (!is_digit(c)) return FieldStatus::Malformed;
    const U d = static_cast<U>(c - '0');
    if (v > (limit - d) / 10) overflow = true;  // keep scanning: "12x" stays Malformed, not OutOfRange
    else v = v * 10 + d;
  }
  out = v;
  return overflow ? FieldStatus::OutOfRange : FieldStatus::Ok;
}

template <typename S>
FieldStatus parse_signed(std::string_view text, S& out) {
  using U = std::make_unsigned_t<S>;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  const U max_pos = static_cast<U>(std::numeric_limits<S>::max());
  U mag = 0;
  const FieldStatus st = parse_magnitude<U>(text, negative ? max_pos + 1 : max_pos, mag);
  if (st != FieldStatus::Ok) return st;
  out = negative ? static_cast<S>(U{0} - mag) : static_cast<S>(mag);
  return FieldStatus::Ok;
}

FieldStatus check_civil(uint32_t y, uint32_t m, uint32_t d, int32_t& out) {
  static constexpr uint32_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return FieldStatus::Malformed;
  const uint32_t max_day = kDays[m - 1] + (m == 2 && is_leap_year(static_cast<int32_t>(y)) ? 1 : 0);
  if (d > max_day) return FieldStatus::Malformed;
  out = days_from_civil(static_cast<int32_t>(y), m, d);
  return FieldStatus::Ok;
}

// Length of the UTF-8 sequence starting at s[i], 0 when it is not well formed.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) { n = 3; lo = 0xA0; }           // no overlong 3-byte forms
  else if (c == 0xED) { n = 3; hi = 0x9F; }           // no UTF-16 surrogates
  else if (c >= 0xE1 && c <= 0xEF) n = 3;
  else if (c == 0xF0) { n = 4; lo = 0x90; }           // no overlong 4-byte forms
  else if (c == 0xF4) { n = 4; hi = 0x8F; }           // nothing above U+10FFFF
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

FieldStatus parse_int32_field(std::string_view text, int32_t& out) { return parse_signed<int32_t>(text, out); }
FieldStatus parse_int64_field(std::string_view text, int64_t& out) { return parse_signed<int64_t>(text, out); }

FieldStatus parse_decimal_field(std::string_view text, uint8_t precision, uint8_t scale, int64_t& out) {
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  const size_t dot = text.find('.');
  std::string_view int_part = text.substr(0, dot);
  std::string_view frac_part = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (int_part.empty() && frac_part.empty()) return FieldStatus::Malformed;
  if (dot != std::string_view::npos && frac_part.empty()) return FieldStatus::Malformed;  // "12."
  for (char c : int_part)
    if (!is_digit(c)) return FieldStatus::Malformed;
  for (char c : frac_part)
    if (!is_digit(c)) return FieldStatus::Malformed;
  if (frac_part.size() > scale) return FieldStatus::Malformed;  // would need rounding: not exact
  while (int_part.size() > 1 && int_part[0] == '0') int_part.remove_prefix(1);
  const size_t int_digits = int_part == "0" ? 0 : int_part.size();
  if (int_digits > static_cast<size_t>(precision - scale)) return FieldStatus::OutOfRange;
  // precision <= 18, so the scaled magnitude has at most 18 digits and fits int64.
  int64_t v = 0;
  for (char c : int_part) v = v * 10 + (c - '0');
  for (char c : frac_part) v = v * 10 + (c - '0');
  for (size_t k = frac_part.size(); k < scale; ++k) v *= 10;
  out = negative ? -v : v;
  return FieldStatus::Ok;
}

FieldStatus parse_iso_date_field(std::string_view t, int32_t& out) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return FieldStatus::Malformed;
  uint32_t y = 0, m = 0, d = 0;
  for (size_t i : {0, 1, 2, 3}) { if (!is_digit(t[i])) return FieldStatus::Malformed; y = y * 10 + static_cast<uint32_t>(t[i] - '0'); }
  for (size_t i : {5, 6}) { if (!is_digit(t[i])) return FieldStatus::Malformed; m = m * 10 + static_cast<uint32_t>(t[i] - '0'); }
  for (size_t i : {8, 9}) { if (!is_digit(t[i])) return FieldStatus::Malformed; d = d * 10 + static_cast<uint32_t>(t[i] - '0'); }
  return check_civil(y, m, d, out);
}

FieldStatus parse_yyyymmdd_date_field(std::string_view t, int32_t& out) {
  if (t.size() != 8) return FieldStatus::Malformed;
  uint32_t v = 0;
  for (char c : t) {
    if (!is_digit(c)) return FieldStatus::Malformed;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  return check_civil(v / 10000, v / 100 % 100, v % 100, out);
}

FieldStatus parse_float64_field(std::string_view t, double& out) {
  if (t.empty()) return FieldStatus::Malformed;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec == std::errc::result_out_of_range) return FieldStatus::OutOfRange;
  if (ec != std::errc() || p != t.data() + t.size()) return FieldStatus::Malformed;
  return FieldStatus::Ok;
}

FieldStatus check_string_field(std::string_view text, uint32_t max_chars) {
  uint64_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    if (static_cast<unsigned char>(text[i]) < 0x80) { ++i; continue; }
    const size_t n = utf8_sequence(text, i);
    if (n == 0) return FieldStatus::Malformed;
    i += n;
  }
  if (max_chars != 0 && chars > max_chars) return FieldStatus::OutOfRange;
  return FieldStatus::Ok;
}

size_t first_malformed_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string describe_expectation(const ColumnDef& c, FieldStatus status) {
  const bool range = status == FieldStatus::OutOfRange;
  switch (c.type.id) {
    case TypeId::Int32: return range ? "integer in [-2147483648, 2147483647]" : "integer";
    case TypeId::Int64: return range ? "integer in [-9223372036854775808, 9223372036854775807]" : "integer";
    case TypeId::Decimal: {
      const std::string t = c.type.to_string();
      if (range) return t + " with at most " + std::to_string(c.type.precision - c.type.scale) + " integer digits";
      return t + " (digits, optional '.', at most " + std::to_string(c.type.scale) + " fractional digits)";
    }
    case TypeId::Date:
      return c.text_format == "yyyymmdd" ? "date YYYYMMDD" : "date YYYY-MM-DD";
    case TypeId::Float64: return range ? "number within the range of float64" : "number";
    case TypeId::String:
      if (range) return "at most " + std::to_string(c.type.length) + " characters (" + c.type.to_string() + ")";
      return "UTF-8 text";
    case TypeId::Bool: return "a storable type";
  }
  return "value";
}

std::string quote_field(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out = "\"";
  size_t i = 0;
  while (i < text.size() && i < kMax) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') { out += static_cast<char>(c); ++i; continue; }
    if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); ++i; continue; }
    const size_t n = c >= 0x80 ? utf8_sequence(text, i) : 0;
    if (n > 0) { out.append(text.substr(i, n)); i += n; continue; }
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    out += buf;
    ++i;
  }
  if (i < text.size()) out += "...";
  return out + "\"";
}

}  // namespace hqc
