// Host-side result finishing: ORDER BY / LIMIT, dictionary decoding, AVG, exact output formats.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "runtime/execution/result.h"
#include "storage/date.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

ResultColumn ints(const std::string& name, DataType type, std::vector<int64_t> values) {
  ResultColumn c;
  c.name = name;
  c.type = type;
  c.ints = std::move(values);
  return c;
}

Result sample() {
  Result r;
  r.columns.push_back(ints("year", DataType::int32(), {1997, 1995, 1997, 1996}));
  r.columns.push_back(ints("brand_code", DataType::fixed_char(9), {2, 0, 1, 2}));
  r.columns.push_back(ints("revenue", DataType::decimal(15, 2), {1050, -5, 99999, 1050}));
  return r;
}

}  // namespace

TEST_CASE("dictionary decoding, sort and limit") {
  Result r = sample();
  r.columns[1] = decode_dictionary(r.columns[1], {"MFGR#11", "MFGR#12", "MFGR#13"}, DataType::fixed_char(9));
  r.validate();
  CHECK(r.columns[1].strings == std::vector<std::string>{"MFGR#13", "MFGR#11", "MFGR#12", "MFGR#13"});

  // ORDER BY year DESC, brand: ties on year 1997 broken by brand.
  r.sort({{0, true}, {1, false}});
  CHECK(r.columns[0].ints == std::vector<int64_t>{1997, 1997, 1996, 1995});
  CHECK(r.columns[1].strings == std::vector<std::string>{"MFGR#12", "MFGR#13", "MFGR#13", "MFGR#11"});
  CHECK(r.columns[2].ints == std::vector<int64_t>{99999, 1050, 1050, -5});

  r.limit(2);
  CHECK(r.rows() == 2);
  CHECK(r.columns[1].rows() == 2);
  r.limit(10);  // larger than the result: unchanged
  CHECK(r.rows() == 2);
}

TEST_CASE("sort is stable for equal keys") {
  Result r;
  r.columns.push_back(ints("k", DataType::int32(), {1, 0, 1, 0}));
  r.columns.push_back(ints("seq", DataType::int64(), {0, 1, 2, 3}));
  r.sort({{0, false}});
  CHECK(r.columns[1].ints == std::vector<int64_t>{1, 3, 0, 2});
}

