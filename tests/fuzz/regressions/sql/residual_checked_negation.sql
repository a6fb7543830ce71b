select count(*) as n from lineitem l1 where exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and - l2.l_suppkey <> - l1.l_suppkey);
