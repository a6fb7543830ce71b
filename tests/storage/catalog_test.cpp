// Built-in schemas (column order as dbgen writes it) and the JSON schema format with its errors.
#include <doctest/doctest.h>

#include <set>

#include "storage/catalog.h"
#include "storage/error.h"

using namespace hqc;

namespace {

std::vector<std::string> column_names(const TableDef& t) {
  std::vector<std::string> out;
  for (const ColumnDef& c : t.columns) out.push_back(c.name);
  return out;
}

void check_consistent(const Catalog& c) {
  std::set<std::string> tables;
  for (const TableDef& t : c.tables) {
    CHECK(tables.insert(t.name).second);
    for (const std::string& k : t.primary_key) CHECK_MESSAGE(t.find(k), t.name, ".", k);
    for (const ForeignKey& fk : t.foreign_keys) {
      const TableDef* ref = c.find(fk.ref_table);
      REQUIRE_MESSAGE(ref, fk.ref_table);
      REQUIRE(fk.columns.size() == fk.ref_columns.size());
      for (size_t i = 0; i < fk.columns.size(); ++i) {
        REQUIRE(t.find(fk.columns[i]));
        REQUIRE(ref->find(fk.ref_columns[i]));
        CHECK(t.find(fk.columns[i])->type == ref->find(fk.ref_columns[i])->type);
      }
    }
    for (const ColumnDef& col : t.columns) {
      if (col.type.is_string()) CHECK(col.encoding != Encoding::Plain);
      else CHECK(col.encoding == Encoding::Plain);
    }
  }
}

}  // namespace

TEST_CASE("SSB catalog has every column in dbgen order") {
  const Catalog c = Catalog::ssb();
  check_consistent(c);
  CHECK(c.tables.size() == 5);
  const TableDef* lo = c.find("lineorder");
  REQUIRE(lo);
  CHECK(column_names(*lo) ==
        std::vector<std::string>{"lo_orderkey", "lo_linenumber", "lo_custkey", "lo_partkey", "lo_suppkey",
                                 "lo_orderdate", "lo_orderpriority", "lo_shippriority", "lo_quantity",
                                 "lo_extendedprice", "lo_ordtotalprice", "lo_discount", "lo_revenue",
                                 "lo_supplycost", "lo_tax", "lo_commitdate", "lo_shipmode"});
  CHECK(lo->find("lo_revenue")->type == DataType::int64());
  CHECK(lo->find("lo_orderdate")->type == DataType::int32());
  CHECK(lo->find("lo_shipmode")->encoding == Encoding::Dictionary);
  CHECK(lo->index_of("lo_quantity") == 8);
  CHECK(lo->index_of("nope") == -1);
  CHECK(c.find("date")->columns.size() == 17);
  CHECK(c.find("date")->find("d_date")->encoding == Encoding::Heap);
  CHECK(c.find("date")->find("d_yearmonth")->encoding == Encoding::Dictionary);
  CHECK_FALSE(c.find("date")->scales_with_sf);
  CHECK(c.find("part")->columns.size() == 9);
  CHECK(c.find("supplier")->columns.size() == 7);
  CHECK(c.find("customer")->columns.size() == 8);
  CHECK(c.owner_of("p_brand1") == c.find("part"));
  CHECK(c.owner_of("nope") == nullptr);
}

TEST_CASE("TPC-H catalog has the eight tables with TPC-H types") {
  const Catalog c = Catalog::tpch();
  check_consistent(c);
  CHECK(c.tables.size() == 8);
  const TableDef* l = c.find("lineitem");
  REQUIRE(l);
  CHECK(l->columns.size() == 16);
  CHECK(l->columns[4].name == "l_quantity");
  CHECK(l->find("l_extendedprice")->type == DataType::decimal(15, 2));
  CHECK(l->find("l_shipdate")->type == DataType::date());
  CHECK(l->find("l_returnflag")->encoding == Encoding::Dictionary);
  CHECK(l->find("l_comment")->encoding == Encoding::Heap);
  CHECK(c.find("orders")->find("o_clerk")->encoding == Encoding::Heap);
  CHECK(c.find("nation")->find("n_name")->encoding == Encoding::Dictionary);
  CHECK(c.find("region")->rows_at_sf1 == 5);
  CHECK(c.find("partsupp")->primary_key == std::vector<std::string>{"ps_partkey", "ps_suppkey"});
}

