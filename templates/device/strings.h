// Dialect-neutral device library, layer 1b: heap strings, dictionary code sets and dates.
// Expects: base.h, tile.h; the prelude's hqc_u8 and HQC_CONST_STR (the address space of string
// literals: __constant in OpenCL, generic in CUDA).
//
// Heap strings. A heap string column is `offsets` (rows + 1 of them, hqc_u64) and `bytes`; the value
// of row r is the byte range [offsets[r], offsets[r + 1]) of `bytes`. A kernel holds a string as
// that range (begin, end) next to the column's byte pointer; SUBSTRING narrows the range, so no
// string is ever copied. Everything counts and compares bytes: `_` matches one byte, positions are
// byte positions and comparisons are unsigned byte order (memcmp), which equals character
// semantics for ASCII text such as TPC-H's.
//
// Literals (LIKE patterns, constants compared with strings) are C string literals in the generated
// source, passed with their length (they may contain any byte except NUL).
//
// LIKE: the pattern is literal segments separated by `%` (any run of bytes, also empty); inside a
// segment `_` matches exactly one byte; there is no escape character. Segments have a fixed length,
// so matching the first segment at the start, the last at the end, and every middle segment at its
// leftmost position after the previous one is exact (a later position never helps a later segment).
//
// Packed strings: a computed string of at most 7 bytes (SUBSTRING FOR n <= 7, a CASE of short
// literals) is a value, its bytes big-endian in bits 55..0 of an hqc_i64, zero-padded — the same
// packing as storage/types.h pack_string, so literals packed by the compiler compare with it. Integer
// order is byte order (no string has NUL bytes), and a packed value is never negative.
//
// Dictionary code sets: LIKE over a dictionary-encoded column is evaluated on the host into one flag
// per code (ir::Buffer::Fill::CodeSet); the kernel reads the flag of the row's code.
//
// Dates: day numbers (days since 1970-01-01) to civil year / month / day (proleptic Gregorian, valid
// for every int32 day number), the inverse of storage/date.h's days_from_civil.

// ---- loads: the byte range of this work-item's row (partial-tile rows read as the empty string)

HQC_FN hqc_u64 hqc_load_str_begin(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return offsets[tile + HQC_LID()];
  return HQC_LID() < tile_items ? offsets[tile + HQC_LID()] : 0u;
}
HQC_FN hqc_u64 hqc_load_str_end(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return offsets[tile + HQC_LID() + 1];
  return HQC_LID() < tile_items ? offsets[tile + HQC_LID() + 1] : 0u;
}
// Predicated: rows whose flag is clear read as the empty string without touching memory.
HQC_FN hqc_u64 hqc_pred_load_str_begin(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 tile, hqc_i32 flag) {
  return flag ? offsets[tile + HQC_LID()] : 0u;
}
HQC_FN hqc_u64 hqc_pred_load_str_end(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 tile, hqc_i32 flag) {
  return flag ? offsets[tile + HQC_LID() + 1] : 0u;
}

// A heap string reached through a join: the range of row `row` (a row reference from a hash-table
// payload). Tuples with `valid` clear (no match) read as the empty string without touching memory.
HQC_FN hqc_u64 hqc_row_str_begin(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i32 row, hqc_i32 valid) {
  return valid ? offsets[row] : 0u;
}
HQC_FN hqc_u64 hqc_row_str_end(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i32 row, hqc_i32 valid) {
  return valid ? offsets[row + 1] : 0u;
}

// ---- SUBSTRING(s FROM start FOR length), start >= 1 and length >= 1 (the binder guarantees both):
// the range clipped to the string, empty when start lies past its end.
HQC_FN hqc_u64 hqc_substr_begin(hqc_u64 begin, hqc_u64 end, hqc_i64 start) {
  hqc_u64 skip = (hqc_u64)(start - 1);
  return skip < end - begin ? begin + skip : end;
}
HQC_FN hqc_u64 hqc_substr_end(hqc_u64 begin, hqc_u64 end, hqc_i64 start, hqc_i64 length) {
  hqc_u64 first = hqc_substr_begin(begin, end, start);
  return (hqc_u64)length < end - first ? first + (hqc_u64)length : end;
}

// ---- comparisons: <0, 0, >0 as memcmp, a proper prefix sorting first

