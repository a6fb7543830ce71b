// Result columns, host-side ORDER BY / LIMIT, dictionary decoding, AVG finalisation and the three
// output formats. See result.h for the exactness guarantees.
#include "runtime/execution/result.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "storage/date.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

enum class Storage { Ints, Floats, Strings };

Storage storage_of(const DataType& type) {
  switch (type.id) {
    case TypeId::Float64: return Storage::Floats;
    case TypeId::String: return Storage::Strings;
    default: return Storage::Ints;
  }
}

std::string decimal_text(int64_t value, uint8_t scale) {
  const bool negative = value < 0;
  // Unsigned magnitude so INT64_MIN does not overflow.
  uint64_t magnitude = negative ? (~static_cast<uint64_t>(value) + 1) : static_cast<uint64_t>(value);
  std::string digits = std::to_string(magnitude);
  if (scale > 0) {
    if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
    digits.insert(digits.size() - scale, ".");
  }
  return negative ? "-" + digits : digits;
}

__extension__ typedef unsigned __int128 uint128;

int128 wide_value(const ResultColumn& c, uint64_t row) {
  return static_cast<int128>(static_cast<uint128>(static_cast<uint64_t>(c.highs[row])) << 64 |
                             static_cast<uint64_t>(c.ints[row]));
}

std::string wide_decimal_text(int128 value, uint8_t scale) {
  const bool negative = value < 0;
  uint128 magnitude = negative ? ~static_cast<uint128>(value) + 1 : static_cast<uint128>(value);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (scale > 0) {
    if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
    digits.insert(digits.size() - scale, ".");
  }
  return negative ? "-" + digits : digits;
}

template <typename T>
void permute(std::vector<T>& v, const std::vector<uint64_t>& order) {
  if (v.empty()) return;
  std::vector<T> out(order.size());
  for (size_t i = 0; i < order.size(); ++i) out[i] = std::move(v[order[i]]);
  v = std::move(out);
}

// As DuckDB and PostgreSQL order them: NaN after every number (+inf included), equal to itself.
int compare_doubles(double x, double y) {
  const bool xn = std::isnan(x), yn = std::isnan(y);
  if (xn || yn) return xn - yn;
  return (x > y) - (x < y);
}

// Shortest round-trip text; "inf", "-inf" and "nan" (never "-nan") for the values x / 0 gives.
std::string double_text(double value) {
  if (std::isnan(value)) return "nan";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) return "nan";
  return std::string(buffer, end);
}

bool is_numeric(const DataType& type) { return type.id != TypeId::String && type.id != TypeId::Date; }

