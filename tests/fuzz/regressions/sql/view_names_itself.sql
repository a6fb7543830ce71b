-- TPC-H Q15's script, mutated: the view reads itself (was inlined until the stack overflowed)
create view revenue0 (supplier_no, total_revenue) as
	select l_suppkey, sum(l_extendedprice * (1 - l_discount)) from lineitem, revenue0 where l_suppkey = supplier_no group by l_suppkey;
select s_suppkey, total_revenue from supplier, revenue0 where s_suppkey = supplier_no order by s_suppkey;
drop view revenue0;
