// Field parsers: exact integers, decimals and dates, UTF-8 validation, message wording.
#include <doctest/doctest.h>

#include "storage/date.h"
#include "storage/field_parser.h"

using namespace hqc;

TEST_CASE("integers parse exactly and report overflow apart from garbage") {
  int32_t v = 0;
  CHECK(parse_int32_field("0", v) == FieldStatus::Ok);
  CHECK(v == 0);
  CHECK(parse_int32_field("-2147483648", v) == FieldStatus::Ok);
  CHECK(v == INT32_MIN);
  CHECK(parse_int32_field("2147483647", v) == FieldStatus::Ok);
  CHECK(v == INT32_MAX);
  CHECK(parse_int32_field("2147483648", v) == FieldStatus::OutOfRange);
  CHECK(parse_int32_field("-2147483649", v) == FieldStatus::OutOfRange);
  CHECK(parse_int32_field("99999999999999999999x", v) == FieldStatus::Malformed);
  for (const char* bad : {"", "-", "1x", " 1", "1 ", "+1", "1.0", "0x10"}) {
    CAPTURE(bad);
    CHECK(parse_int32_field(bad, v) == FieldStatus::Malformed);
  }
  int64_t w = 0;
  CHECK(parse_int64_field("-9223372036854775808", w) == FieldStatus::Ok);
  CHECK(w == INT64_MIN);
  CHECK(parse_int64_field("9223372036854775808", w) == FieldStatus::OutOfRange);
}

TEST_CASE("decimals become scaled integers without rounding") {
  int64_t v = 0;
  const std::pair<const char*, int64_t> good[] = {{"0.05", 5},      {"901.00", 90100}, {"-686.4", -68640}, {"17", 1700},
                                                  {"-0.50", -50},   {".5", 50},        {"0", 0},         {"007.10", 710},
                                                  {"9999999999999.99", 999999999999999}};
  for (const auto& g : good) {  // not a structured binding: CAPTURE's lambda cannot take one in clang 14
    CAPTURE(g.first);
    REQUIRE(parse_decimal_field(g.first, 15, 2, v) == FieldStatus::Ok);
    CHECK(v == g.second);
  }
  for (const char* bad : {"", "-", ".", "1.", "1.234", "1,5", "1e3", "--1", "1.2.3", " 1"}) {
    CAPTURE(bad);
    CHECK(parse_decimal_field(bad, 15, 2, v) == FieldStatus::Malformed);
  }
  CHECK(parse_decimal_field("10000000000000", 15, 2, v) == FieldStatus::OutOfRange);
  CHECK(parse_decimal_field("123456789012345678", 18, 0, v) == FieldStatus::Ok);
  CHECK(v == 123456789012345678);
}

TEST_CASE("dates in both spellings") {
  int32_t d = 0;
  CHECK(parse_iso_date_field("1970-01-01", d) == FieldStatus::Ok);
  CHECK(d == 0);
  CHECK(parse_iso_date_field("1996-02-29", d) == FieldStatus::Ok);
  CHECK(format_iso_date(d) == "1996-02-29");
  CHECK(parse_iso_date_field("1995-02-29", d) == FieldStatus::Malformed);
  CHECK(parse_iso_date_field("1995-13-01", d) == FieldStatus::Malformed);
  CHECK(parse_iso_date_field("1995-1-01", d) == FieldStatus::Malformed);
  CHECK(parse_iso_date_field("19950101", d) == FieldStatus::Malformed);
  CHECK(parse_yyyymmdd_date_field("19980802", d) == FieldStatus::Ok);
  CHECK(format_iso_date(d) == "1998-08-02");
  CHECK(parse_yyyymmdd_date_field("19980230", d) == FieldStatus::Malformed);
  CHECK(parse_yyyymmdd_date_field("1998-08-02", d) == FieldStatus::Malformed);
}

TEST_CASE("strings must be UTF-8 and fit their declared length") {
  CHECK(check_string_field("", 0) == FieldStatus::Ok);
  CHECK(check_string_field("January 1, 1992", 18) == FieldStatus::Ok);
  CHECK(check_string_field("\xC3\xBC\xC3\xBC", 2) == FieldStatus::Ok);  // two characters, four bytes
  CHECK(check_string_field("\xC3\xBC\xC3\xBC" "a", 2) == FieldStatus::OutOfRange);
  CHECK(check_string_field("\xF0\x9F\x90\xB4", 1) == FieldStatus::Ok);  // U+1F434 HORSE FACE
  for (const char* bad : {"\xFF", "a\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE0\x80\xAF"}) {
    CHECK(check_string_field(bad, 0) == FieldStatus::Malformed);
  }
}

TEST_CASE("messages quote the offending text safely") {
  CHECK(quote_field("1x") == "\"1x\"");
  CHECK(quote_field("a\xFF" "b") == "\"a\\xFFb\"");
  CHECK(quote_field("say \"hi\"") == "\"say \\\"hi\\\"\"");
  CHECK(quote_field(std::string(50, 'z')) == "\"" + std::string(40, 'z') + "...\"");
  CHECK(quote_field("Ünï") == "\"Ünï\"");
  ColumnDef q{"lo_quantity", DataType::int32(), Encoding::Plain, ""};
  CHECK(describe_expectation(q, FieldStatus::Malformed) == "integer");
  CHECK(describe_expectation(q, FieldStatus::OutOfRange) == "integer in [-2147483648, 2147483647]");
}