std::string csv_quote(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

uint64_t ResultColumn::rows() const {
  switch (storage_of(type)) {
    case Storage::Ints: return ints.size();
    case Storage::Floats: return floats.size();
    case Storage::Strings: return strings.size();
  }
  return 0;
}

void ResultColumn::set_null(uint64_t row) {
  if (row >= rows()) {
    throw Error(ErrorKind::Internal, "result column " + name + ": NULL at row " + std::to_string(row) + " of " +
                                         std::to_string(rows()));
  }
  if (valid.empty()) valid.assign(rows(), 1);
  valid[row] = 0;
  switch (storage_of(type)) {
    case Storage::Ints:
      ints[row] = 0;
      if (!highs.empty()) highs[row] = 0;
      break;
    case Storage::Floats: floats[row] = 0; break;
    case Storage::Strings: strings[row].clear(); break;
  }
}

bool ResultColumn::fits_int64() const {
  for (uint64_t r = 0; r < highs.size(); ++r)
    if (highs[r] != (ints[r] < 0 ? -1 : 0)) return false;
  return true;
}

std::string ResultColumn::text(uint64_t row) const {
  if (is_null(row)) return "NULL";
  if (!highs.empty()) return wide_decimal_text(wide_value(*this, row), type.id == TypeId::Decimal ? type.scale : 0);
  switch (type.id) {
    case TypeId::Float64: return double_text(floats[row]);
    case TypeId::String: return strings[row];
    case TypeId::Decimal: return decimal_text(ints[row], type.scale);
    case TypeId::Date: return format_iso_date(static_cast<int32_t>(ints[row]));
    case TypeId::Bool: return ints[row] != 0 ? "true" : "false";
    default: return std::to_string(ints[row]);
  }
}

ResultFormat parse_result_format(const std::string& text) {
  if (text == "table") return ResultFormat::Table;
  if (text == "csv") return ResultFormat::Csv;
  if (text == "json") return ResultFormat::Json;
  throw Error(ErrorKind::Usage, "unknown output format \"" + text + "\": expected table, csv or json");
}

size_t Result::index_of(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  std::string known;
  for (const ResultColumn& c : columns) known += (known.empty() ? "" : ", ") + c.name;
  throw Error(ErrorKind::Internal, "result has no column \"" + name + "\" (it has: " + known + ")");
}

void Result::validate() const {
  for (const ResultColumn& c : columns) {
    const Storage s = storage_of(c.type);
    const bool only_one = (s == Storage::Ints || c.ints.empty()) && (s == Storage::Floats || c.floats.empty()) &&
                          (s == Storage::Strings || c.strings.empty());
    if (!only_one) {
      throw Error(ErrorKind::Internal, "result column " + c.name + " (" + c.type.to_string() +
                                           ") holds values in the wrong representation");
    }
    if (!c.highs.empty() && (s != Storage::Ints || c.highs.size() != c.ints.size())) {
      throw Error(ErrorKind::Internal, "result column " + c.name + " has 128-bit high words that do not match its values");
    }
    if (!c.valid.empty() && c.valid.size() != c.rows()) {
      throw Error(ErrorKind::Internal, "result column " + c.name + " has " + std::to_string(c.valid.size()) +
                                           " validity entries for " + std::to_string(c.rows()) + " rows");
    }
    if (c.rows() != rows()) {
      throw Error(ErrorKind::Internal, "result column " + c.name + " has " + std::to_string(c.rows()) +
                                           " rows, column " + columns.front().name + " has " + std::to_string(rows()));
    }
  }
}

namespace {

void check_keys(const std::vector<SortKey>& keys, size_t columns) {
  for (const SortKey& k : keys) {
    if (k.column >= columns) {
      throw Error(ErrorKind::Internal, "ORDER BY column index " + std::to_string(k.column) + " out of range");
    }
  }
}

// -1, 0 or 1: row a's value of integer column `c` against row b's (a 128-bit value by its high word,
// then its low word unsigned).
int compare_ints(const ResultColumn& c, uint64_t a, uint64_t b) {
  if (!c.highs.empty() && c.highs[a] != c.highs[b]) return c.highs[a] > c.highs[b] ? 1 : -1;
  if (c.highs.empty()) return (c.ints[a] > c.ints[b]) - (c.ints[a] < c.ints[b]);
  const auto low_a = static_cast<uint64_t>(c.ints[a]), low_b = static_cast<uint64_t>(c.ints[b]);
  return (low_a > low_b) - (low_a < low_b);
}

// -1, 0 or 1: row a's value of column `c` against row b's, by the column's storage.
int compare_values(const ResultColumn& c, uint64_t a, uint64_t b) {
  switch (storage_of(c.type)) {
    case Storage::Ints: return compare_ints(c, a, b);
    case Storage::Floats: return compare_doubles(c.floats[a], c.floats[b]);
    case Storage::Strings: {
      const int cmp = c.strings[a].compare(c.strings[b]);
      return (cmp > 0) - (cmp < 0);
    }
  }
  return 0;
}

// -1, 0 or 1: row a against row b under `keys` (not looking at row order), each key's values compared
// by `compare`; NULLS LAST in both directions, as DuckDB orders by default.
template <typename Compare>
int compare_rows(const std::vector<ResultColumn>& columns, const std::vector<SortKey>& keys, uint64_t a, uint64_t b,
                 Compare compare) {
  for (const SortKey& k : keys) {
    const ResultColumn& c = columns[k.column];
    const bool null_a = c.is_null(a), null_b = c.is_null(b);
    if (null_a || null_b) {
      if (null_a && null_b) continue;
      return null_a ? 1 : -1;
    }
    const int cmp = compare(c, a, b);
    if (cmp != 0) return k.descending ? -cmp : cmp;
  }
  return 0;
}

// True when row a sorts before row b under `keys` (not looking at row order).
bool sorts_before(const std::vector<ResultColumn>& columns, const std::vector<SortKey>& keys, uint64_t a, uint64_t b) {
  return compare_rows(columns, keys, a, b, compare_values) < 0;
}

// Keys that are all integers (dictionary strings as their codes, 128-bit sums among them): each
// row's keys as a row of words whose unsigned order is sorts_before's — a NULL word first where the
// column has NULLs (1 sorts last), then the value with its sign bit flipped (a 128-bit value: its
// high word so, then its low word as it is), complemented when descending. Empty when some key is
// not an integer.
class OrderWords {
 public:
  OrderWords(const std::vector<ResultColumn>& columns, const std::vector<SortKey>& keys) {
    for (const SortKey& k : keys) {
      const ResultColumn& c = columns[k.column];
      if (storage_of(c.type) != Storage::Ints) {
        parts_.clear();
        return;
      }
      const int words = (c.valid.empty() ? 0 : 1) + (c.highs.empty() ? 1 : 2);
      for (int w = 0; w < words; ++w) parts_.push_back({&c, k.descending, c.valid.empty() ? w + 1 : w});
    }
  }
  size_t width() const { return parts_.size(); }  // words per row; 0: not all integers

  // Word `i` of row `r`.
  uint64_t operator()(uint64_t r, size_t i) const {
    const Part& p = parts_[i];
    const ResultColumn& c = *p.column;
    const bool null = c.is_null(r);
    if (p.which == 0) return null ? 1 : 0;
    if (null) return 0;
    const bool wide = !c.highs.empty();
    if (p.which == 1) {
      const uint64_t high = static_cast<uint64_t>(wide ? c.highs[r] : c.ints[r]) ^ (uint64_t{1} << 63);
      return p.descending ? ~high : high;
    }
    return p.descending ? ~static_cast<uint64_t>(c.ints[r]) : static_cast<uint64_t>(c.ints[r]);  // a 128-bit value's low word
  }

 private:
  struct Part {
    const ResultColumn* column;
    bool descending;
    int which;  // 0 the NULL word, 1 the value (a 128-bit value's high word), 2 a 128-bit value's low word
  };
  std::vector<Part> parts_;
};

// The rows in the order of their words (stable), by a least-significant-digit radix sort of the
// words packed into one 64-bit key: each word less its smallest over the rows, in as many bits as
// its range needs, the first word highest. Nullopt when the ranges need more than 64 bits together.
// Nothing of a row's width is materialized: the first touch of fresh pages was most of the sort's
// time (TPC-H q16's 18 K rows at SF 1 on the development machine: ~1.9 ms by comparison of words).
std::optional<std::vector<uint64_t>> radix_order(const OrderWords& word, uint64_t rows) {
  const size_t width = word.width();
  std::vector<uint64_t> low(width, ~uint64_t{0}), high(width, 0);
  for (size_t i = 0; i < width; ++i)
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t w = word(r, i);
      low[i] = std::min(low[i], w);
      high[i] = std::max(high[i], w);
    }
  std::vector<int> shift(width);
  int bits = 0;
  for (size_t i = width; i-- > 0;) {
    shift[i] = bits;
    bits += static_cast<int>(std::bit_width(high[i] - low[i]));
    if (bits > 64) return std::nullopt;
  }
  std::vector<uint64_t> key(rows, 0), key_out(rows);
  for (size_t i = 0; i < width; ++i)
    if (shift[i] < 64)
      for (uint64_t r = 0; r < rows; ++r) key[r] |= (word(r, i) - low[i]) << shift[i];
  std::vector<uint64_t> order(rows), order_out(rows);
  std::iota(order.begin(), order.end(), 0);
  constexpr int kDigit = 11;
  constexpr uint64_t kMask = (uint64_t{1} << kDigit) - 1;
  std::vector<uint64_t> count(kMask + 1);
  for (int at = 0; at < bits; at += kDigit) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t r = 0; r < rows; ++r) ++count[(key[r] >> at) & kMask];
    uint64_t sum = 0;
    for (uint64_t& c : count) sum += std::exchange(c, sum);
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t to = count[(key[r] >> at) & kMask]++;
      key_out[to] = key[r];
      order_out[to] = order[r];
    }
    key.swap(key_out);
    order.swap(order_out);
  }
  return order;
}

}  // namespace

