// The element-wise kernels of SQL window functions (runtime/execution/window_stage.h), between the device
// library's sorts and scans (runtime/device/device_primitives.h). Not part of the query device library
// (library_files()); needs only the dialect prelude. Every kernel strides over its n rows, so any
// grid and block size is correct; rows are in window order (sorted by partition keys, then ORDER BY
// keys) unless a kernel says otherwise.
//
// The stage marks segment heads (hqc_window_mark_changes: a partition starts where a partition key
// changes, a peer group where any key changes), turns them into values the scans combine
// (hqc_window_head_positions, hqc_window_select, hqc_window_flags), finds where every row's
// segment ends (hqc_window_record_ends, hqc_window_read_ends: the frame's last row for RANGE frames
// and whole partitions), shifts values within partitions (hqc_window_shift: LAG, LEAD), reads ROWS
// BETWEEN frames (hqc_window_rows_frame), and puts the answers back into result-row order
// (hqc_window_scatter).

#define HQC_WINDOW_ROWS(i, n) \
  for (hqc_i64 i = HQC_BID() * (hqc_i64)HQC_BDIM() + HQC_LID(); i < (n); i += HQC_GDIM() * (hqc_i64)HQC_BDIM())

// flags[i] = 1 where row i differs from row i - 1 in `key` (flags accumulate over several keys;
// row 0 is left as it is: the caller marks it).
HQC_KERNEL void hqc_window_mark_changes(HQC_GLOBAL const hqc_u64* HQC_RESTRICT key, hqc_i64 n, HQC_GLOBAL hqc_u32* HQC_RESTRICT flags) {
  HQC_WINDOW_ROWS(i, n) {
    if (i > 0 && key[i] != key[i - 1]) flags[i] = 1u;
  }
}

// out[i] = i at a head, 0 elsewhere: an inclusive max-scan then gives every row its segment's first row.
HQC_KERNEL void hqc_window_head_positions(HQC_GLOBAL const hqc_u32* HQC_RESTRICT flags, hqc_i64 n, HQC_GLOBAL hqc_i64* HQC_RESTRICT out) {
  HQC_WINDOW_ROWS(i, n) { out[i] = flags[i] != 0u ? i : 0; }
}

// out[i] = values[i] at a head, 0 elsewhere (RANK: the row number where the peer group starts).
HQC_KERNEL void hqc_window_select(HQC_GLOBAL const hqc_u32* HQC_RESTRICT flags, HQC_GLOBAL const hqc_i64* HQC_RESTRICT values, hqc_i64 n,
                                  HQC_GLOBAL hqc_i64* HQC_RESTRICT out) {
  HQC_WINDOW_ROWS(i, n) { out[i] = flags[i] != 0u ? values[i] : 0; }
}

// out[i] = flags[i] as a 64-bit integer (DENSE_RANK counts peer-group heads).
HQC_KERNEL void hqc_window_flags(HQC_GLOBAL const hqc_u32* HQC_RESTRICT flags, hqc_i64 n, HQC_GLOBAL hqc_i64* HQC_RESTRICT out) {
  HQC_WINDOW_ROWS(i, n) { out[i] = (hqc_i64)flags[i]; }
}

// The last row of every segment records itself at its segment's first row (`starts`: every row's
// segment start, from hqc_window_head_positions and a max-scan).
HQC_KERNEL void hqc_window_record_ends(HQC_GLOBAL const hqc_i64* HQC_RESTRICT starts, HQC_GLOBAL const hqc_u32* HQC_RESTRICT flags, hqc_i64 n,
                                       HQC_GLOBAL hqc_u32* HQC_RESTRICT end_at_start) {
  HQC_WINDOW_ROWS(i, n) {
    if (i == n - 1 || flags[i + 1] != 0u) end_at_start[starts[i]] = (hqc_u32)i;
  }
}

// ends[i] = the last row of row i's segment.
HQC_KERNEL void hqc_window_read_ends(HQC_GLOBAL const hqc_i64* HQC_RESTRICT starts, HQC_GLOBAL const hqc_u32* HQC_RESTRICT end_at_start, hqc_i64 n,
                                     HQC_GLOBAL hqc_u32* HQC_RESTRICT ends) {
  HQC_WINDOW_ROWS(i, n) { ends[i] = end_at_start[starts[i]]; }
}

