select - -0000000000 as zero, -(-5) as five, - - 7 as seven, -(-(-2147483648)) as m from region;
