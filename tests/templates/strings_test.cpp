// templates/device/strings.h on the OpenCL device (PoCL here), checked against host references that
// share no code with it: LIKE against a dynamic-programming matcher over thousands of random
// (string, pattern) pairs and the edge cases (empty segments, leading / trailing '%', '_' at the
// ends, bytes >= 0x80 of multi-byte UTF-8 counted as bytes, pattern characters in the data);
// SUBSTRING ranges, comparisons with literals and between heap strings; packed strings (packing a
// range, narrowing, against heap strings); day number → civil year,
// month, day against storage/date.h; dictionary code sets; the string functions (case-mapped views,
// trim, strpos, and upper/lower/trim/length/concat/strpos/replace of packed values) against the host
// functions of frontend/string_functions.h, their reference semantics. The test kernel is generated the way codegen
// writes LIKE: every pattern and literal a C string literal (codegen::c_string_literal) in the source.
// The same source compiles with NVRTC.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "codegen/expr_emitter.h"
#include "frontend/like_pattern.h"
#include "frontend/string_functions.h"
#include "storage/date.h"
#include "tests/templates/device_harness.h"

using hqc::test::OpenClDevice;

namespace {

// Classic LIKE by dynamic programming: m[i][j] = text[0, i) matches pattern[0, j).
bool reference_like(const std::string& text, const std::string& pattern) {
  std::vector<std::vector<char>> m(text.size() + 1, std::vector<char>(pattern.size() + 1, 0));
  m[0][0] = 1;
  for (size_t j = 1; j <= pattern.size(); ++j) m[0][j] = pattern[j - 1] == '%' && m[0][j - 1];
  for (size_t i = 1; i <= text.size(); ++i) {
    for (size_t j = 1; j <= pattern.size(); ++j) {
      char p = pattern[j - 1];
      if (p == '%') m[i][j] = m[i][j - 1] || m[i - 1][j];
      else m[i][j] = m[i - 1][j - 1] && (p == '_' || p == text[i - 1]);
    }
  }
  return m[text.size()][pattern.size()];
}

int sign(int v) { return v < 0 ? -1 : v > 0 ? 1 : 0; }

int reference_compare(const std::string& a, const std::string& b) {
  // std::string compares as unsigned bytes through char_traits<char>::compare (memcmp semantics).
  return sign(a.compare(b));
}

// As the runtime uploads a heap (runtime/device/device_columns.cpp): a multiple of 8 bytes, which
// LIKE reads a word at a time. The padding here is 'b', a byte the patterns look for: a match found
// there (or in the next row's bytes) must not count.
struct Heap {
  std::vector<uint64_t> offsets{0};
  std::vector<unsigned char> bytes;
  void add(const std::string& s) {
    bytes.resize(offsets.back());
    bytes.insert(bytes.end(), s.begin(), s.end());
    offsets.push_back(bytes.size());
    bytes.resize((bytes.size() + 7) & ~size_t{7}, 'b');
  }
};

std::string random_string(std::mt19937& rng, const std::string& alphabet, size_t max_len) {
  std::uniform_int_distribution<size_t> len(0, max_len), pick(0, alphabet.size() - 1);
  std::string s(len(rng), ' ');
  for (char& c : s) c = alphabet[pick(rng)];
  return s;
}

// Kernel "eval": out[k * n + row] = case k of the generated switch, for every row.
std::string kernel_source(const std::vector<std::string>& cases) {
  std::string s = R"CL(
HQC_FN hqc_i32 eval_case(hqc_i32 k, HQC_GLOBAL const hqc_u8* bytes, hqc_u64 b, hqc_u64 e, HQC_GLOBAL const hqc_i32* set) {
  switch (k) {
)CL";
  for (size_t k = 0; k < cases.size(); ++k) s += "    case " + std::to_string(k) + ": return " + cases[k] + ";\n";
  s += R"CL(  }
  return -99;
}

HQC_KERNEL void eval(HQC_GLOBAL const hqc_u64* offsets, HQC_GLOBAL const hqc_u8* bytes, hqc_i64 n_rows, hqc_i32 n_cases,
                     HQC_GLOBAL const hqc_i32* set, HQC_GLOBAL hqc_i32* out) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    const hqc_u64 b = hqc_load_str_begin(offsets, 0, tile, tile_items);
    const hqc_u64 e = hqc_load_str_end(offsets, 0, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    for (hqc_i32 k = 0; k < n_cases; ++k) out[k * n_rows + hqc_tile_row(tile)] = eval_case(k, bytes, b, e, set);
  }
}

HQC_KERNEL void civil(HQC_GLOBAL const hqc_i32* days, hqc_i64 n_rows, HQC_GLOBAL hqc_i32* out) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    const hqc_i32 d = hqc_load_i32(days, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    const hqc_i64 r = hqc_tile_row(tile);
    out[3 * r] = hqc_year_of_days(d);
    out[3 * r + 1] = hqc_month_of_days(d);
    out[3 * r + 2] = hqc_day_of_days(d);
  }
}