HQC_FN hqc_i32 hqc_str_cmp_lit(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, HQC_CONST_STR lit,
                               hqc_i32 lit_len) {
  hqc_u64 n = end - begin;
  hqc_u64 common = n < (hqc_u64)lit_len ? n : (hqc_u64)lit_len;
  for (hqc_u64 i = 0; i < common; ++i) {
    hqc_i32 a = bytes[begin + i];
    hqc_i32 b = (hqc_u8)lit[i];
    if (a != b) return a < b ? -1 : 1;
  }
  return n == (hqc_u64)lit_len ? 0 : (n < (hqc_u64)lit_len ? -1 : 1);
}

HQC_FN hqc_i32 hqc_str_eq_lit(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, HQC_CONST_STR lit,
                              hqc_i32 lit_len) {
  if (end - begin != (hqc_u64)lit_len) return 0;
  for (hqc_i32 i = 0; i < lit_len; ++i)
    if (bytes[begin + (hqc_u64)i] != (hqc_u8)lit[i]) return 0;
  return 1;
}

// Two heap strings (of the same or different columns).
HQC_FN hqc_i32 hqc_str_cmp(HQC_GLOBAL const hqc_u8* a, hqc_u64 a_begin, hqc_u64 a_end, HQC_GLOBAL const hqc_u8* b,
                           hqc_u64 b_begin, hqc_u64 b_end) {
  hqc_u64 na = a_end - a_begin, nb = b_end - b_begin;
  hqc_u64 common = na < nb ? na : nb;
  for (hqc_u64 i = 0; i < common; ++i) {
    hqc_i32 x = a[a_begin + i];
    hqc_i32 y = b[b_begin + i];
    if (x != y) return x < y ? -1 : 1;
  }
  return na == nb ? 0 : (na < nb ? -1 : 1);
}

// ---- packed strings (at most HQC_PACKED_BYTES bytes)

#define HQC_PACKED_BYTES 7

// The bytes [begin, end) packed; the caller guarantees end - begin <= HQC_PACKED_BYTES.
// The loop stops at the string's end, not after a fixed HQC_PACKED_BYTES steps: see base.h's rule on
// counted loops (a fixed count here packed one match in four in a multi-match probe on PoCL).
HQC_FN hqc_i64 hqc_str_pack(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end) {
  hqc_u64 v = 0;
  hqc_i32 n = 0;
  for (hqc_u64 at = begin; at < end && n < HQC_PACKED_BYTES; ++at, ++n) v = (v << 8) | (hqc_u64)bytes[at];
  return (hqc_i64)(v << (8 * (HQC_PACKED_BYTES - n)));  // left-aligned: n <= 7, so the shift is < 64
}

// SUBSTRING(packed FROM start FOR length), start >= 1 and length >= 1: drop start - 1 leading bytes,
// keep `length`.
HQC_FN hqc_i64 hqc_packed_substr(hqc_i64 packed, hqc_i64 start, hqc_i64 length) {
  if (start > HQC_PACKED_BYTES) return 0;
  const hqc_u64 all = ((hqc_u64)1 << (8 * HQC_PACKED_BYTES)) - 1;  // bits 55..0
  hqc_u64 v = ((hqc_u64)packed << (8 * (start - 1))) & all;
  if (length < HQC_PACKED_BYTES) v &= all ^ (((hqc_u64)1 << (8 * (HQC_PACKED_BYTES - length))) - 1);
  return (hqc_i64)v;
}

// A heap string against a packed value: <0, 0, >0 as hqc_str_cmp.
HQC_FN hqc_i32 hqc_str_cmp_packed(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i64 packed) {
  const hqc_u64 n = end - begin;
  const hqc_i64 head = hqc_str_pack(bytes, begin, n < HQC_PACKED_BYTES ? end : begin + HQC_PACKED_BYTES);
  if (head != packed) return head < packed ? -1 : 1;
  return n > HQC_PACKED_BYTES ? 1 : 0;  // equal first bytes: a longer heap string sorts after
}

// SUBSTRING of a dictionary column: the packed substring of each code, computed on the host.
HQC_FN hqc_i64 hqc_code_string(HQC_GLOBAL const hqc_i64* table, hqc_i32 code) { return table[code]; }

// ---- LIKE

// 1 when pattern bytes [p, p + len) match the string at `at` (`_` matches any byte); the caller
// guarantees at + len <= end.
HQC_FN hqc_i32 hqc_like_segment_at(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 at, HQC_CONST_STR pattern, hqc_i32 p,
                                   hqc_i32 len) {
  for (hqc_i32 i = 0; i < len; ++i) {
    hqc_u8 c = (hqc_u8)pattern[p + i];
    if (c != (hqc_u8)'_' && bytes[at + (hqc_u64)i] != c) return 0;
  }
  return 1;
}