std::vector<uint64_t> Result::top_k(const std::vector<SortKey>& keys, uint64_t k) const {
  check_keys(keys, columns.size());
  const uint64_t n = rows();
  k = std::min(k, n);
  // The k best rows so far in a heap whose top is the worst of them: most rows cost one comparison
  // with it, and nothing of the size of the rows is allocated (on the H200 host, TPC-H q10's top 20
  // of ~380 k groups spent most of its 7.5 ms first-touching an order vector and comparing through
  // sorts_before twice per step). Ties broken by row index: a strict total order whose first k rows
  // are the stable sort's.
  std::vector<uint64_t> heap;
  heap.reserve(k);
  auto select = [&](auto before) {
    for (uint64_t r = 0; r < n && k > 0; ++r) {
      if (heap.size() < k) {
        heap.push_back(r);
        std::push_heap(heap.begin(), heap.end(), before);
      } else if (before(r, heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), before);
        heap.back() = r;
        std::push_heap(heap.begin(), heap.end(), before);
      }
    }
    std::sort_heap(heap.begin(), heap.end(), before);
  };
  // Integer keys (dictionary codes, 128-bit sums among them) skip the per-type dispatch.
  const bool all_ints = std::all_of(keys.begin(), keys.end(), [&](const SortKey& key) {
    return storage_of(columns[key.column].type) == Storage::Ints;
  });
  if (all_ints) {
    select([&](uint64_t a, uint64_t b) {
      const int cmp = compare_rows(columns, keys, a, b, compare_ints);
      return cmp != 0 ? cmp < 0 : a < b;
    });
  } else {
    select([&](uint64_t a, uint64_t b) {
      const int cmp = compare_rows(columns, keys, a, b, compare_values);
      return cmp != 0 ? cmp < 0 : a < b;
    });
  }
  return heap;
}