HQC_KERNEL void add_months(HQC_GLOBAL const hqc_i32* days, HQC_GLOBAL const hqc_i32* months, hqc_i64 n_rows,
                           HQC_GLOBAL hqc_i32* out) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    const hqc_i32 d = hqc_load_i32(days, tile, tile_items);
    const hqc_i32 n = hqc_load_i32(months, tile, tile_items);
    if (hqc_tile_valid(tile_items)) out[hqc_tile_row(tile)] = hqc_add_months_days(d, n);
  }
}

HQC_KERNEL void pred_loads(HQC_GLOBAL const hqc_u64* offsets, hqc_i64 n_rows, HQC_GLOBAL hqc_u64* out) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    const hqc_i32 flag = hqc_tile_valid(tile_items) && (hqc_tile_row(tile) % 3 != 0);
    const hqc_u64 b = hqc_pred_load_str_begin(offsets, 0, tile, flag);
    const hqc_u64 e = hqc_pred_load_str_end(offsets, 0, tile, flag);
    if (hqc_tile_valid(tile_items)) out[hqc_tile_row(tile)] = e - b;
  }
}
)CL";
  return s;
}

std::string call(const std::string& fn, const std::string& range, const std::string& literal) {
  return fn + "(bytes, " + range + ", " + hqc::codegen::c_string_literal(literal) + ", " + std::to_string(literal.size()) + ")";
}

struct Suite {
  std::vector<std::string> strings;
  std::vector<std::string> cases;
  // expected[k](s) for case k
  std::vector<std::function<int(const std::string&)>> expected;
  std::vector<std::string> what;

  void like(const std::string& pattern) {
    cases.push_back(call("hqc_like", "b, e", pattern));
    expected.push_back([pattern](const std::string& s) { return reference_like(s, pattern) ? 1 : 0; });
    what.push_back("LIKE '" + pattern + "'");
  }
};

const std::string kUtf8E = "\xc3\xa9";  // é: two bytes

// Runs every case of `suite` over each of its strings on `d` (built from kernel_source(suite.cases)),
// `table` the per-code table the cases read as `set`; returns case k of row r at k * rows + r.
std::vector<int32_t> run_cases(OpenClDevice& d, const Suite& suite, const std::vector<int32_t>& table) {
  Heap heap;
  for (const std::string& s : suite.strings) heap.add(s);
  const int64_t n = static_cast<int64_t>(suite.strings.size());
  const int32_t cases = static_cast<int32_t>(suite.cases.size());
  cl_mem offsets = d.buffer(heap.offsets);
  cl_mem bytes = d.buffer(heap.bytes);
  cl_mem set_mem = d.buffer(table);
  cl_mem out = d.buffer(std::vector<int32_t>(static_cast<size_t>(n * cases), -77));
  d.run("eval", {OpenClDevice::mem(offsets), OpenClDevice::mem(bytes), OpenClDevice::i64(n), OpenClDevice::i32(cases),
                 OpenClDevice::mem(set_mem), OpenClDevice::mem(out)},
        5, 64);
  return d.read<int32_t>(out, static_cast<size_t>(n * cases));
}

// Compares `got` (run_cases) with the suite's expectations, reporting the first ten differences;
// returns how many there are.
int mismatches_of(const Suite& suite, const std::vector<int32_t>& got) {
  const size_t n = suite.strings.size();
  int mismatches = 0;
  for (size_t k = 0; k < suite.cases.size(); ++k) {
    for (size_t r = 0; r < n; ++r) {
      const std::string& s = suite.strings[r];
      const int want = suite.expected[k](s);
      const int have = got[k * n + r];
      if (want != have && ++mismatches <= 10) {
        CAPTURE(suite.what[k]);
        CAPTURE(s);
        CHECK(have == want);
      }
    }
  }
  return mismatches;
}

}  // namespace

