-- LIKE over TPC-H's heap-string columns (bench/gpu_ab.sh SQL_FILES): counts and a GROUP BY whose
-- rows two builds must give identically; middle segments of several lengths, '_' inside and first,
-- NOT LIKE, anchored prefixes and suffixes.
select count(*) as n from orders where o_comment like '%special%requests%';
select count(*) as n from orders where o_comment not like '%special%requests%';
select count(*) as n from part where p_name like '%green%';
select count(*) as n from supplier where s_comment like '%Customer%Complaints%';
select count(*) as n from lineitem where l_comment like '%fur%y%';
select count(*) as n from lineitem where l_comment like '%_ly%e_%';
select count(*) as n from lineitem where l_comment like 'a%s';
select count(*) as n from customer where c_comment like '%requests';
select count(*) as n from partsupp where ps_comment like '%final%_%pinto%';
select o_orderpriority, count(*) as n from orders where o_comment like '%pending%deposits%' group by o_orderpriority order by o_orderpriority;