// End (exclusive) of the segment starting at pattern position p: the next '%' or the pattern end.
HQC_FN hqc_i32 hqc_like_segment_end(HQC_CONST_STR pattern, hqc_i32 p, hqc_i32 pattern_len) {
  while (p < pattern_len && pattern[p] != '%') ++p;
  return p;
}

HQC_FN hqc_i32 hqc_like(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, HQC_CONST_STR pattern,
                        hqc_i32 pattern_len) {
  // First segment: anchored at the start (the whole pattern when it has no '%').
  hqc_i32 seg_end = hqc_like_segment_end(pattern, 0, pattern_len);
  hqc_u64 n = end - begin;
  if (seg_end == pattern_len) return n == (hqc_u64)pattern_len && hqc_like_segment_at(bytes, begin, pattern, 0, pattern_len);
  if ((hqc_u64)seg_end > n || !hqc_like_segment_at(bytes, begin, pattern, 0, seg_end)) return 0;
  hqc_u64 pos = begin + (hqc_u64)seg_end;
  hqc_i32 p = seg_end + 1;  // after the '%'
  // Middle segments: each at its leftmost position from `pos` on.
  for (;;) {
    seg_end = hqc_like_segment_end(pattern, p, pattern_len);
    if (seg_end == pattern_len) break;  // [p, pattern_len) is the last segment
    hqc_i32 len = seg_end - p;
    hqc_i32 found = len == 0;
    while (!found && pos + (hqc_u64)len <= end) {
      if (hqc_like_segment_at(bytes, pos, pattern, p, len)) found = 1;
      else ++pos;
    }
    if (!found) return 0;
    pos += (hqc_u64)len;
    p = seg_end + 1;
  }
  // Last segment: anchored at the end, not overlapping what the earlier segments consumed.
  hqc_i32 len = pattern_len - p;
  if ((hqc_u64)len > end - pos) return 0;
  return hqc_like_segment_at(bytes, end - (hqc_u64)len, pattern, p, len);
}

// ---- dictionary code sets

HQC_FN hqc_i32 hqc_code_in_set(HQC_GLOBAL const hqc_i32* set, hqc_i32 code) { return set[code] != 0; }

// ---- dates

// Civil date of a day number (Howard Hinnant's civil_from_days, in 64-bit integer arithmetic):
// eras of 400 years from 0000-03-01, years within an era starting in March.
HQC_FN hqc_i64 hqc_days_shifted(hqc_i32 days) { return (hqc_i64)days + 719468; }  // days since 0000-03-01
HQC_FN hqc_i64 hqc_days_era(hqc_i64 z) { return (z >= 0 ? z : z - 146096) / 146097; }
HQC_FN hqc_i64 hqc_days_year_of_era(hqc_i64 doe) { return (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; }
HQC_FN hqc_i64 hqc_days_day_of_year(hqc_i64 doe, hqc_i64 yoe) { return doe - (365 * yoe + yoe / 4 - yoe / 100); }

HQC_FN hqc_i32 hqc_year_of_days(hqc_i32 days) {
  const hqc_i64 z = hqc_days_shifted(days), era = hqc_days_era(z), doe = z - era * 146097;
  const hqc_i64 yoe = hqc_days_year_of_era(doe);
  const hqc_i64 mp = (5 * hqc_days_day_of_year(doe, yoe) + 2) / 153;  // month from March, [0, 11]
  return (hqc_i32)(yoe + era * 400 + (mp >= 10 ? 1 : 0));
}
HQC_FN hqc_i32 hqc_month_of_days(hqc_i32 days) {
  const hqc_i64 z = hqc_days_shifted(days), era = hqc_days_era(z), doe = z - era * 146097;
  const hqc_i64 mp = (5 * hqc_days_day_of_year(doe, hqc_days_year_of_era(doe)) + 2) / 153;
  return (hqc_i32)(mp < 10 ? mp + 3 : mp - 9);
}
HQC_FN hqc_i32 hqc_day_of_days(hqc_i32 days) {
  const hqc_i64 z = hqc_days_shifted(days), era = hqc_days_era(z), doe = z - era * 146097;
  const hqc_i64 doy = hqc_days_day_of_year(doe, hqc_days_year_of_era(doe));
  const hqc_i64 mp = (5 * doy + 2) / 153;
  return (hqc_i32)(doy - (153 * mp + 2) / 5 + 1);
}