TEST_CASE("device LIKE, SUBSTRING, comparisons and code sets match host references on PoCL") {
  std::mt19937 rng(20261121);
  Suite suite;
  // Data: the edge cases, then random strings over a small alphabet (so patterns match often) that
  // includes the pattern characters themselves and the two bytes of a UTF-8 character.
  suite.strings = {"", "a", "ab", "ba", "abc", "aab", "%", "_", "a%b", "a_b", kUtf8E, "x" + kUtf8E + "y",
                   "special requests", "specialrequests", "requests special", "forest green", "green", "Customer x Complaints",
                   std::string(70, 'a') + "b"};
  const std::string alphabet = std::string("abcab%_") + kUtf8E;
  while (suite.strings.size() < 700) suite.strings.push_back(random_string(rng, alphabet, 12));

  for (const char* p : {"", "%", "%%", "_", "__", "a", "a%", "%a", "%a%", "a%b", "%a%b%", "a%%b", "_%", "%_", "_a_",
                        "a_%_b", "%b_", "ab%ba", "%special%requests%", "forest%", "%green%", "%Customer%Complaints%",
                        "x_y", "x__y", "%\xc3%", "%\xa9", "\"%", "%\\", "%?%"}) {
    suite.like(p);
  }
  suite.like(kUtf8E + "%");
  const std::string pattern_alphabet = "ab%_c" + kUtf8E;
  while (suite.cases.size() < 160) suite.like(random_string(rng, pattern_alphabet, 7));

  for (const std::string& lit : {std::string(""), std::string("a"), std::string("ab"), std::string("abc"), std::string("b"), kUtf8E,
                                std::string("\xff")}) {
    suite.cases.push_back("hqc_str_cmp_lit(bytes, b, e, " + hqc::codegen::c_string_literal(lit) + ", " + std::to_string(lit.size()) + ")");
    suite.expected.push_back([lit](const std::string& s) { return reference_compare(s, lit); });
    suite.what.push_back("compare with '" + lit + "'");
    suite.cases.push_back(call("hqc_str_eq_lit", "b, e", lit));
    suite.expected.push_back([lit](const std::string& s) { return s == lit ? 1 : 0; });
    suite.what.push_back("equal to '" + lit + "'");
  }
  for (int start : {1, 2, 3, 7, 13, 40}) {
    for (int length : {1, 2, 5, 100}) {
      const std::string range = "hqc_substr_begin(b, e, " + std::to_string(start) + "), hqc_substr_end(b, e, " + std::to_string(start) +
                                ", " + std::to_string(length) + ")";
      // Length of the substring, and its comparison with "ab".
      suite.cases.push_back("(hqc_i32)(hqc_substr_end(b, e, " + std::to_string(start) + ", " + std::to_string(length) +
                            ") - hqc_substr_begin(b, e, " + std::to_string(start) + "))");
      auto sub = [start, length](const std::string& s) {
        return static_cast<size_t>(start - 1) >= s.size() ? std::string() : s.substr(static_cast<size_t>(start - 1), static_cast<size_t>(length));
      };
      suite.expected.push_back([sub](const std::string& s) { return static_cast<int>(sub(s).size()); });
      suite.what.push_back("length of substring(" + std::to_string(start) + ", " + std::to_string(length) + ")");
      suite.cases.push_back(call("hqc_str_cmp_lit", range, "ab"));
      suite.expected.push_back([sub](const std::string& s) { return reference_compare(sub(s), "ab"); });
      suite.what.push_back("substring(" + std::to_string(start) + ", " + std::to_string(length) + ") vs 'ab'");
    }
  }
  // Packed strings (at most 7 bytes in an hqc_i64, storage/types.h pack_string): packing a range, a
  // heap string against a packed value, narrowing a packed value; as signs of integer comparisons
  // with literals packed on the host, against byte-wise comparisons of the texts.
  auto packed = [](const std::string& lit) { return "((hqc_i64)" + std::to_string(hqc::pack_string(lit)) + ")"; };
  auto int_sign = [](const std::string& a, const std::string& b) { return "(hqc_i32)((" + a + " > " + b + ") - (" + a + " < " + b + "))"; };
  auto sub_of = [](const std::string& s, int start, int length) {
    return static_cast<size_t>(start - 1) >= s.size() ? std::string() : s.substr(static_cast<size_t>(start - 1), static_cast<size_t>(length));
  };
  for (const std::string& lit : {std::string(""), std::string("a"), std::string("ab"), std::string("b%"), kUtf8E, std::string("aaaaaaa")}) {
    for (std::pair<int, int> range_of : {std::pair{1, 1}, std::pair{1, 2}, std::pair{2, 3}, std::pair{1, 7}, std::pair{4, 7}}) {
      const int start = range_of.first, length = range_of.second;  // captured below: no structured binding in clang 14
      const std::string range = "hqc_substr_begin(b, e, " + std::to_string(start) + "), hqc_substr_end(b, e, " + std::to_string(start) +
                                ", " + std::to_string(length) + ")";
      suite.cases.push_back(int_sign("hqc_str_pack(bytes, " + range + ")", packed(lit)));
      suite.expected.push_back([=](const std::string& s) { return reference_compare(sub_of(s, start, length), lit); });
      suite.what.push_back("packed substring(" + std::to_string(start) + ", " + std::to_string(length) + ") vs '" + lit + "'");
    }
    suite.cases.push_back("hqc_str_cmp_packed(bytes, b, e, " + packed(lit) + ")");
    suite.expected.push_back([lit](const std::string& s) { return reference_compare(s, lit); });
    suite.what.push_back("heap string vs packed '" + lit + "'");
    for (std::pair<int, int> range_of : {std::pair{1, 7}, std::pair{2, 1}, std::pair{3, 4}, std::pair{7, 1}, std::pair{8, 2}, std::pair{2, 6}}) {
      const int start = range_of.first, length = range_of.second;  // as above
      const std::string p = "hqc_packed_substr(hqc_str_pack(bytes, b, hqc_substr_end(b, e, 1, 7)), " + std::to_string(start) + ", " +
                            std::to_string(length) + ")";
      suite.cases.push_back(int_sign(p, packed(lit)));
      suite.expected.push_back([=](const std::string& s) { return reference_compare(sub_of(sub_of(s, 1, 7), start, length), lit); });
      suite.what.push_back("substring(" + std::to_string(start) + ", " + std::to_string(length) + ") of a packed value vs '" + lit + "'");
    }
  }
  // Heap against heap: each row against row 4 ("abc") and against its own first two bytes.
  Heap heap;
  for (const std::string& s : suite.strings) heap.add(s);
  REQUIRE(suite.strings[4] == "abc");
  suite.cases.push_back("hqc_str_cmp(bytes, b, e, bytes, " + std::to_string(heap.offsets[4]) + ", " + std::to_string(heap.offsets[5]) + ")");
  suite.expected.push_back([](const std::string& s) { return reference_compare(s, "abc"); });
  suite.what.push_back("compare with the heap string 'abc'");
  suite.cases.push_back("hqc_str_cmp(bytes, b, e, bytes, b, hqc_substr_end(b, e, 1, 2))");
  suite.expected.push_back([](const std::string& s) { return reference_compare(s, s.substr(0, 2)); });
  suite.what.push_back("compare with its own first two bytes");
  // Code set: flag of "code" = length of the string (< 16).
  suite.cases.push_back("hqc_code_in_set(set, (hqc_i32)((e - b) & 15))");
  const std::vector<int32_t> set = {1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1};
  suite.expected.push_back([set](const std::string& s) { return set[s.size() & 15]; });
  suite.what.push_back("code set");

  OpenClDevice d;
  d.build(hqc::codegen::device_library_source(hqc::codegen::Dialect::OpenCL) + kernel_source(suite.cases));
  const int64_t n = static_cast<int64_t>(suite.strings.size());
  const std::vector<int32_t> got = run_cases(d, suite, set);
  CHECK(mismatches_of(suite, got) == 0);
  // The random data and patterns must exercise both outcomes substantially.
  int matches = 0;
  for (size_t k = 0; k < 160; ++k)
    for (size_t r = 0; r < suite.strings.size(); ++r) matches += suite.expected[k](suite.strings[r]) == 1;
  CHECK(matches > 2000);
  CHECK(matches < 160 * n - 2000);

  SUBCASE("predicated loads read cleared rows as empty strings") {
    cl_mem offsets = d.buffer(heap.offsets);
    cl_mem lens = d.buffer(std::vector<uint64_t>(static_cast<size_t>(n), 99));
    d.run("pred_loads", {OpenClDevice::mem(offsets), OpenClDevice::i64(n), OpenClDevice::mem(lens)}, 3, 128);
    std::vector<uint64_t> l = d.read<uint64_t>(lens, static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) CHECK(l[static_cast<size_t>(r)] == (r % 3 == 0 ? 0 : suite.strings[static_cast<size_t>(r)].size()));
  }
}