TEST_CASE("catalogs survive a JSON round trip") {
  for (const Catalog& c : {Catalog::ssb(), Catalog::tpch()}) {
    const std::string text = c.to_json();
    const Catalog back = Catalog::from_json(text, "roundtrip.json");
    CHECK(back.to_json() == text);
    REQUIRE(back.tables.size() == c.tables.size());
    for (size_t i = 0; i < c.tables.size(); ++i) {
      CHECK(back.tables[i].rows_at_sf1 == c.tables[i].rows_at_sf1);
      CHECK(back.tables[i].scales_with_sf == c.tables[i].scales_with_sf);
      for (size_t k = 0; k < c.tables[i].columns.size(); ++k) {
        CHECK(back.tables[i].columns[k].type == c.tables[i].columns[k].type);
        CHECK(back.tables[i].columns[k].encoding == c.tables[i].columns[k].encoding);
      }
    }
  }
}

TEST_CASE("a minimal user schema gets the documented defaults") {
  const Catalog c = Catalog::from_json(R"J({"name": "shop", "tables": [
      {"name": "sales", "columns": [
          {"name": "day", "type": "date", "text_format": "yyyymmdd"},
          {"name": "item", "type": "varchar(20)"},
          {"name": "kind", "type": "char(4)", "encoding": "dictionary"},
          {"name": "amount", "type": "decimal(12,3)"}]}]})J",
                                       "shop.json");
  const TableDef& t = c.tables.at(0);
  CHECK(t.columns[0].text_format == "yyyymmdd");
  CHECK(t.columns[1].encoding == Encoding::Heap);
  CHECK(t.columns[2].encoding == Encoding::Dictionary);
  CHECK(t.columns[3].type == DataType::decimal(12, 3));
  CHECK(t.rows_at_sf1 == 0);
  CHECK(t.scales_with_sf);
}

TEST_CASE("schema errors name the JSON path and what was expected") {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      Catalog::from_json(text, "s.json");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Input);
      return e.what();
    }
    return "no error";
  };
  const std::string one_col = R"({"name": "a", "type": "int32"})";
  CHECK(error_of("{") == "s.json: invalid JSON at line 1, column 2: syntax error while parsing object key - "
                        "unexpected end of input; expected string literal");
  CHECK(error_of(R"({"tables": []})") == "s.json: $: expected a member \"name\"");
  CHECK(error_of(R"({"name": "x", "tables": []})") == "s.json: $.tables: expected at least one table, found []");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [{"name": "a", "type": "int33"}]}]})") ==
        "s.json: $.tables[0].columns[0].type: expected a type such as int32, int64, date, float64, decimal(15,2), "
        "char(25), varchar(44), found \"int33\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [{"name": "a", "type": "int32", "encodng": "heap"}]}]})") ==
        "s.json: $.tables[0].columns[0]: expected only the members name, type, encoding, text_format, found \"encodng\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [{"name": "a", "type": "int32", "encoding": "dictionary"}]}]})") ==
        "s.json: $.tables[0].columns[0].encoding: expected \"plain\" for a int32 column, found \"dictionary\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [)" + one_col + "," + one_col + "]}]}") ==
        "s.json: $.tables[0].columns[1].name: expected a column name not used before in table t, found \"a\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "primary_key": ["b"], "columns": [)" + one_col + "]}]}") ==
        "s.json: $.tables[0].primary_key[0]: expected a column of table t, found \"b\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [)" + one_col +
                 R"(], "foreign_keys": [{"columns": ["a"], "references": "u", "ref_columns": ["k"]}]}]})") ==
        "s.json: $.tables[0].foreign_keys[0].references: expected the name of a table in this schema, found \"u\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [)" + one_col + R"(], "rows_at_sf1": -3}]})") ==
        "s.json: $.tables[0].rows_at_sf1: expected a non-negative integer, found -3");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [{"name": "d", "type": "int32", "text_format": "yyyymmdd"}]}]})") ==
        "s.json: $.tables[0].columns[0].text_format: expected no text_format on a int32 column (only date columns "
        "take \"yyyymmdd\"), found \"yyyymmdd\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "t", "columns": [{"name": "d", "type": "date", "text_format": "ddmmyy"}]}]})") ==
        "s.json: $.tables[0].columns[0].text_format: expected \"yyyymmdd\" (the text spells dates as 8-digit integers), "
        "found \"ddmmyy\"");
  CHECK(error_of(R"({"name": "x", "tables": [{"name": "1t", "columns": [)" + one_col + "]}]}") ==
        "s.json: $.tables[0].name: expected a name of letters, digits and '_' not starting with a digit, found \"1t\"");
}
