// TPC-H shapes of the aggregation sinks through SQL, the IR and code generation: a GROUP BY over
// a subquery in FROM (its Map binds the derived table's columns, as in Q7), several hashed keys,
// heap-string keys next to the primary key (Q10), COUNT(DISTINCT) (Q16's rewrite). Results are
// compared with DuckDB end to end in tests/oracle/tpch_queries.py.
#include <doctest/doctest.h>

#include <memory>

#include "codegen/generate.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "storage/catalog.h"
#include "tests/frontend/sql/sql_test_util.h"

using namespace hqc;

TEST_CASE("GROUP BY over a subquery in FROM: the derived table's computed columns are the keys") {
  ir::Program p = test::compile_tpch_sql(
      "select supp_nation, cust_nation, sum(volume) as revenue from (select n1.n_name as supp_nation, "
      "n2.n_name as cust_nation, l_extendedprice * (1 - l_discount) as volume from supplier, lineitem, orders, customer, "
      "nation n1, nation n2 where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey "
      "and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey) as shipping group by supp_nation, cust_nation");
  const ir::AggregationTable& agg = p.aggregations.at(0);
  REQUIRE(agg.keys.size() == 2);
  CHECK(agg.keys[0].dict_column == "n_name");
  for (codegen::Dialect d : {codegen::Dialect::Cuda, codegen::Dialect::OpenCL}) {
    codegen::GeneratedProgram g = codegen::generate(p, d);
    CHECK(g.kernels_source.find("const hqc_i32 shipping_supp_nation = n1_n_name;") != std::string::npos);
  }
}

TEST_CASE("TPC-H Q10's GROUP BY: seven hashed keys, heap strings as row references decoded on the host") {
  ir::Program p = test::compile_tpch_sql(test::read_text(test::repo_dir() + "/tpch/queries/10.sql"));
  const ir::AggregationTable& agg = p.aggregations.at(0);
  CHECK(agg.layout == ir::AggLayout::GlobalHash);
  CHECK(agg.key_lanes == 7);
  int heap_keys = 0;
  for (const ir::GroupKey& k : agg.keys) heap_keys += !k.heap_table.empty();
  CHECK(heap_keys == 4);  // c_name, c_address, c_phone, c_comment
  codegen::GeneratedProgram g = codegen::generate(p, codegen::Dialect::OpenCL);
  CHECK(g.kernels_source.find("hqc_gb_hash_slot_keys(") != std::string::npos);
  CHECK(g.kernels_source.find("(hqc_i32)(row_base_customer + hqc_tile_row(tile));  // row of customer.c_name") != std::string::npos);
}

TEST_CASE("a double precision group key is refused, never truncated to an integer") {
  // Keys compare as 64-bit integers: AVGs 0.08 and 0.04 once fell into one group 0 (sql_fuzz seed 1004).
  for (const char* sql : {"select g, count(*) from (select l_orderkey, avg(l_tax) as g from lineitem group by l_orderkey) as d group by g",
                          "select distinct l_tax / 2 from lineitem",
                          "select l_tax / 2 from lineitem union select l_discount / 2 from lineitem"}) {
    CAPTURE(sql);
    try {
      test::compile_tpch_sql(sql);
      FAIL("compiled");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Unsupported);
      CHECK(std::string(e.what()).find("is double precision, which is not supported as a group key") != std::string::npos);
    }
  }
}

TEST_CASE("a CASE over a 128-bit integer SUM is 128-bit itself (fuzz seed 1011 SSB 4593: exit 70 before), in both dialects") {
  // Without statistics SSB's integer SUM(lo_revenue) may leave 64 bits: 128-bit. A scalar COALESCE over one is such a CASE too.
  for (const char* sql :
       {"select case when d.c = d.s then d.s else d.k end as a1 from (select lo_suppkey as k, sum(lo_revenue) as s, "
        "count(*) as c from lineorder group by lo_suppkey) as d",
        "select coalesce(sum(lo_revenue), 0) as s from lineorder where lo_quantity > 100"}) {
    CAPTURE(sql);
    ir::Program p = test::compile_sql(sql, Catalog::ssb());
    for (codegen::Dialect d : {codegen::Dialect::Cuda, codegen::Dialect::OpenCL}) {
      codegen::GeneratedProgram g = codegen::generate(p, d);
      CHECK(g.kernels_source.find("hqc_i128_from_i64") != std::string::npos);  // the 64-bit branch, widened
    }
  }
}