TEST_CASE("the host string functions (frontend/string_functions.h) are byte-wise and ASCII-only") {
  using namespace hqc::plan;
  CHECK(string_upper("aB z" + kUtf8E) == "AB Z" + kUtf8E);
  CHECK(string_lower("aB Z%_") == "ab z%_");
  CHECK(string_trim("  a b  ", true, true) == "a b");
  CHECK(string_trim("  a b  ", true, false) == "a b  ");
  CHECK(string_trim("  a b  ", false, true) == "  a b");
  CHECK(string_trim("   ", true, true).empty());
  CHECK(string_position("abcabc", "ca") == 3);
  CHECK(string_position("abc", "") == 1);
  CHECK(string_position("abc", "x") == 0);
  CHECK(string_position("", "") == 1);
  CHECK(string_replace("aaa", "aa", "b") == "ba");
  CHECK(string_replace("abc", "", "x") == "abc");
  CHECK(string_replace("a-b-c", "-", "") == "abc");
}

TEST_CASE("device string functions match the host string functions on PoCL") {
  using namespace hqc::plan;
  std::mt19937 rng(20261126);
  Suite suite;
  suite.strings = {"", " ", "  ", "a", " a", "a ", "  aB  ", "Ab", "ab", "AB", "abab", "aAbB", "Customer#1", "special REQUESTS",
                   kUtf8E, " " + kUtf8E + "a ", "abcdefghij", "aaaaaaa"};
  const std::string alphabet = std::string(" aAbBz%_") + kUtf8E;
  while (suite.strings.size() < 600) suite.strings.push_back(random_string(rng, alphabet, 10));
  auto add = [&](const std::string& c, std::function<int(const std::string&)> want, const std::string& what) {
    suite.cases.push_back(c);
    suite.expected.push_back(std::move(want));
    suite.what.push_back(what);
  };
  const std::string lit_args_ab = hqc::codegen::c_string_literal("ab") + ", 2";
  // Case-mapped views.
  for (const char* fold : {"HQC_FOLD_UPPER", "HQC_FOLD_LOWER"}) {
    const bool up = std::string(fold) == "HQC_FOLD_UPPER";
    auto mapped = [up](const std::string& s) { return up ? string_upper(s) : string_lower(s); };
    // Patterns, literals and needles in the mapped case, so each case matches some strings.
    for (const std::string& pattern : up ? std::vector<std::string>{"%AB%", "A%", "_B%", "%Z"} : std::vector<std::string>{"%ab%", "a%", "_b%", "%z"}) {
      add("hqc_like_fold(bytes, b, e, " + std::string(fold) + ", " + hqc::codegen::c_string_literal(pattern) + ", " + std::to_string(pattern.size()) + ")",
          [=](const std::string& s) { return like_match(mapped(s), pattern) ? 1 : 0; }, std::string(fold) + " like " + pattern);
    }
    for (const std::string& lit : up ? std::vector<std::string>{"AB", " A", "B"} : std::vector<std::string>{"ab", " a", "b"}) {
      const std::string l = hqc::codegen::c_string_literal(lit) + ", " + std::to_string(lit.size());
      add("hqc_str_cmp_lit_fold(bytes, b, e, " + std::string(fold) + ", " + l + ")", [=](const std::string& s) { return reference_compare(mapped(s), lit); },
          std::string(fold) + " compare " + lit);
      add("hqc_str_eq_lit_fold(bytes, b, e, " + std::string(fold) + ", " + l + ")", [=](const std::string& s) { return mapped(s) == lit ? 1 : 0; },
          std::string(fold) + " equal " + lit);
      add("hqc_str_cmp_packed_fold(bytes, b, e, " + std::string(fold) + ", ((hqc_i64)" + std::to_string(hqc::pack_string(lit)) + "))",
          [=](const std::string& s) { return reference_compare(mapped(s), lit); }, std::string(fold) + " against packed " + lit);
    }
    const std::string needle = up ? "AB" : "ab";
    add("(hqc_i32)hqc_str_position_fold(bytes, b, e, " + std::string(fold) + ", " + hqc::codegen::c_string_literal(needle) + ", 2)",
        [=](const std::string& s) { return static_cast<int>(string_position(mapped(s), needle)); }, std::string(fold) + " strpos " + needle);
  }
  add("hqc_str_cmp_fold(bytes, b, e, HQC_FOLD_UPPER, bytes, b, e, HQC_FOLD_LOWER)",
      [](const std::string& s) { return reference_compare(string_upper(s), string_lower(s)); }, "upper(s) vs lower(s)");
  add("(hqc_i32)hqc_str_position(bytes, b, e, " + lit_args_ab + ")", [](const std::string& s) { return static_cast<int>(string_position(s, "ab")); },
      "strpos ab");
  // TRIM narrows the range: its length and its comparison with "a".
  const std::string tb = "hqc_trim_begin(bytes, b, e)", te = "hqc_trim_end(bytes, " + tb + ", e)";
  add("(hqc_i32)(" + te + " - " + tb + ")", [](const std::string& s) { return static_cast<int>(string_trim(s, true, true).size()); }, "length of trim");
  add("hqc_str_cmp_lit(bytes, " + tb + ", " + te + ", \"a\", 1)", [](const std::string& s) { return reference_compare(string_trim(s, true, true), "a"); },
      "trim vs 'a'");
  add("hqc_str_cmp_lit(bytes, b, hqc_trim_end(bytes, b, e), \"a\", 1)",
      [](const std::string& s) { return reference_compare(string_trim(s, false, true), "a"); }, "rtrim vs 'a'");
  // Packed values: p = the first 7 bytes; each packed result checked as two 28-bit halves.
  auto first = [](const std::string& s, size_t n) { return s.substr(0, std::min(n, s.size())); };
  auto sub = [](const std::string& s, size_t start, size_t n) { return start - 1 >= s.size() ? std::string() : s.substr(start - 1, n); };
  const std::string p7 = "hqc_str_pack(bytes, b, hqc_substr_end(b, e, 1, 7))";
  const std::string p3 = "hqc_str_pack(bytes, b, hqc_substr_end(b, e, 1, 3))";
  const std::string p_4_4 = "hqc_str_pack(bytes, hqc_substr_begin(b, e, 4), hqc_substr_end(b, e, 4, 4))";
  auto packed_case = [&](const std::string& value, std::function<std::string(const std::string&)> want, const std::string& what) {
    add("(hqc_i32)((hqc_u64)(" + value + ") >> 28)", [want](const std::string& s) { return static_cast<int>(static_cast<uint64_t>(hqc::pack_string(want(s))) >> 28); },
        what + " (high half)");
    add("(hqc_i32)((" + value + ") & 0xfffffff)", [want](const std::string& s) { return static_cast<int>(hqc::pack_string(want(s)) & 0xfffffff); },
        what + " (low half)");
  };
  packed_case("hqc_packed_fold(" + p7 + ", HQC_FOLD_UPPER)", [=](const std::string& s) { return string_upper(first(s, 7)); }, "packed upper");
  packed_case("hqc_packed_fold(" + p7 + ", HQC_FOLD_LOWER)", [=](const std::string& s) { return string_lower(first(s, 7)); }, "packed lower");
  packed_case("hqc_packed_trim(" + p7 + ", 1, 1)", [=](const std::string& s) { return string_trim(first(s, 7), true, true); }, "packed trim");
  packed_case("hqc_packed_trim(" + p7 + ", 1, 0)", [=](const std::string& s) { return string_trim(first(s, 7), true, false); }, "packed ltrim");
  packed_case("hqc_packed_trim(" + p7 + ", 0, 1)", [=](const std::string& s) { return string_trim(first(s, 7), false, true); }, "packed rtrim");
  packed_case("hqc_packed_concat(" + p3 + ", " + p_4_4 + ")", [=](const std::string& s) { return first(s, 3) + sub(s, 4, 4); }, "packed concat");
  packed_case("hqc_packed_concat(" + p_4_4 + ", " + p3 + ")", [=](const std::string& s) { return sub(s, 4, 4) + first(s, 3); }, "packed concat swapped");
  packed_case("hqc_packed_replace(" + p7 + ", \"a\", 1, \"\", 0)", [=](const std::string& s) { return string_replace(first(s, 7), "a", ""); },
              "packed replace a by nothing");
  packed_case("hqc_packed_replace(" + p7 + ", " + lit_args_ab + ", \"z\", 1)", [=](const std::string& s) { return string_replace(first(s, 7), "ab", "z"); },
              "packed replace ab by z");
  packed_case("hqc_packed_replace(" + p3 + ", \"a\", 1, \"BB\", 2)", [=](const std::string& s) { return string_replace(first(s, 3), "a", "BB"); },
              "packed replace a by BB");
  packed_case("hqc_packed_replace(" + p7 + ", \"\", 0, \"x\", 1)", [=](const std::string& s) { return first(s, 7); }, "packed replace of ''");
  add("(hqc_i32)hqc_packed_length(" + p7 + ")", [=](const std::string& s) { return static_cast<int>(first(s, 7).size()); }, "packed length");
  add("(hqc_i32)hqc_packed_position(" + p7 + ", " + lit_args_ab + ")", [=](const std::string& s) { return static_cast<int>(string_position(first(s, 7), "ab")); },
      "packed strpos ab");
  // Per-code tables: a value and a flag of "code" = length of the string (< 16).
  add("hqc_code_value_i32(set, (hqc_i32)((e - b) & 15))", [](const std::string& s) { return static_cast<int>((s.size() & 15) * 3); }, "code table value");

  std::vector<int32_t> table;
  for (int32_t c = 0; c < 16; ++c) table.push_back(c * 3);
  OpenClDevice d;
  d.build(hqc::codegen::device_library_source(hqc::codegen::Dialect::OpenCL) + kernel_source(suite.cases));
  CHECK(mismatches_of(suite, run_cases(d, suite, table)) == 0);
  for (size_t k = 0; k < suite.cases.size(); ++k) {
    std::vector<int> seen;
    for (const std::string& str : suite.strings) {
      const int want = suite.expected[k](str);
      if (std::find(seen.begin(), seen.end(), want) == seen.end()) seen.push_back(want);
    }
    // Every case must see at least two outcomes on this data, or it tests nothing.
    CAPTURE(suite.what[k]);
    CHECK(seen.size() >= 2);
  }
}

