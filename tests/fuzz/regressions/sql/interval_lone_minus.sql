select l_shipmode from lineitem where l_receiptdate < date '1994-01-01' + interval '-' year;