TEST_CASE("top_k is the stable sort's first k rows: ties in row order, NULLs last") {
  Result r;
  r.columns.push_back(ints("k", DataType::int32(), {5, 7, 5, 9, 7, 1, 9, 5}));
  r.columns.push_back(ints("seq", DataType::int64(), {0, 1, 2, 3, 4, 5, 6, 7}));
  r.columns[0].set_null(3);  // a NULL 9 sorts after everything in both directions
  for (bool descending : {false, true}) {
    for (uint64_t k = 0; k <= 9; ++k) {
      CAPTURE(descending);
      CAPTURE(k);
      Result sorted = r;
      sorted.sort({{0, descending}});
      std::vector<uint64_t> expected(sorted.columns[1].ints.begin(), sorted.columns[1].ints.begin() + std::min<uint64_t>(k, 8));
      std::vector<uint64_t> got = r.top_k({{0, descending}}, k);
      CHECK(got == expected);  // seq == row index, so the sorted seq column lists the stable order
    }
  }
  // Two keys: the second breaks the first's ties; the rows are not moved.
  CHECK(r.top_k({{0, true}, {1, true}}, 3) == std::vector<uint64_t>{6, 4, 1});
  CHECK(r.columns[1].ints == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("sorted_order lists the rows as sort puts them, moving none") {
  Result r;
  r.columns.push_back(ints("k", DataType::int32(), {5, 7, 5, 9, 7, 1, 9, 5}));
  r.columns.push_back(ints("seq", DataType::int64(), {0, 1, 2, 3, 4, 5, 6, 7}));
  r.columns[0].set_null(6);
  for (bool descending : {false, true}) {
    CAPTURE(descending);
    Result sorted = r;
    sorted.sort({{0, descending}});
    const std::vector<uint64_t> expected(sorted.columns[1].ints.begin(), sorted.columns[1].ints.end());
    CHECK(r.sorted_order({{0, descending}}) == expected);
    CHECK(expected.back() == 6);  // NULL last in both directions
  }
  CHECK(r.sorted_order({{0, false}, {1, true}}) == std::vector<uint64_t>{5, 7, 2, 0, 4, 1, 3, 6});
  CHECK(r.columns[1].ints == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("integer keys sort by their words: the extremes, signs, NULLs last and ties in row order, as a plain comparison") {
  // Three integer keys over rows with INT64_MIN / MAX, negatives, repeats and NULLs; every direction
  // mix against a comparison written out here (NULLS LAST both ways, then the row index).
  const std::vector<int64_t> a = {0, -1, INT64_MIN, INT64_MAX, 5, -1, 0, INT64_MAX, 7, INT64_MIN, 5, 3};
  const std::vector<int64_t> b = {2, 2, -3, 1, 2, 2, -3, 1, 1, 9, 2, 2};
  const std::vector<int64_t> c = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  Result r;
  r.columns.push_back(ints("a", DataType::int64(), a));
  r.columns.push_back(ints("b", DataType::int32(), b));
  r.columns.push_back(ints("c", DataType::int64(), c));
  for (uint64_t row : {4u, 8u}) r.columns[0].set_null(row);
  r.columns[1].set_null(2);
  for (int mask = 0; mask < 8; ++mask) {
    const std::vector<SortKey> keys = {{0, (mask & 1) != 0}, {1, (mask & 2) != 0}, {2, (mask & 4) != 0}};
    CAPTURE(mask);
    std::vector<uint64_t> expected(a.size());
    for (uint64_t i = 0; i < expected.size(); ++i) expected[i] = i;
    std::stable_sort(expected.begin(), expected.end(), [&](uint64_t x, uint64_t y) {
      for (const SortKey& k : keys) {
        const ResultColumn& col = r.columns[k.column];
        const bool nx = col.is_null(x), ny = col.is_null(y);
        if (nx != ny) return ny;  // the NULL one last
        if (nx) continue;
        if (col.ints[x] != col.ints[y]) return k.descending ? col.ints[x] > col.ints[y] : col.ints[x] < col.ints[y];
      }
      return false;
    });
    CHECK(r.sorted_order(keys) == expected);
  }
}

TEST_CASE("128-bit and integer keys: top_k and sorted_order by their words agree with a comparison of the values") {
  // A 128-bit sum (low word in ints, high word in highs) around the word boundaries and extremes,
  // repeats and NULLs, then an integer key; every direction mix and every k against a comparison
  // written out here on 128-bit values (NULLS LAST both ways, then the row index).
  using i128 = int128;  // storage/types.h
  __extension__ typedef unsigned __int128 u128;
  const i128 two64 = static_cast<i128>(1) << 64;
  const std::vector<i128> wide = {0, -1, two64, -two64, two64 - 1, -two64 + 1, static_cast<i128>(INT64_MAX) * two64,
                                  static_cast<i128>(INT64_MIN) * two64, static_cast<i128>(1) << 63, -1, two64, 7, 0, -(static_cast<i128>(1) << 63)};
  const std::vector<int64_t> second = {3, 1, 2, 2, 5, 1, 0, 9, 4, 1, 2, -7, 3, 8};
  Result r;
  ResultColumn w;
  w.name = "w";
  w.type = DataType::decimal(38, 2);
  for (i128 v : wide) {
    w.ints.push_back(static_cast<int64_t>(static_cast<uint64_t>(static_cast<u128>(v))));
    w.highs.push_back(static_cast<int64_t>(static_cast<u128>(v) >> 64));
  }
  r.columns.push_back(w);
  r.columns.push_back(ints("i", DataType::int64(), second));
  r.columns[0].set_null(3);
  r.columns[1].set_null(12);
  for (int mask = 0; mask < 4; ++mask) {
    const std::vector<SortKey> keys = {{0, (mask & 1) != 0}, {1, (mask & 2) != 0}};
    CAPTURE(mask);
    std::vector<uint64_t> expected(wide.size());
    for (uint64_t i = 0; i < expected.size(); ++i) expected[i] = i;
    std::stable_sort(expected.begin(), expected.end(), [&](uint64_t x, uint64_t y) {
      for (const SortKey& k : keys) {
        const ResultColumn& col = r.columns[k.column];
        const bool nx = col.is_null(x), ny = col.is_null(y);
        if (nx != ny) return ny;  // the NULL one last
        if (nx) continue;
        const i128 vx = k.column == 0 ? wide[x] : second[x], vy = k.column == 0 ? wide[y] : second[y];
        if (vx != vy) return k.descending ? vx > vy : vx < vy;
      }
      return false;
    });
    CHECK(r.sorted_order(keys) == expected);
    for (uint64_t k = 0; k <= expected.size() + 1; ++k) {
      CAPTURE(k);
      const std::vector<uint64_t> first(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(k, expected.size())));
      CHECK(r.top_k(keys, k) == first);
    }
  }
}

TEST_CASE("top_k over text and double keys is the stable sort's first k rows") {
  Result r;
  ResultColumn text;
  text.name = "t";
  text.type = DataType::varchar(4);
  text.strings = {"b", "a", "b", "", "c", "a", "b", "c"};
  ResultColumn value;
  value.name = "v";
  value.type = DataType::float64();
  value.floats = {0.5, -1.0, 0.5, 2.0, -0.25, 3.0, 1.5, -0.25};
  r.columns = {text, value, ints("seq", DataType::int64(), {0, 1, 2, 3, 4, 5, 6, 7})};
  r.columns[1].set_null(5);
  for (int mask = 0; mask < 4; ++mask) {
    const std::vector<SortKey> keys = {{0, (mask & 1) != 0}, {1, (mask & 2) != 0}};
    Result sorted = r;
    sorted.sort(keys);
    for (uint64_t k = 0; k <= 9; ++k) {
      CAPTURE(mask);
      CAPTURE(k);
      const std::vector<uint64_t> expected(sorted.columns[2].ints.begin(), sorted.columns[2].ints.begin() + std::min<uint64_t>(k, 8));
      CHECK(r.top_k(keys, k) == expected);
    }
  }
}

TEST_CASE("a dictionary code outside the dictionary is an error, not a string") {
  ResultColumn codes = ints("c", DataType::int32(), {0, 3});
  CHECK_THROWS_AS(decode_dictionary(codes, {"a", "b"}, DataType::varchar(1)), Error);
}

TEST_CASE("AVG finalisation unscales decimals and is exact for large sums") {
  ResultColumn sum = ints("s", DataType::decimal(15, 2), {1001, 900719925474099300});
  ResultColumn count = ints("n", DataType::int64(), {4, 1});
  ResultColumn avg = finalize_average("avg_price", sum, count);
  CHECK(avg.type.id == TypeId::Float64);
  CHECK(avg.floats[0] == doctest::Approx(2.5025).epsilon(1e-15));
  CHECK(avg.floats[1] == 9007199254740993.0 / 1.0);  // rounding once, as a double division would not
  CHECK_THROWS_AS(finalize_average("bad", sum, ints("n", DataType::int64(), {1, 0})), Error);
}

TEST_CASE("formats: csv and json are exact, table is aligned") {
  Result r;
  r.columns.push_back(ints("d", DataType::decimal(12, 2), {5, -123456, 0, INT64_MIN}));
  r.columns.push_back(ints("day", DataType::date(), {days_from_civil(1998, 12, 1), 0, days_from_civil(1992, 1, 2),
                                                    days_from_civil(2000, 2, 29)}));
  ResultColumn f;
  f.name = "avg";
  f.type = DataType::float64();
  f.floats = {0.1, 2.0, 1e300, -0.5};
  r.columns.push_back(f);
  ResultColumn s;
  s.name = "name";
  s.type = DataType::varchar(20);
  s.strings = {"plain", "with,comma", "say \"hi\"", ""};
  r.columns.push_back(s);

  const std::string csv = r.format(ResultFormat::Csv);
  CHECK(csv ==
        "d,day,avg,name\n"
        "0.05,1998-12-01,0.1,plain\n"
        "-1234.56,1970-01-01,2,\"with,comma\"\n"
        "0.00,1992-01-02,1e+300,\"say \"\"hi\"\"\"\n"
        "-92233720368547758.08,2000-02-29,-0.5,\n");

  auto json = nlohmann::json::parse(r.format(ResultFormat::Json));
  CHECK(json["columns"][0]["name"] == "d");
  CHECK(json["rows"].size() == 4);
  CHECK(json["rows"][1][0] == "-1234.56");  // decimals travel as exact strings
  CHECK(json["rows"][0][2].get<double>() == 0.1);
  CHECK(json["rows"][2][3] == "say \"hi\"");

  const std::string table = r.format(ResultFormat::Table);
  CHECK(table.find("(4 rows)") != std::string::npos);
  CHECK(table.find("                 0.05 |") != std::string::npos);  // numbers right-aligned
}

TEST_CASE("format names and column lookup") {
  CHECK(parse_result_format("csv") == ResultFormat::Csv);
  CHECK_THROWS_AS(parse_result_format("xml"), Error);
  Result r = sample();
  CHECK(r.index_of("revenue") == 2);
  CHECK_THROWS_AS(r.index_of("nope"), Error);
  r.project({2, 0, 2});  // a column twice: both copies whole
  CHECK(r.columns.size() == 3);
  CHECK(r.columns[0].name == "revenue");
  CHECK(r.columns[2].name == "revenue");
  CHECK(r.columns[0].ints == r.columns[2].ints);
  CHECK(r.columns[0].ints.size() == 4);
  r.project({0, 1});
  CHECK(r.columns[0].name == "revenue");
  CHECK(r.columns.size() == 2);
  r.columns[1].ints.pop_back();
  CHECK_THROWS_AS(r.validate(), Error);
}

TEST_CASE("128-bit sums: exact text, order and AVG from the high and low words") {
  // 2^64 + 5 and -(2^64) - 1 at scale 2, next to an ordinary value.
  ResultColumn wide = ints("charge", DataType::decimal(18, 2), {5, -1, 700});
  wide.highs = {1, -2, 0};
  Result r;
  r.columns.push_back(wide);
  r.columns.push_back(ints("n", DataType::int64(), {1, 2, 3}));
  CHECK(r.columns[0].text(0) == "184467440737095516.21");
  CHECK(r.columns[0].text(1) == "-184467440737095516.17");
  CHECK(r.columns[0].text(2) == "7.00");
  r.sort({{0, false}});
  CHECK(r.columns[1].ints == std::vector<int64_t>{2, 3, 1});
  CHECK(r.columns[0].highs == std::vector<int64_t>{-2, 0, 1});
  // AVG as DuckDB computes it: sum / (count x 10^scale) in long double.
  ResultColumn avg = finalize_average("a", r.columns[0], r.columns[1]);
  CHECK(avg.floats[2] == static_cast<double>((18446744073709551616.0L + 5) / (1.0L * 100)));
  CHECK(avg.floats[1] == doctest::Approx(7.0 / 3));
  r.limit(2);
  CHECK(r.columns[0].highs.size() == 2);
  CHECK(r.format(ResultFormat::Csv) == "charge,n\n-184467440737095516.17,2\n7.00,3\n");
}

TEST_CASE("integer keys whose ranges pack into 64 bits: the radix order is the comparison's, NULLs last, ties in row order") {
  // 5,000 rows (more than one radix digit's 2,048 buckets) of three keys with small ranges — negative
  // values, NULLs, a 128-bit key whose high words are 0 and 1 — and a key of one value; then ranges
  // of 63 + 1 bits (packed) and 63 + 2 bits (compared word by word), every direction mix against a
  // comparison written out here (NULLS LAST both ways, then the row index).
  const uint64_t n = 5000;
  std::vector<int64_t> a(n), b(n), lo(n), hi(n), same(n, 42);
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>(state >> 33);
  };
  for (uint64_t i = 0; i < n; ++i) {
    a[i] = next() % 97 - 48;
    b[i] = next() % 5;
    lo[i] = next() % 1000;  // a 128-bit value hi * 2^64 + lo, hi 0 or 1
    hi[i] = next() % 2;
  }
  Result r;
  r.columns.push_back(ints("a", DataType::int64(), a));
  r.columns.push_back(ints("b", DataType::int32(), b));
  ResultColumn wide = ints("w", DataType::decimal(38, 2), lo);
  wide.highs = hi;
  r.columns.push_back(wide);
  r.columns.push_back(ints("same", DataType::int64(), same));
  for (uint64_t i = 0; i < n; i += 7) r.columns[0].set_null(i);
  for (uint64_t i = 3; i < n; i += 11) r.columns[2].set_null(i);
  auto value = [&](const ResultColumn& col, uint64_t x) {  // the 128-bit key's order is (hi, lo)'s: lo < 1000
    return col.highs.empty() ? col.ints[x] : col.highs[x] * 1000 + col.ints[x];
  };
  auto expected_order = [&](const std::vector<SortKey>& keys) {
    std::vector<uint64_t> order(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint64_t x, uint64_t y) {
      for (const SortKey& k : keys) {
        const ResultColumn& col = r.columns[k.column];
        const bool nx = col.is_null(x), ny = col.is_null(y);
        if (nx != ny) return ny;
        if (nx) continue;
        if (value(col, x) != value(col, y)) return k.descending ? value(col, x) > value(col, y) : value(col, x) < value(col, y);
      }
      return false;
    });
    return order;
  };
  for (int mask = 0; mask < 16; ++mask) {
    const std::vector<SortKey> keys = {{3, (mask & 8) != 0}, {0, (mask & 1) != 0}, {2, (mask & 2) != 0}, {1, (mask & 4) != 0}};
    CAPTURE(mask);
    CHECK(r.sorted_order(keys) == expected_order(keys));
  }
  // A key spanning 2^63 values next to one of two values (64 bits: packed) and of three (65: compared).
  Result edge;
  std::vector<int64_t> big(n), small2(n), small3(n);
  for (uint64_t i = 0; i < n; ++i) {
    big[i] = i % 3 == 0 ? INT64_MIN / 2 : i % 3 == 1 ? INT64_MAX / 2 : next() % 1000;
    small2[i] = next() % 2;
    small3[i] = next() % 3;
  }
  edge.columns.push_back(ints("big", DataType::int64(), big));
  edge.columns.push_back(ints("two", DataType::int64(), small2));
  edge.columns.push_back(ints("three", DataType::int64(), small3));
  for (const std::vector<SortKey>& keys : {std::vector<SortKey>{{0, false}, {1, true}}, std::vector<SortKey>{{2, true}, {0, false}}}) {
    std::vector<uint64_t> order(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint64_t x, uint64_t y) {
      for (const SortKey& k : keys) {
        const int64_t vx = edge.columns[k.column].ints[x], vy = edge.columns[k.column].ints[y];
        if (vx != vy) return k.descending ? vx > vy : vx < vy;
      }
      return false;
    });
    CHECK(edge.sorted_order(keys) == order);
  }
}