TEST_CASE("the host LIKE matcher (frontend/like_pattern.h) agrees with the reference, and classifies shapes") {
  std::mt19937 rng(7);
  const std::string alphabet = std::string("ab%_") + kUtf8E;
  for (int i = 0; i < 20000; ++i) {
    std::string s = random_string(rng, alphabet, 10);
    std::string p = random_string(rng, alphabet, 6);
    CAPTURE(s);
    CAPTURE(p);
    REQUIRE(hqc::plan::like_match(s, p) == reference_like(s, p));
  }
  std::string lit;
  CHECK(hqc::plan::classify_like("PROMO%", &lit) == hqc::plan::LikeShape::Prefix);
  CHECK(lit == "PROMO");
  CHECK(hqc::plan::classify_like("%", &lit) == hqc::plan::LikeShape::Prefix);
  CHECK(lit == "");
  CHECK(hqc::plan::classify_like("abc", &lit) == hqc::plan::LikeShape::Exact);
  CHECK(lit == "abc");
  CHECK(hqc::plan::classify_like("%BRASS", nullptr) == hqc::plan::LikeShape::General);
  CHECK(hqc::plan::classify_like("a_%", nullptr) == hqc::plan::LikeShape::General);
  CHECK(hqc::plan::classify_like("a%%", nullptr) == hqc::plan::LikeShape::General);
}

