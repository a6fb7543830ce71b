-- GROUP BYs whose rows arrive sorted by their group key (lineitem by l_orderkey), for the CUDA
-- warp runs of hashed and direct-indexed C2 aggregations (bench/gpu_warp_runs.sh compares the rows
-- of two builds). Each touches another accumulator kind or breaks runs another way.
SELECT l_orderkey, SUM(l_quantity) AS qty, COUNT(*) AS n, MIN(l_extendedprice) AS lo, MAX(l_discount) AS hi
FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 250 ORDER BY l_orderkey LIMIT 40;
SELECT l_orderkey, l_returnflag, SUM(l_extendedprice * (1 - l_discount)) AS revenue, COUNT(*) AS n
FROM lineitem GROUP BY l_orderkey, l_returnflag ORDER BY revenue DESC, l_orderkey LIMIT 40;
SELECT l_orderkey, COUNT(*) AS n, SUM(l_tax) AS tax FROM lineitem WHERE l_shipmode IN ('AIR', 'RAIL')
GROUP BY l_orderkey ORDER BY n DESC, l_orderkey LIMIT 40;
SELECT COUNT(*) AS orders, SUM(n) AS rows_, MAX(qty) AS most, MIN(qty) AS least
FROM (SELECT l_orderkey, COUNT(*) AS n, SUM(l_quantity) AS qty FROM lineitem GROUP BY l_orderkey) AS per_order;
SELECT l_orderkey, AVG(l_quantity) AS avg_qty, MIN(l_shipdate) AS first_ship, MAX(l_receiptdate) AS last_receipt
FROM lineitem WHERE l_linenumber <> 3 GROUP BY l_orderkey ORDER BY avg_qty DESC, l_orderkey LIMIT 40;
SELECT o_orderkey, o_orderdate, SUM(l_extendedprice) AS price FROM orders, lineitem
WHERE o_orderkey = l_orderkey AND o_orderdate < DATE '1993-01-01'
GROUP BY o_orderkey, o_orderdate ORDER BY price DESC, o_orderkey LIMIT 40;
