"""The SSB schema as DuckDB sees it: written independently of horseqc's catalog, so the oracle
does not inherit horseqc's mistakes. Column order is ssb-dbgen's."""

I, B, V = "INTEGER", "BIGINT", "VARCHAR"

SSB_TABLES = {
    "lineorder": [("lo_orderkey", B), ("lo_linenumber", I), ("lo_custkey", I), ("lo_partkey", I),
                  ("lo_suppkey", I), ("lo_orderdate", I), ("lo_orderpriority", V), ("lo_shippriority", V),
                  ("lo_quantity", I), ("lo_extendedprice", B), ("lo_ordtotalprice", B), ("lo_discount", I),
                  ("lo_revenue", B), ("lo_supplycost", B), ("lo_tax", I), ("lo_commitdate", I),
                  ("lo_shipmode", V)],
    "part": [("p_partkey", I), ("p_name", V), ("p_mfgr", V), ("p_category", V), ("p_brand1", V),
             ("p_color", V), ("p_type", V), ("p_size", I), ("p_container", V)],
    "supplier": [("s_suppkey", I), ("s_name", V), ("s_address", V), ("s_city", V), ("s_nation", V),
                 ("s_region", V), ("s_phone", V)],
    "customer": [("c_custkey", I), ("c_name", V), ("c_address", V), ("c_city", V), ("c_nation", V),
                 ("c_region", V), ("c_phone", V), ("c_mktsegment", V)],
    "date": [("d_datekey", I), ("d_date", V), ("d_dayofweek", V), ("d_month", V), ("d_year", I),
             ("d_yearmonthnum", I), ("d_yearmonth", V), ("d_daynuminweek", I), ("d_daynuminmonth", I),
             ("d_daynuminyear", I), ("d_monthnuminyear", I), ("d_weeknuminyear", I), ("d_sellingseason", V),
             ("d_lastdayinweekfl", I), ("d_lastdayinmonthfl", I), ("d_holidayfl", I), ("d_weekdayfl", I)],
}


def load_ssb(con, data_dir):
    """Creates the five SSB tables in DuckDB connection `con` from ssb-dbgen .tbl files in data_dir
    (every line ends with '|', hence the trailing empty column that is dropped)."""
    import os
    for table, cols in SSB_TABLES.items():
        path = os.path.join(data_dir, table + ".tbl")
        spec = ", ".join(f"'{n}': '{t}'" for n, t in cols) + ", 'trailing_empty': 'VARCHAR'"
        names = ", ".join(n for n, _ in cols)
        con.execute(f'CREATE OR REPLACE TABLE "{table}" AS SELECT {names} FROM read_csv(\'{path}\', '
                    f"delim='|', header=false, quote='', escape='', columns={{{spec}}})")
