with a as (select * from b), b as (select * from a) select * from a