TEST_CASE("day numbers to civil year, month, day on PoCL equal storage/date.h") {
  std::vector<int32_t> days;
  for (int32_t d = -800000; d <= 800000; d += 97) days.push_back(d);
  for (int32_t d = hqc::days_from_civil(1991, 12, 25); d <= hqc::days_from_civil(2000, 3, 5); ++d) days.push_back(d);
  OpenClDevice dev;
  dev.build(hqc::codegen::device_library_source(hqc::codegen::Dialect::OpenCL) + kernel_source({"0"}));
  cl_mem in = dev.buffer(days);
  cl_mem out = dev.buffer(std::vector<int32_t>(days.size() * 3, 0));
  dev.run("civil", {OpenClDevice::mem(in), OpenClDevice::i64(static_cast<int64_t>(days.size())), OpenClDevice::mem(out)}, 8, 128);
  std::vector<int32_t> got = dev.read<int32_t>(out, days.size() * 3);
  int bad = 0;
  for (size_t i = 0; i < days.size(); ++i) {
    hqc::CivilDate c = hqc::civil_from_days(days[i]);
    if (got[3 * i] != c.year || got[3 * i + 1] != static_cast<int32_t>(c.month) || got[3 * i + 2] != static_cast<int32_t>(c.day)) {
      if (++bad <= 5) {
        CAPTURE(days[i]);
        CHECK(got[3 * i] == c.year);
        CHECK(got[3 * i + 1] == static_cast<int32_t>(c.month));
        CHECK(got[3 * i + 2] == static_cast<int32_t>(c.day));
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("a date plus months on PoCL: the day clamped to the target month's length") {
  // Host reference: the civil date (storage/date.h), months added, the day capped by a month-length
  // table with the Gregorian leap rule written out here.
  auto reference = [](int32_t days, int32_t n) {
    hqc::CivilDate c = hqc::civil_from_days(days);
    const int64_t months = int64_t{c.year} * 12 + (c.month - 1) + n;
    const int32_t y = static_cast<int32_t>(months >= 0 ? months / 12 : (months - 11) / 12);
    const uint32_t m = static_cast<uint32_t>(months - int64_t{y} * 12) + 1;
    static const uint32_t length[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return hqc::days_from_civil(y, m, std::min(c.day, m == 2 && leap ? 29u : length[m - 1]));
  };
  // The month ends by hand first: {date, months, expected}.
  const int32_t by_hand[][3] = {{hqc::days_from_civil(1995, 1, 31), 1, hqc::days_from_civil(1995, 2, 28)},
                                {hqc::days_from_civil(1996, 1, 31), 1, hqc::days_from_civil(1996, 2, 29)},
                                {hqc::days_from_civil(1996, 2, 29), 12, hqc::days_from_civil(1997, 2, 28)},
                                {hqc::days_from_civil(2000, 3, 31), -1, hqc::days_from_civil(2000, 2, 29)},
                                {hqc::days_from_civil(1970, 1, 1), -1, hqc::days_from_civil(1969, 12, 1)}};
  std::vector<int32_t> days, months;
  for (const auto& c : by_hand) {
    days.push_back(c[0]);
    months.push_back(c[1]);
  }
  const int32_t steps[] = {1, -1, 3, 12, -12, 13, -25, 48, -1200, 0};
  for (int32_t d = hqc::days_from_civil(1991, 12, 25); d <= hqc::days_from_civil(2000, 3, 5); ++d) {
    days.push_back(d);
    months.push_back(steps[d % 10 < 0 ? d % 10 + 10 : d % 10]);
  }
  for (int32_t d = -700000; d <= 700000; d += 331) {
    days.push_back(d);
    months.push_back((d / 331) % 500 - 250);
  }
  OpenClDevice dev;
  dev.build(hqc::codegen::device_library_source(hqc::codegen::Dialect::OpenCL) + kernel_source({"0"}));
  cl_mem in = dev.buffer(days);
  cl_mem n = dev.buffer(months);
  cl_mem out = dev.buffer(std::vector<int32_t>(days.size(), 0));
  dev.run("add_months", {OpenClDevice::mem(in), OpenClDevice::mem(n), OpenClDevice::i64(static_cast<int64_t>(days.size())),
                         OpenClDevice::mem(out)}, 8, 128);
  std::vector<int32_t> got = dev.read<int32_t>(out, days.size());
  int bad = 0;
  for (size_t i = 0; i < days.size(); ++i) {
    if (got[i] != reference(days[i], months[i]) && ++bad <= 5) {
      CAPTURE(days[i]);
      CAPTURE(months[i]);
      CHECK(got[i] == reference(days[i], months[i]));
    }
  }
  CHECK(bad == 0);
  for (size_t i = 0; i < std::size(by_hand); ++i) CHECK(got[i] == by_hand[i][2]);
}

TEST_CASE("the string test kernels compile with NVRTC") {
  std::vector<std::string> cases = {call("hqc_like", "b, e", "%a_b%"), call("hqc_str_cmp_lit", "b, e", "x\"y"),
                                    "hqc_str_cmp(bytes, b, e, bytes, 0, 1)", "hqc_code_in_set(set, 1)",
                                    "hqc_like_fold(bytes, b, e, HQC_FOLD_LOWER, \"%a%\", 3)",
                                    "(hqc_i32)hqc_str_position_fold(bytes, b, e, HQC_FOLD_UPPER, \"A\", 1)",
                                    "(hqc_i32)hqc_packed_replace(hqc_packed_trim(hqc_str_pack(bytes, b, e), 1, 1), \"a\", 1, \"b\", 1)",
                                    "(hqc_i32)hqc_packed_position(hqc_packed_concat(hqc_packed_fold(hqc_str_pack(bytes, b, e), HQC_FOLD_UPPER), 0), \"A\", 1)",
                                    "(hqc_i32)hqc_code_value_i32(set, 1)"};
  const std::string cuda = hqc::codegen::device_library_source(hqc::codegen::Dialect::Cuda) + kernel_source(cases);
  CHECK(hqc::test::nvrtc_compile_log(cuda, "sm_90") == "");
}