std::vector<uint64_t> Result::sorted_order(const std::vector<SortKey>& keys) const {
  check_keys(keys, columns.size());
  // Integer keys (OrderWords): radix-sorted where they pack into 64 bits, else compared word by word
  // instead of through the per-type comparison (TPC-H q16 at SF 10, 27,840 rows on four keys, on the
  // development machine: finalize 10.5-15.7 -> 8.5-8.7 ms).
  const OrderWords word(columns, keys);
  if (word.width() > 0)
    if (std::optional<std::vector<uint64_t>> radix = radix_order(word, rows())) return std::move(*radix);
  std::vector<uint64_t> order(rows());
  std::iota(order.begin(), order.end(), 0);
  if (word.width() == 0) {
    std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) { return sorts_before(columns, keys, a, b); });
    return order;
  }
  const size_t width = word.width();
  std::vector<uint64_t> words(order.size() * width);
  for (uint64_t r = 0; r < order.size(); ++r)
    for (size_t i = 0; i < width; ++i) words[r * width + i] = word(r, i);
  std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    const uint64_t* x = &words[a * width];
    const uint64_t* y = &words[b * width];
    for (size_t i = 0; i < width; ++i)
      if (x[i] != y[i]) return x[i] < y[i];
    return false;
  });
  return order;
}

