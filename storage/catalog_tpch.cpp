// Catalog::tpch(): the eight TPC-H tables (specification 3.0, clause 1.4), columns in dbgen order.
//
// Representation decisions (documented in docs/schema-format.md):
//   - Identifiers are int32 (the spec allows 32-bit identifiers below SF 300; o_orderkey is sparse and
//     reaches 6,000,000 * SF). Larger data fails loading with an out-of-range error, never wraps.
//   - decimal(15,2) is a scaled int64 (cents); DATE is a day number (days since 1970-01-01).
//   - Strings with a handful of distinct values are dictionaries, so equality and range predicates
//     run on int32 codes; free text (names, addresses, phones, clerks, comments) is heap-stored.
#include "storage/catalog.h"

namespace hqc {

namespace {

ColumnDef plain(std::string name, DataType type) { return {std::move(name), type, Encoding::Plain, ""}; }
ColumnDef dict(std::string name, DataType type) { return {std::move(name), type, Encoding::Dictionary, ""}; }
ColumnDef heap(std::string name, DataType type) { return {std::move(name), type, Encoding::Heap, ""}; }

const DataType kKey = DataType::int32();
const DataType kMoney = DataType::decimal(15, 2);

TableDef part() {
  TableDef t;
  t.name = "part";
  t.columns = {plain("p_partkey", kKey),
               heap("p_name", DataType::varchar(55)),
               dict("p_mfgr", DataType::fixed_char(25)),
               dict("p_brand", DataType::fixed_char(10)),
               dict("p_type", DataType::varchar(25)),
               plain("p_size", DataType::int32()),
               dict("p_container", DataType::fixed_char(10)),
               plain("p_retailprice", kMoney),
               heap("p_comment", DataType::varchar(23))};
  t.primary_key = {"p_partkey"};
  t.rows_at_sf1 = 200000;
  return t;
}

TableDef supplier() {
  TableDef t;
  t.name = "supplier";
  t.columns = {plain("s_suppkey", kKey),
               heap("s_name", DataType::fixed_char(25)),
               heap("s_address", DataType::varchar(40)),
               plain("s_nationkey", kKey),
               heap("s_phone", DataType::fixed_char(15)),
               plain("s_acctbal", kMoney),
               heap("s_comment", DataType::varchar(101))};
  t.primary_key = {"s_suppkey"};
  t.foreign_keys = {{{"s_nationkey"}, "nation", {"n_nationkey"}}};
  t.rows_at_sf1 = 10000;
  return t;
}

TableDef partsupp() {
  TableDef t;
  t.name = "partsupp";
  t.columns = {plain("ps_partkey", kKey), plain("ps_suppkey", kKey), plain("ps_availqty", DataType::int32()),
               plain("ps_supplycost", kMoney), heap("ps_comment", DataType::varchar(199))};
  t.primary_key = {"ps_partkey", "ps_suppkey"};
  t.foreign_keys = {{{"ps_partkey"}, "part", {"p_partkey"}}, {{"ps_suppkey"}, "supplier", {"s_suppkey"}}};
  t.rows_at_sf1 = 800000;
  return t;
}

TableDef customer() {
  TableDef t;
  t.name = "customer";
  t.columns = {plain("c_custkey", kKey),
               heap("c_name", DataType::varchar(25)),
               heap("c_address", DataType::varchar(40)),
               plain("c_nationkey", kKey),
               heap("c_phone", DataType::fixed_char(15)),
               plain("c_acctbal", kMoney),
               dict("c_mktsegment", DataType::fixed_char(10)),
               heap("c_comment", DataType::varchar(117))};
  t.primary_key = {"c_custkey"};
  t.foreign_keys = {{{"c_nationkey"}, "nation", {"n_nationkey"}}};
  t.rows_at_sf1 = 150000;
  return t;
}

TableDef orders() {
  TableDef t;
  t.name = "orders";
  t.columns = {plain("o_orderkey", kKey),
               plain("o_custkey", kKey),
               dict("o_orderstatus", DataType::fixed_char(1)),
               plain("o_totalprice", kMoney),
               plain("o_orderdate", DataType::date()),
               dict("o_orderpriority", DataType::fixed_char(15)),
               heap("o_clerk", DataType::fixed_char(15)),
               plain("o_shippriority", DataType::int32()),
               heap("o_comment", DataType::varchar(79))};
  t.primary_key = {"o_orderkey"};
  t.foreign_keys = {{{"o_custkey"}, "customer", {"c_custkey"}}};
  t.rows_at_sf1 = 1500000;
  return t;
}

TableDef lineitem() {
  TableDef t;
  t.name = "lineitem";
  t.columns = {plain("l_orderkey", kKey),
               plain("l_partkey", kKey),
               plain("l_suppkey", kKey),
               plain("l_linenumber", DataType::int32()),
               plain("l_quantity", kMoney),
               plain("l_extendedprice", kMoney),
               plain("l_discount", kMoney),
               plain("l_tax", kMoney),
               dict("l_returnflag", DataType::fixed_char(1)),
               dict("l_linestatus", DataType::fixed_char(1)),
               plain("l_shipdate", DataType::date()),
               plain("l_commitdate", DataType::date()),
               plain("l_receiptdate", DataType::date()),
               dict("l_shipinstruct", DataType::fixed_char(25)),
               dict("l_shipmode", DataType::fixed_char(10)),
               heap("l_comment", DataType::varchar(44))};
  t.primary_key = {"l_orderkey", "l_linenumber"};
  t.foreign_keys = {{{"l_orderkey"}, "orders", {"o_orderkey"}},
                    {{"l_partkey", "l_suppkey"}, "partsupp", {"ps_partkey", "ps_suppkey"}},
                    {{"l_partkey"}, "part", {"p_partkey"}},
                    {{"l_suppkey"}, "supplier", {"s_suppkey"}}};
  t.rows_at_sf1 = 6001215;
  return t;
}

TableDef nation() {
  TableDef t;
  t.name = "nation";
  t.columns = {plain("n_nationkey", kKey), dict("n_name", DataType::fixed_char(25)), plain("n_regionkey", kKey),
               heap("n_comment", DataType::varchar(152))};
  t.primary_key = {"n_nationkey"};
  t.foreign_keys = {{{"n_regionkey"}, "region", {"r_regionkey"}}};
  t.rows_at_sf1 = 25;
  t.scales_with_sf = false;
  return t;
}

TableDef region() {
  TableDef t;
  t.name = "region";
  t.columns = {plain("r_regionkey", kKey), dict("r_name", DataType::fixed_char(25)),
               heap("r_comment", DataType::varchar(152))};
  t.primary_key = {"r_regionkey"};
  t.rows_at_sf1 = 5;
  t.scales_with_sf = false;
  return t;
}

}  // namespace

Catalog Catalog::tpch() {
  Catalog c;
  c.name = "tpch";
  c.tables = {part(), supplier(), partsupp(), customer(), orders(), lineitem(), nation(), region()};
  return c;
}

}  // namespace hqc