// LAG / LEAD: out[i] = values[i + offset] and out_valid[i] = valid[i + offset] where row i + offset is
// in row i's partition (starts[i] <= i + offset <= ends[i]), else 0 and 0 (NULL); offset < 0 looks back.
HQC_KERNEL void hqc_window_shift(HQC_GLOBAL const hqc_i64* HQC_RESTRICT values, HQC_GLOBAL const hqc_i64* HQC_RESTRICT valid,
                                 HQC_GLOBAL const hqc_i64* HQC_RESTRICT starts, HQC_GLOBAL const hqc_u32* HQC_RESTRICT ends,
                                 hqc_i64 offset, hqc_i64 n, HQC_GLOBAL hqc_i64* HQC_RESTRICT out,
                                 HQC_GLOBAL hqc_i64* HQC_RESTRICT out_valid) {
  HQC_WINDOW_ROWS(i, n) {
    const hqc_i64 j = i + offset;
    const int inside = j >= starts[i] && j <= (hqc_i64)ends[i];
    out[i] = inside ? values[j] : 0;
    out_valid[i] = inside ? valid[j] : 0;
  }
}

// ROWS BETWEEN frames: row i sees rows lo..hi of its partition (starts[i]..ends[i]), lo = i + lo_off
// (the partition's first row when lo_unbounded), hi = i + hi_off (its last when hi_unbounded),
// clamped to the partition; none where lo > hi. `scanned` and `counted` are the partition's
// inclusive scans of the values and of their validities: a SUM or COUNT (op 0) is the difference of
// two scan entries (exact: integers), and so is a MIN or MAX (op 1, 2) whose frame starts at the
// partition's first row (the scan of MIN / MAX); other MIN / MAX frames read their rows one by one.
// out_count[i] counts the frame's non-NULL values (0: the aggregate is NULL).
HQC_KERNEL void hqc_window_rows_frame(HQC_GLOBAL const hqc_i64* HQC_RESTRICT scanned, HQC_GLOBAL const hqc_i64* HQC_RESTRICT counted,
                                      HQC_GLOBAL const hqc_i64* HQC_RESTRICT values, HQC_GLOBAL const hqc_i64* HQC_RESTRICT valid,
                                      HQC_GLOBAL const hqc_i64* HQC_RESTRICT starts, HQC_GLOBAL const hqc_u32* HQC_RESTRICT ends,
                                      hqc_i64 lo_off, hqc_i32 lo_unbounded, hqc_i64 hi_off, hqc_i32 hi_unbounded, hqc_i32 op, hqc_i64 n,
                                      HQC_GLOBAL hqc_i64* HQC_RESTRICT out, HQC_GLOBAL hqc_i64* HQC_RESTRICT out_count) {
  HQC_WINDOW_ROWS(i, n) {
    const hqc_i64 s = starts[i], e = (hqc_i64)ends[i];
    const hqc_i64 lo = lo_unbounded || i + lo_off < s ? s : i + lo_off;
    const hqc_i64 hi = hi_unbounded || i + hi_off > e ? e : i + hi_off;
    hqc_i64 value = 0, count = 0;
    if (lo <= hi && (op == 0 || lo == s)) {
      value = scanned[hi] - (op == 0 && lo > s ? scanned[lo - 1] : 0);
      count = counted[hi] - (lo > s ? counted[lo - 1] : 0);
    } else if (lo <= hi) {
      for (hqc_i64 j = lo; j <= hi; ++j) {
        if (valid[j] == 0) continue;
        if (count == 0 || (op == 1 ? values[j] < value : values[j] > value)) value = values[j];
        ++count;
      }
    }
    out[i] = value;
    out_count[i] = count;
  }
}

// out[order[i]] = in[i]: from window order back to result-row order (`order` is the sort's permutation).
HQC_KERNEL void hqc_window_scatter(HQC_GLOBAL const hqc_u32* HQC_RESTRICT order, HQC_GLOBAL const hqc_i64* HQC_RESTRICT in, hqc_i64 n,
                                   HQC_GLOBAL hqc_i64* HQC_RESTRICT out) {
  HQC_WINDOW_ROWS(i, n) { out[order[i]] = in[i]; }
}

// out[i] = i (the identity permutation the sort starts from).
HQC_KERNEL void hqc_window_iota(hqc_i64 n, HQC_GLOBAL hqc_u32* HQC_RESTRICT out) {
  HQC_WINDOW_ROWS(i, n) { out[i] = (hqc_u32)i; }
}