void Result::sort(const std::vector<SortKey>& keys) {
  if (keys.empty() || rows() < 2) return;
  const std::vector<uint64_t> order = sorted_order(keys);
  for (ResultColumn& c : columns) {
    if (!c.valid.empty()) {
      std::vector<uint8_t> v(order.size());
      for (size_t i = 0; i < order.size(); ++i) v[i] = c.valid[order[i]];
      c.valid = std::move(v);
    }
    permute(c.ints, order);
    permute(c.highs, order);
    permute(c.floats, order);
    permute(c.strings, order);
  }
}

void Result::limit(uint64_t count) {
  if (count >= rows()) return;
  for (ResultColumn& c : columns) {
    if (!c.valid.empty()) c.valid.resize(count);
    switch (storage_of(c.type)) {
      case Storage::Ints:
        c.ints.resize(count);
        if (!c.highs.empty()) c.highs.resize(count);
        break;
      case Storage::Floats: c.floats.resize(count); break;
      case Storage::Strings: c.strings.resize(count); break;
    }
  }
}

void Result::skip(uint64_t count) {
  std::vector<uint64_t> rest;
  for (uint64_t r = count; r < rows(); ++r) rest.push_back(r);
  select_rows(rest);
}

void Result::select_rows(const std::vector<uint64_t>& rows) {
  for (ResultColumn& c : columns) {
    permute(c.valid, rows);
    permute(c.ints, rows);
    permute(c.highs, rows);
    permute(c.floats, rows);
    permute(c.strings, rows);
  }
}

void Result::project(const std::vector<size_t>& order) {
  std::vector<ResultColumn> kept;
  for (size_t j = 0; j < order.size(); ++j) {
    const size_t i = order[j];
    if (i >= columns.size()) throw Error(ErrorKind::Internal, "projected column index " + std::to_string(i) + " out of range");
    // Moved at its last use (a column named twice is copied before that): a result's strings are
    // not copied once more on their way out.
    const bool again = std::find(order.begin() + static_cast<std::ptrdiff_t>(j) + 1, order.end(), i) != order.end();
    kept.push_back(again ? columns[i] : std::move(columns[i]));
  }
  columns = std::move(kept);
}

