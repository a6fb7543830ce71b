select 0000000000000000000 as zero, -0000000000000000000 as minus_zero from region;
