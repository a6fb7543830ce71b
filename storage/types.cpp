// DataType spelling and widths. Contract: parse(to_string(t)) == t for every storable type, and
// parse() accepts exactly the spellings to_string() produces (plus whitespace-free lower case only),
// so schema files and plan files have one canonical form.
#include "storage/types.h"

#include <charconv>
#include <stdexcept>
#include <vector>

#include "storage/error.h"

namespace hqc {

uint32_t DataType::physical_width() const {
  switch (id) {
    case TypeId::Bool: return 1;
    case TypeId::Int32: return 4;
    case TypeId::Date: return 4;
    case TypeId::String: return packed ? 8 : 4;  // dictionary code or packed bytes; heap strings are addressed by 8-byte offsets
    case TypeId::Int64: return 8;
    case TypeId::Decimal: return 8;
    case TypeId::Float64: return 8;
  }
  return 0;
}

std::string DataType::to_string() const {
  switch (id) {
    case TypeId::Bool: return "bool";
    case TypeId::Int32: return "int32";
    case TypeId::Int64: return "int64";
    case TypeId::Date: return "date";
    case TypeId::Float64: return "float64";
    case TypeId::Decimal:
      return "decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    case TypeId::String:
      if (fixed_length) return "char(" + std::to_string(length) + ")";
      if (length == 0) return "varchar";
      return "varchar(" + std::to_string(length) + ")";
  }
  return "?";
}

namespace {

// Parses the comma-separated unsigned numbers between "name(" and ")"; false on any deviation.
bool parse_args(const std::string& s, size_t open, std::vector<uint32_t>& out) {
  if (s.empty() || s.back() != ')') return false;
  size_t pos = open + 1;
  const size_t end = s.size() - 1;
  while (pos < end) {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + pos, s.data() + end, v);
    if (ec != std::errc() || p == s.data() + pos) return false;
    out.push_back(v);
    pos = static_cast<size_t>(p - s.data());
    if (pos == end) break;
    if (s[pos] != ',') return false;
    ++pos;
    if (pos == end) return false;  // trailing comma
  }
  return !out.empty();
}

}  // namespace

DataType DataType::parse(const std::string& s) {
  if (s == "bool") return boolean();
  if (s == "int32") return int32();
  if (s == "int64") return int64();
  if (s == "date") return date();
  if (s == "float64") return float64();
  if (s == "varchar") return varchar(0);
  const size_t open = s.find('(');
  if (open != std::string::npos) {
    const std::string head = s.substr(0, open);
    std::vector<uint32_t> args;
    if (parse_args(s, open, args)) {
      if (head == "decimal" && args.size() == 2 && args[0] >= 1 && args[0] <= 18 && args[1] <= args[0])
        return decimal(static_cast<uint8_t>(args[0]), static_cast<uint8_t>(args[1]));
      if (head == "char" && args.size() == 1 && args[0] >= 1) return fixed_char(args[0]);
      if (head == "varchar" && args.size() == 1 && args[0] >= 1) return varchar(args[0]);
    }
  }
  throw std::invalid_argument("expected a type such as int32, int64, date, float64, decimal(15,2) "
                              "(precision 1..18), char(25) or varchar(44); found \"" + s + "\"");
}

const char* encoding_name(Encoding e) {
  switch (e) {
    case Encoding::Plain: return "plain";
    case Encoding::Dictionary: return "dictionary";
    case Encoding::Heap: return "heap";
  }
  return "?";
}

int64_t pack_string(std::string_view bytes) {
  if (bytes.size() > kMaxPackedStringBytes)
    throw Error(ErrorKind::Internal, "pack_string: " + std::to_string(bytes.size()) + " bytes exceed the " +
                                         std::to_string(kMaxPackedStringBytes) + " of a packed string");
  uint64_t v = 0;
  for (size_t i = 0; i < kMaxPackedStringBytes; ++i)
    v = (v << 8) | (i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0u);
  return static_cast<int64_t>(v);
}

std::string unpack_string(int64_t packed) {
  std::string out;
  for (size_t i = 0; i < kMaxPackedStringBytes; ++i) {
    const auto byte = static_cast<char>((static_cast<uint64_t>(packed) >> (8 * (kMaxPackedStringBytes - 1 - i))) & 0xffu);
    if (byte == 0) break;
    out += byte;
  }
  return out;
}

}  // namespace hqc