std::string Result::format(ResultFormat format) const {
  validate();
  std::ostringstream out;
  const uint64_t n = rows();
  switch (format) {
    case ResultFormat::Csv: {
      for (size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << csv_quote(columns[c].name);
      out << "\n";
      for (uint64_t r = 0; r < n; ++r) {
        // A NULL is an empty field (what DuckDB's and PostgreSQL's CSV writers print by default).
        for (size_t c = 0; c < columns.size(); ++c) {
          out << (c ? "," : "") << (columns[c].is_null(r) ? std::string() : csv_quote(columns[c].text(r)));
        }
        out << "\n";
      }
      break;
    }
    case ResultFormat::Json: {
      out << "{\"columns\":[";
      for (size_t c = 0; c < columns.size(); ++c) {
        out << (c ? "," : "") << "{\"name\":" << nlohmann::json(columns[c].name).dump()
            << ",\"type\":" << nlohmann::json(columns[c].type.to_string()).dump() << "}";
      }
      out << "],\"rows\":[";
      for (uint64_t r = 0; r < n; ++r) {
        out << (r ? "," : "") << "[";
        for (size_t c = 0; c < columns.size(); ++c) {
          const ResultColumn& col = columns[c];
          out << (c ? "," : "");
          const TypeId id = col.type.id;
          if (col.is_null(r)) {
            out << "null";
          } else if ((id == TypeId::Int32 || id == TypeId::Int64) && col.highs.empty()) {
            out << col.ints[r];
          } else if (id == TypeId::Float64) {
            // JSON has no NaN/Infinity: those are the strings "nan", "inf", "-inf" (null is NULL).
            const double v = col.floats[r];
            if (!std::isfinite(v)) out << '"' << double_text(v) << '"'; else out << double_text(v);
          } else if (id == TypeId::Bool) {
            out << col.text(r);
          } else {
            out << nlohmann::json(col.text(r)).dump();
          }
        }
        out << "]";
      }
      out << "]}";
      break;
    }
    case ResultFormat::Table: {
      std::vector<size_t> width(columns.size());
      std::vector<std::vector<std::string>> cells(columns.size());
      for (size_t c = 0; c < columns.size(); ++c) {
        width[c] = columns[c].name.size();
        cells[c].reserve(n);
        for (uint64_t r = 0; r < n; ++r) {
          cells[c].push_back(columns[c].text(r));
          width[c] = std::max(width[c], cells[c].back().size());
        }
      }
      auto pad = [&](const std::string& s, size_t c, bool right) {
        std::string fill(width[c] - s.size(), ' ');
        return right ? fill + s : s + fill;
      };
      for (size_t c = 0; c < columns.size(); ++c) out << (c ? " | " : "") << pad(columns[c].name, c, false);
      out << "\n";
      for (size_t c = 0; c < columns.size(); ++c) out << (c ? "-+-" : "") << std::string(width[c], '-');
      out << "\n";
      for (uint64_t r = 0; r < n; ++r) {
        for (size_t c = 0; c < columns.size(); ++c) {
          out << (c ? " | " : "") << pad(cells[c][r], c, is_numeric(columns[c].type));
        }
        out << "\n";
      }
      out << "(" << n << (n == 1 ? " row" : " rows") << ")\n";
      break;
    }
  }
  return out.str();
}

ResultColumn decode_dictionary(const ResultColumn& codes, const std::vector<std::string>& dictionary,
                               DataType string_type) {
  ResultColumn out;
  out.name = codes.name;
  out.type = string_type;
  out.strings.reserve(codes.ints.size());
  out.valid = codes.valid;
  for (uint64_t r = 0; r < codes.ints.size(); ++r) {
    if (codes.is_null(r)) {
      out.strings.emplace_back();
      continue;
    }
    const int64_t code = codes.ints[r];
    if (code < 0 || static_cast<uint64_t>(code) >= dictionary.size()) {
      throw Error(ErrorKind::Internal, "result column " + codes.name + " row " + std::to_string(r) +
                                           ": dictionary code " + std::to_string(code) + " outside the dictionary of " +
                                           std::to_string(dictionary.size()) + " strings");
    }
    out.strings.push_back(dictionary[static_cast<size_t>(code)]);
  }
  return out;
}

ResultColumn finalize_average(const std::string& name, const ResultColumn& sum, const ResultColumn& count) {
  if (sum.rows() != count.rows()) {
    throw Error(ErrorKind::Internal, "AVG " + name + ": " + std::to_string(sum.rows()) + " sums but " +
                                         std::to_string(count.rows()) + " counts");
  }
  // As DuckDB finalises AVG of an integer or DECIMAL (its sum is a 128-bit hugeint): the sum as a
  // long double divided by count x 10^scale (a double scale factor), rounded once to double.
  const double unscale = sum.type.id == TypeId::Decimal ? static_cast<double>(power_of_ten(sum.type.scale)) : 1;
  ResultColumn out;
  out.name = name;
  out.type = DataType::float64();
  out.floats.assign(sum.rows(), 0);
  for (uint64_t r = 0; r < sum.rows(); ++r) {
    if (sum.is_null(r) || count.is_null(r)) {
      out.set_null(r);
      continue;
    }
    const int64_t n = count.ints[r];
    if (n == 0) throw Error(ErrorKind::Internal, "AVG " + name + ": group " + std::to_string(r) + " has count 0");
    if (sum.type.id == TypeId::Float64) {
      out.floats[r] = static_cast<double>(static_cast<long double>(sum.floats[r]) / static_cast<long double>(n));
      continue;
    }
    const long double total = sum.highs.empty() ? static_cast<long double>(sum.ints[r]) : static_cast<long double>(wide_value(sum, r));
    const long double divisor = static_cast<long double>(n) * unscale;
    out.floats[r] = static_cast<double>(total / divisor);
  }
  return out;
}

}  // namespace hqc::runtime
