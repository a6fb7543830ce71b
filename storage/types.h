// Logical column types and their physical representation on the host and the device.
//
// Contract: every value horseqc stores is one of these types. Physical forms:
//   Int32            int32_t
//   Int64            int64_t
//   Decimal(p, s)    int64_t scaled by 10^s (exact; 0.05 with s=2 is stored as 5)
//   Date             int32_t day number, days since 1970-01-01 (TPC-H dates; SSB date keys are Int32 yyyymmdd)
//   String(n, fixed) either dictionary codes (int32_t, order-preserving) or a string heap, see Encoding;
//                    a *computed* string of at most kMaxPackedStringBytes bytes (SUBSTRING with a
//                    constant length, a CASE of string literals, ...) is `packed`: its bytes
//                    big-endian in an int64, zero-padded, so integer order = byte order (never stored
//                    in a table; ir/state.h "Packed strings")
//   Float64          double (results of AVG and other non-exact arithmetic only)
//   Bool             predicate results inside expressions; never stored in a table
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hqc {

// Exact 128-bit host arithmetic (decimal sums, constant folding). GCC/Clang; __extension__ keeps
// -Wpedantic quiet.
__extension__ typedef __int128 int128;

// Longest computed string that has a value of its own on the device (DataType::packed): 7 bytes fill
// bits 55..0 of an int64, so packed values are never negative (signed comparisons keep byte order)
// and never INT64_MIN (the empty-slot marker of hash and aggregation tables).
inline constexpr uint32_t kMaxPackedStringBytes = 7;

// 10^n, the unit of a decimal of scale n (0 <= n <= 18: fits int64).
inline constexpr int64_t power_of_ten(int n) {
  int64_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

enum class TypeId : uint8_t { Bool, Int32, Int64, Decimal, Date, String, Float64 };

struct DataType {
  TypeId id = TypeId::Int32;
  uint8_t precision = 0;    // Decimal: total digits
  uint8_t scale = 0;        // Decimal: digits after the point
  uint32_t length = 0;      // String: declared length (0 = unbounded varchar)
  bool fixed_length = false;  // String: CHAR(n) rather than VARCHAR(n)
  bool packed = false;        // String: a computed value held by value as packed bytes (see above)

  static DataType boolean() { return {TypeId::Bool}; }
  static DataType int32() { return {TypeId::Int32}; }
  static DataType int64() { return {TypeId::Int64}; }
  static DataType decimal(uint8_t p, uint8_t s) { return {TypeId::Decimal, p, s}; }
  static DataType date() { return {TypeId::Date}; }
  static DataType float64() { return {TypeId::Float64}; }
  static DataType varchar(uint32_t n) { return {TypeId::String, 0, 0, n, false}; }
  static DataType fixed_char(uint32_t n) { return {TypeId::String, 0, 0, n, true}; }
  // A computed string of at most n <= kMaxPackedStringBytes bytes, held packed.
  static DataType packed_string(uint32_t n) { return {TypeId::String, 0, 0, n, false, true}; }

  bool is_string() const { return id == TypeId::String; }
  bool is_integer_like() const {  // stored as an integer of some width
    return id == TypeId::Int32 || id == TypeId::Int64 || id == TypeId::Decimal || id == TypeId::Date;
  }
  // Width in bytes of one stored value (strings: of one dictionary code).
  uint32_t physical_width() const;
  // "int32", "decimal(15,2)", "char(25)", "varchar(152)", "date", ...
  std::string to_string() const;
  // Parses the spelling produced by to_string(); throws std::invalid_argument on anything else.
  static DataType parse(const std::string& spelling);

  bool operator==(const DataType&) const = default;
};

// How a string column is stored. Non-string columns are always Plain.
enum class Encoding : uint8_t {
  Plain,       // fixed-width values
  Dictionary,  // int32 codes into a sorted dictionary: code order == string order
  Heap,        // 64-bit offsets (rows + 1 of them) into one byte heap
};

const char* encoding_name(Encoding e);

// Packed strings (DataType::packed): `bytes` (at most kMaxPackedStringBytes, throws Internal beyond)
// big-endian into bits 55..0, zero-padded: "AB" = 0x4142 << 40. unpack_string stops at the first
// zero byte, so the pair round-trips every string without NUL bytes. templates/device/strings.h
// packs the same way on the device.
int64_t pack_string(std::string_view bytes);
std::string unpack_string(int64_t packed);

}  // namespace hqc
