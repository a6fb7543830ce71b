// Catalog::ssb(): the Star Schema Benchmark, revision 3 (O'Neil et al.), every column in the order
// dbgen writes it, so a lineorder.tbl line maps field i to columns[i].
//
// Representation decisions (documented in docs/schema-format.md):
//   - Keys are int32. lo_orderkey reaches 6,000,000 * SF (orders are numbered sparsely), which fits
//     int32 up to SF 300; larger data fails loading with an out-of-range error rather than wrapping.
//   - Money (lo_extendedprice, lo_ordtotalprice, lo_revenue, lo_supplycost) is int64 because dbgen
//     writes whole numbers (cents of the TPC-H price), and sums over lineorder exceed int32.
//   - Date keys (lo_orderdate, lo_commitdate, d_datekey) are int32 yyyymmdd, as the queries compare them.
//   - Low-cardinality strings are dictionaries (order-preserving codes, so range predicates such as
//     p_brand1 between 'MFGR#2221' and 'MFGR#2228' become code ranges); names, addresses, phones and
//     d_date are heap strings.
//   - part has 200,000 * (1 + floor(log2 SF)) rows; rows_at_sf1 stores 200,000 and estimates that
//     need the exact growth must apply the log2 factor themselves. date is fixed (2557 days, 1992-1998).
#include "storage/catalog.h"

namespace hqc {

namespace {

ColumnDef plain(std::string name, DataType type) { return {std::move(name), type, Encoding::Plain, ""}; }
ColumnDef dict(std::string name, DataType type) { return {std::move(name), type, Encoding::Dictionary, ""}; }
ColumnDef heap(std::string name, DataType type) { return {std::move(name), type, Encoding::Heap, ""}; }

TableDef lineorder() {
  TableDef t;
  t.name = "lineorder";
  const DataType i32 = DataType::int32(), i64 = DataType::int64();
  t.columns = {plain("lo_orderkey", i32),      plain("lo_linenumber", i32),
               plain("lo_custkey", i32),       plain("lo_partkey", i32),
               plain("lo_suppkey", i32),       plain("lo_orderdate", i32),
               dict("lo_orderpriority", DataType::fixed_char(15)),
               dict("lo_shippriority", DataType::fixed_char(1)),
               plain("lo_quantity", i32),      plain("lo_extendedprice", i64),
               plain("lo_ordtotalprice", i64), plain("lo_discount", i32),
               plain("lo_revenue", i64),       plain("lo_supplycost", i64),
               plain("lo_tax", i32),           plain("lo_commitdate", i32),
               dict("lo_shipmode", DataType::fixed_char(10))};
  t.primary_key = {"lo_orderkey", "lo_linenumber"};
  t.foreign_keys = {{{"lo_custkey"}, "customer", {"c_custkey"}},
                    {{"lo_partkey"}, "part", {"p_partkey"}},
                    {{"lo_suppkey"}, "supplier", {"s_suppkey"}},
                    {{"lo_orderdate"}, "date", {"d_datekey"}},
                    {{"lo_commitdate"}, "date", {"d_datekey"}}};
  t.rows_at_sf1 = 6001171;
  return t;
}

TableDef part() {
  TableDef t;
  t.name = "part";
  t.columns = {plain("p_partkey", DataType::int32()),     heap("p_name", DataType::varchar(22)),
               dict("p_mfgr", DataType::fixed_char(6)),    dict("p_category", DataType::fixed_char(7)),
               dict("p_brand1", DataType::fixed_char(9)),  dict("p_color", DataType::varchar(11)),
               dict("p_type", DataType::varchar(25)),      plain("p_size", DataType::int32()),
               dict("p_container", DataType::fixed_char(10))};
  t.primary_key = {"p_partkey"};
  t.rows_at_sf1 = 200000;
  return t;
}

TableDef supplier() {
  TableDef t;
  t.name = "supplier";
  t.columns = {plain("s_suppkey", DataType::int32()),     heap("s_name", DataType::fixed_char(25)),
               heap("s_address", DataType::varchar(25)),  dict("s_city", DataType::fixed_char(10)),
               dict("s_nation", DataType::fixed_char(15)), dict("s_region", DataType::fixed_char(12)),
               heap("s_phone", DataType::fixed_char(15))};
  t.primary_key = {"s_suppkey"};
  t.rows_at_sf1 = 2000;
  return t;
}

TableDef customer() {
  TableDef t;
  t.name = "customer";
  t.columns = {plain("c_custkey", DataType::int32()),      heap("c_name", DataType::varchar(25)),
               heap("c_address", DataType::varchar(25)),   dict("c_city", DataType::fixed_char(10)),
               dict("c_nation", DataType::fixed_char(15)), dict("c_region", DataType::fixed_char(12)),
               heap("c_phone", DataType::fixed_char(15)),  dict("c_mktsegment", DataType::fixed_char(10))};
  t.primary_key = {"c_custkey"};
  t.rows_at_sf1 = 30000;
  return t;
}

TableDef date() {
  TableDef t;
  t.name = "date";
  const DataType i32 = DataType::int32();
  t.columns = {plain("d_datekey", i32),
               heap("d_date", DataType::fixed_char(18)),  // "September 30, 1998": one value per row
               dict("d_dayofweek", DataType::fixed_char(9)),
               dict("d_month", DataType::fixed_char(9)),
               plain("d_year", i32),
               plain("d_yearmonthnum", i32),
               dict("d_yearmonth", DataType::fixed_char(7)),
               plain("d_daynuminweek", i32),
               plain("d_daynuminmonth", i32),
               plain("d_daynuminyear", i32),
               plain("d_monthnuminyear", i32),
               plain("d_weeknuminyear", i32),
               dict("d_sellingseason", DataType::varchar(12)),
               plain("d_lastdayinweekfl", i32),
               plain("d_lastdayinmonthfl", i32),
               plain("d_holidayfl", i32),
               plain("d_weekdayfl", i32)};
  t.primary_key = {"d_datekey"};
  t.rows_at_sf1 = 2557;
  t.scales_with_sf = false;
  return t;
}

}  // namespace

Catalog Catalog::ssb() {
  Catalog c;
  c.name = "ssb";
  c.tables = {lineorder(), part(), supplier(), customer(), date()};
  return c;
}

}  // namespace hqc
