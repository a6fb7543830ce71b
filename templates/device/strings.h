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
// Case-mapped views: upper(s) / lower(s) of a heap string is the same byte range read through
// hqc_fold (ASCII letters only, as frontend/string_functions.h); the *_fold variants take the mode
// (HQC_FOLD_NONE/UPPER/LOWER) of each view, the plain functions read bytes as they are. TRIM narrows
// the range (hqc_trim_begin/end), as SUBSTRING does.
//
// String functions of packed values (upper, lower, trim, length, concat, strpos, replace) compute
// on the 64-bit value; their results are packed too (the binder bounds them by 7 bytes).
//
// Per-code tables: whatever a query computes from one dictionary column's string (LIKE, SUBSTRING,
// string functions, predicates over them) is evaluated on the host once per dictionary code
// (ir::Buffer::Fill::CodeTable); the kernel reads the entry of the row's code.
//
// Dates: day numbers (days since 1970-01-01) to civil year / month / day (proleptic Gregorian, valid
// for every int32 day number), the inverse of storage/date.h's days_from_civil.

// ---- loads: the byte range of this work-item's row (partial-tile rows read as the empty string)
// `base` is the heap position of the bytes argument's first byte (0 unless the scan streams the
// table in chunks: then the chunk's bytes start there and its offsets are still the whole heap's).

HQC_FN hqc_u64 hqc_load_str_begin(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 base, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return offsets[tile + HQC_LID()] - (hqc_u64)base;
  return HQC_LID() < tile_items ? offsets[tile + HQC_LID()] - (hqc_u64)base : 0u;
}
HQC_FN hqc_u64 hqc_load_str_end(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 base, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return offsets[tile + HQC_LID() + 1] - (hqc_u64)base;
  return HQC_LID() < tile_items ? offsets[tile + HQC_LID() + 1] - (hqc_u64)base : 0u;
}
// Predicated: rows whose flag is clear read as the empty string without touching memory.
HQC_FN hqc_u64 hqc_pred_load_str_begin(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 base, hqc_i64 tile, hqc_i32 flag) {
  return flag ? offsets[tile + HQC_LID()] - (hqc_u64)base : 0u;
}
HQC_FN hqc_u64 hqc_pred_load_str_end(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i64 base, hqc_i64 tile, hqc_i32 flag) {
  return flag ? offsets[tile + HQC_LID() + 1] - (hqc_u64)base : 0u;
}

// A heap string reached through a join: the range of row `row` (a row reference from a hash-table
// payload). Tuples with `valid` clear (no match) read as the empty string without touching memory.
HQC_FN hqc_u64 hqc_row_str_begin(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i32 row, hqc_i32 valid) {
  return valid ? offsets[row] : 0u;
}
HQC_FN hqc_u64 hqc_row_str_end(HQC_GLOBAL const hqc_u64* HQC_RESTRICT offsets, hqc_i32 row, hqc_i32 valid) {
  return valid ? offsets[row + 1] : 0u;
}

// ---- case mapping

#define HQC_FOLD_NONE 0
#define HQC_FOLD_UPPER 1
#define HQC_FOLD_LOWER 2

HQC_FN hqc_i32 hqc_fold(hqc_i32 c, hqc_i32 fold) {
  if (fold == HQC_FOLD_UPPER && c >= 'a' && c <= 'z') return c - ('a' - 'A');
  if (fold == HQC_FOLD_LOWER && c >= 'A' && c <= 'Z') return c + ('a' - 'A');
  return c;
}

// ---- TRIM: the range without leading / trailing spaces
HQC_FN hqc_u64 hqc_trim_begin(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end) {
  while (begin < end && bytes[begin] == ' ') ++begin;
  return begin;
}
HQC_FN hqc_u64 hqc_trim_end(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end) {
  while (end > begin && bytes[end - 1] == ' ') --end;
  return end;
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

HQC_FN hqc_i32 hqc_str_cmp_lit_fold(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i32 fold,
                                    HQC_CONST_STR lit, hqc_i32 lit_len) {
  hqc_u64 n = end - begin;
  hqc_u64 common = n < (hqc_u64)lit_len ? n : (hqc_u64)lit_len;
  for (hqc_u64 i = 0; i < common; ++i) {
    hqc_i32 a = hqc_fold(bytes[begin + i], fold);
    hqc_i32 b = (hqc_u8)lit[i];
    if (a != b) return a < b ? -1 : 1;
  }
  return n == (hqc_u64)lit_len ? 0 : (n < (hqc_u64)lit_len ? -1 : 1);
}
HQC_FN hqc_i32 hqc_str_cmp_lit(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, HQC_CONST_STR lit,
                               hqc_i32 lit_len) {
  return hqc_str_cmp_lit_fold(bytes, begin, end, HQC_FOLD_NONE, lit, lit_len);
}

HQC_FN hqc_i32 hqc_str_eq_lit_fold(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i32 fold,
                                   HQC_CONST_STR lit, hqc_i32 lit_len) {
  if (end - begin != (hqc_u64)lit_len) return 0;
  for (hqc_i32 i = 0; i < lit_len; ++i)
    if (hqc_fold(bytes[begin + (hqc_u64)i], fold) != (hqc_u8)lit[i]) return 0;
  return 1;
}
HQC_FN hqc_i32 hqc_str_eq_lit(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, HQC_CONST_STR lit,
                              hqc_i32 lit_len) {
  return hqc_str_eq_lit_fold(bytes, begin, end, HQC_FOLD_NONE, lit, lit_len);
}

// Two heap strings (of the same or different columns).
HQC_FN hqc_i32 hqc_str_cmp_fold(HQC_GLOBAL const hqc_u8* a, hqc_u64 a_begin, hqc_u64 a_end, hqc_i32 a_fold,
                                HQC_GLOBAL const hqc_u8* b, hqc_u64 b_begin, hqc_u64 b_end, hqc_i32 b_fold) {
  hqc_u64 na = a_end - a_begin, nb = b_end - b_begin;
  hqc_u64 common = na < nb ? na : nb;
  for (hqc_u64 i = 0; i < common; ++i) {
    hqc_i32 x = hqc_fold(a[a_begin + i], a_fold);
    hqc_i32 y = hqc_fold(b[b_begin + i], b_fold);
    if (x != y) return x < y ? -1 : 1;
  }
  return na == nb ? 0 : (na < nb ? -1 : 1);
}
HQC_FN hqc_i32 hqc_str_cmp(HQC_GLOBAL const hqc_u8* a, hqc_u64 a_begin, hqc_u64 a_end, HQC_GLOBAL const hqc_u8* b,
                           hqc_u64 b_begin, hqc_u64 b_end) {
  return hqc_str_cmp_fold(a, a_begin, a_end, HQC_FOLD_NONE, b, b_begin, b_end, HQC_FOLD_NONE);
}

// strpos(s, needle): the 1-based position of needle's first occurrence in s read through `fold`, 0
// when absent, 1 for an empty needle.
HQC_FN hqc_i64 hqc_str_position_fold(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i32 fold,
                                     HQC_CONST_STR needle, hqc_i32 needle_len) {
  for (hqc_u64 at = begin; at + (hqc_u64)needle_len <= end; ++at) {
    hqc_i32 i = 0;
    while (i < needle_len && hqc_fold(bytes[at + (hqc_u64)i], fold) == (hqc_u8)needle[i]) ++i;
    if (i == needle_len) return (hqc_i64)(at - begin) + 1;
  }
  return 0;
}
HQC_FN hqc_i64 hqc_str_position(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, HQC_CONST_STR needle, hqc_i32 needle_len) {
  return hqc_str_position_fold(bytes, begin, end, HQC_FOLD_NONE, needle, needle_len);
}

// ---- packed strings (at most HQC_PACKED_BYTES bytes)

#define HQC_PACKED_BYTES 7

// The bytes [begin, end) packed; the caller guarantees end - begin <= HQC_PACKED_BYTES.
// The loop stops at the string's end, not after a fixed HQC_PACKED_BYTES steps: see base.h's rule on
// counted loops (a fixed count here packed one match in four in a multi-match probe on PoCL).
HQC_FN hqc_i64 hqc_str_pack_fold(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i32 fold) {
  hqc_u64 v = 0;
  hqc_i32 n = 0;
  for (hqc_u64 at = begin; at < end && n < HQC_PACKED_BYTES; ++at, ++n) v = (v << 8) | (hqc_u64)hqc_fold(bytes[at], fold);
  return (hqc_i64)(v << (8 * (HQC_PACKED_BYTES - n)));  // left-aligned: n <= 7, so the shift is < 64
}
HQC_FN hqc_i64 hqc_str_pack(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end) {
  return hqc_str_pack_fold(bytes, begin, end, HQC_FOLD_NONE);
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
HQC_FN hqc_i32 hqc_str_cmp_packed_fold(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i32 fold, hqc_i64 packed) {
  const hqc_u64 n = end - begin;
  const hqc_i64 head = hqc_str_pack_fold(bytes, begin, n < HQC_PACKED_BYTES ? end : begin + HQC_PACKED_BYTES, fold);
  if (head != packed) return head < packed ? -1 : 1;
  return n > HQC_PACKED_BYTES ? 1 : 0;  // equal first bytes: a longer heap string sorts after
}
HQC_FN hqc_i32 hqc_str_cmp_packed(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i64 packed) {
  return hqc_str_cmp_packed_fold(bytes, begin, end, HQC_FOLD_NONE, packed);
}

// ---- string functions of packed values. Byte i (0-based) of a packed value sits in bits
// 8 * (6 - i) .. 8 * (6 - i) + 7; the bytes after its length are zero.

HQC_FN hqc_i32 hqc_packed_byte(hqc_i64 packed, hqc_i32 i) { return (hqc_i32)(((hqc_u64)packed >> (8 * (HQC_PACKED_BYTES - 1 - i))) & 0xff); }

HQC_FN hqc_i64 hqc_packed_length(hqc_i64 packed) {
  hqc_i64 n = 0;
  while (n < HQC_PACKED_BYTES && hqc_packed_byte(packed, (hqc_i32)n) != 0) ++n;
  return n;
}

// Appends byte c at position n (< HQC_PACKED_BYTES) of a packed value whose bytes from n on are zero.
HQC_FN hqc_i64 hqc_packed_put(hqc_i64 packed, hqc_i32 n, hqc_i32 c) {
  return (hqc_i64)((hqc_u64)packed | ((hqc_u64)(c & 0xff) << (8 * (HQC_PACKED_BYTES - 1 - n))));
}

// upper / lower: HQC_FOLD_UPPER or HQC_FOLD_LOWER.
HQC_FN hqc_i64 hqc_packed_fold(hqc_i64 packed, hqc_i32 fold) {
  hqc_i64 out = 0;
  for (hqc_i32 i = 0; i < HQC_PACKED_BYTES && hqc_packed_byte(packed, i) != 0; ++i) out = hqc_packed_put(out, i, hqc_fold(hqc_packed_byte(packed, i), fold));
  return out;
}

HQC_FN hqc_i64 hqc_packed_trim(hqc_i64 packed, hqc_i32 leading, hqc_i32 trailing) {
  hqc_i32 begin = 0, end = (hqc_i32)hqc_packed_length(packed);
  while (leading && begin < end && hqc_packed_byte(packed, begin) == ' ') ++begin;
  while (trailing && end > begin && hqc_packed_byte(packed, end - 1) == ' ') --end;
  hqc_i64 out = 0;
  for (hqc_i32 i = begin; i < end; ++i) out = hqc_packed_put(out, i - begin, hqc_packed_byte(packed, i));
  return out;
}

// a followed by b; the binder guarantees the two lengths sum to at most HQC_PACKED_BYTES.
HQC_FN hqc_i64 hqc_packed_concat(hqc_i64 a, hqc_i64 b) {
  const hqc_i64 n = hqc_packed_length(a);
  return n >= HQC_PACKED_BYTES ? a : (hqc_i64)((hqc_u64)a | ((hqc_u64)b >> (8 * n)));
}

HQC_FN hqc_i64 hqc_packed_position(hqc_i64 packed, HQC_CONST_STR needle, hqc_i32 needle_len) {
  const hqc_i32 n = (hqc_i32)hqc_packed_length(packed);
  for (hqc_i32 at = 0; at + needle_len <= n; ++at) {
    hqc_i32 i = 0;
    while (i < needle_len && hqc_packed_byte(packed, at + i) == (hqc_u8)needle[i]) ++i;
    if (i == needle_len) return at + 1;
  }
  return 0;
}

// Every `from` (from_len >= 1; an empty one leaves the value as it is) replaced by `to`, left to
// right without overlaps; the binder guarantees the result fits HQC_PACKED_BYTES.
HQC_FN hqc_i64 hqc_packed_replace(hqc_i64 packed, HQC_CONST_STR from, hqc_i32 from_len, HQC_CONST_STR to, hqc_i32 to_len) {
  if (from_len == 0) return packed;
  const hqc_i32 n = (hqc_i32)hqc_packed_length(packed);
  hqc_i64 out = 0;
  hqc_i32 m = 0, at = 0;
  while (at < n) {
    hqc_i32 i = 0;
    while (i < from_len && at + i < n && hqc_packed_byte(packed, at + i) == (hqc_u8)from[i]) ++i;
    if (i == from_len) {
      for (hqc_i32 j = 0; j < to_len && m < HQC_PACKED_BYTES; ++j) out = hqc_packed_put(out, m++, (hqc_u8)to[j]);
      at += from_len;
    } else {
      if (m < HQC_PACKED_BYTES) out = hqc_packed_put(out, m++, hqc_packed_byte(packed, at));
      ++at;
    }
  }
  return out;
}

// ---- per-code tables of dictionary columns (flags, integers, packed strings), computed on the host

HQC_FN hqc_i32 hqc_code_in_set(HQC_GLOBAL const hqc_i32* set, hqc_i32 code) { return set[code] != 0; }
HQC_FN hqc_i32 hqc_code_value_i32(HQC_GLOBAL const hqc_i32* table, hqc_i32 code) { return table[code]; }
HQC_FN hqc_i64 hqc_code_value(HQC_GLOBAL const hqc_i64* table, hqc_i32 code) { return table[code]; }

// ---- LIKE

// 1 when pattern bytes [p, p + len) match the string at `at` (`_` matches any byte); the caller
// guarantees at + len <= end.
HQC_FN hqc_i32 hqc_like_segment_at(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 at, hqc_i32 fold, HQC_CONST_STR pattern, hqc_i32 p,
                                   hqc_i32 len) {
  for (hqc_i32 i = 0; i < len; ++i) {
    hqc_u8 c = (hqc_u8)pattern[p + i];
    if (c != (hqc_u8)'_' && hqc_fold(bytes[at + (hqc_u64)i], fold) != c) return 0;
  }
  return 1;
}

// The first position in [pos, limit) whose byte is c0 and, when `pair`, whose next byte is c1; or
// limit. The caller guarantees that a position below limit has its next byte inside the string
// (limit <= end - 1 when `pair`). Reads the heap in aligned 8-byte words (a heap buffer is allocated
// to a multiple of 8 bytes: runtime/device/device_columns.cpp) and finds the bytes by the zero-byte
// test of (word ^ c0 x 0x01..01) | (the word shifted by a byte ^ c1 x 0x01..01): about one
// instruction per byte where the byte loop took several, and two bytes give far fewer candidates
// than one (TPC-H q13's '%special%requests%' scans ~50 bytes of every order comment, many an 's').
// Bytes before pos in the first word are masked; a match at or past limit (also in the padding)
// returns limit. Little-endian: byte i of a word is bits 8i..8i+7.
HQC_FN hqc_u64 hqc_find_start(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 pos, hqc_u64 limit, hqc_u8 c0, hqc_u8 c1, hqc_i32 pair) {
  if (pos >= limit) return limit;
  const hqc_u64 ones = 0x0101010101010101UL;
  const hqc_u64 first = ones * (hqc_u64)c0, second = ones * (hqc_u64)c1;
  HQC_GLOBAL const hqc_u64* words = (HQC_GLOBAL const hqc_u64*)bytes;
  hqc_u64 at = pos & ~(hqc_u64)7;
  const hqc_u32 skip = (hqc_u32)(pos & 7);
  // Bytes before pos made nonzero, so they never match.
  hqc_u64 before = skip != 0u ? (~(hqc_u64)0) >> (64u - 8u * skip) : (hqc_u64)0;
  hqc_u64 w = words[at >> 3];
  for (;;) {
    // The next word matters only for a match at byte 7 (at + 7 < limit), whose next byte is inside.
    const hqc_u64 next = pair && at + 8 <= limit ? words[(at >> 3) + 1] : (hqc_u64)0;
    const hqc_u64 x = (w ^ first) | (pair ? (((w >> 8) | (next << 56)) ^ second) : (hqc_u64)0) | before;
    const hqc_u64 zero = (x - ones) & ~x & (ones << 7);  // bit 7 of the lowest zero byte is exact
    if (zero != 0u) {
      // Byte index of the lowest flag: (flag >> 7) is 256^k; times 0x0001020304050607 puts k in the top byte.
      const hqc_u64 k = (((zero & (0u - zero)) >> 7) * 0x0001020304050607UL) >> 56;
      const hqc_u64 found = at + k;
      return found < limit ? found : limit;
    }
    at += 8;
    if (at >= limit) return limit;
    before = 0;
    w = pair ? next : words[at >> 3];
  }
}

// End (exclusive) of the segment starting at pattern position p: the next '%' or the pattern end.
HQC_FN hqc_i32 hqc_like_segment_end(HQC_CONST_STR pattern, hqc_i32 p, hqc_i32 pattern_len) {
  while (p < pattern_len && pattern[p] != '%') ++p;
  return p;
}

HQC_FN hqc_i32 hqc_like_fold(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, hqc_i32 fold, HQC_CONST_STR pattern,
                             hqc_i32 pattern_len) {
  // First segment: anchored at the start (the whole pattern when it has no '%').
  hqc_i32 seg_end = hqc_like_segment_end(pattern, 0, pattern_len);
  hqc_u64 n = end - begin;
  if (seg_end == pattern_len) return n == (hqc_u64)pattern_len && hqc_like_segment_at(bytes, begin, fold, pattern, 0, pattern_len);
  if ((hqc_u64)seg_end > n || !hqc_like_segment_at(bytes, begin, fold, pattern, 0, seg_end)) return 0;
  hqc_u64 pos = begin + (hqc_u64)seg_end;
  hqc_i32 p = seg_end + 1;  // after the '%'
  // Middle segments: each at its leftmost position from `pos` on.
  for (;;) {
    seg_end = hqc_like_segment_end(pattern, p, pattern_len);
    if (seg_end == pattern_len) break;  // [p, pattern_len) is the last segment
    hqc_i32 len = seg_end - p;
    hqc_i32 found = len == 0;
    // Candidates by their first byte (and the second, where it is one too), a word at a time.
    const hqc_u8 first = len > 0 ? (hqc_u8)pattern[p] : (hqc_u8)0;
    const hqc_u8 second = len > 1 ? (hqc_u8)pattern[p + 1] : (hqc_u8)'_';
    const hqc_i32 by_words = fold == HQC_FOLD_NONE && len > 0 && first != (hqc_u8)'_';
    const hqc_i32 pair = second != (hqc_u8)'_';
    while (!found && pos + (hqc_u64)len <= end) {
      if (by_words) {
        pos = hqc_find_start(bytes, pos, end - (hqc_u64)len + 1u, first, second, pair);
        if (pos + (hqc_u64)len > end) break;
      }
      if (hqc_like_segment_at(bytes, pos, fold, pattern, p, len)) found = 1;
      else ++pos;
    }
    if (!found) return 0;
    pos += (hqc_u64)len;
    p = seg_end + 1;
  }
  // Last segment: anchored at the end, not overlapping what the earlier segments consumed.
  hqc_i32 len = pattern_len - p;
  if ((hqc_u64)len > end - pos) return 0;
  return hqc_like_segment_at(bytes, end - (hqc_u64)len, fold, pattern, p, len);
}
HQC_FN hqc_i32 hqc_like(HQC_GLOBAL const hqc_u8* bytes, hqc_u64 begin, hqc_u64 end, HQC_CONST_STR pattern,
                        hqc_i32 pattern_len) {
  return hqc_like_fold(bytes, begin, end, HQC_FOLD_NONE, pattern, pattern_len);
}

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
// Day number of a civil date (Howard Hinnant's days_from_civil; storage/date.cpp on the host).
HQC_FN hqc_i32 hqc_days_from_civil(hqc_i64 y, hqc_i64 m, hqc_i64 d) {
  y -= m <= 2 ? 1 : 0;
  const hqc_i64 era = (y >= 0 ? y : y - 399) / 400;
  const hqc_i64 yoe = y - era * 400;
  const hqc_i64 doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  return (hqc_i32)(era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468);
}
HQC_FN hqc_i32 hqc_quarter_of_days(hqc_i32 days) { return (hqc_month_of_days(days) - 1) / 3 + 1; }
// Day of the week, 0 = Sunday (day 0, 1970-01-01, was a Thursday); day of the year, 1 = January 1st.
HQC_FN hqc_i32 hqc_dow_of_days(hqc_i32 days) { return (hqc_i32)((((hqc_i64)days % 7) + 11) % 7); }
HQC_FN hqc_i32 hqc_doy_of_days(hqc_i32 days) { return days - hqc_days_from_civil(hqc_year_of_days(days), 1, 1) + 1; }
// DATE_TRUNC: the first day of the date's year, quarter, month, ISO week (its Monday).
HQC_FN hqc_i32 hqc_trunc_year_days(hqc_i32 days) { return hqc_days_from_civil(hqc_year_of_days(days), 1, 1); }
HQC_FN hqc_i32 hqc_trunc_quarter_days(hqc_i32 days) {
  return hqc_days_from_civil(hqc_year_of_days(days), 3 * ((hqc_month_of_days(days) - 1) / 3) + 1, 1);
}
HQC_FN hqc_i32 hqc_trunc_month_days(hqc_i32 days) { return days - hqc_day_of_days(days) + 1; }
// date + n months: the day of month clamped to the length of the target month (1995-01-31 + 1 month
// is 1995-02-28), as PostgreSQL and DuckDB add an interval of months or years to a date.
HQC_FN hqc_i32 hqc_add_months_days(hqc_i32 days, hqc_i64 n) {
  const hqc_i64 months = (hqc_i64)hqc_year_of_days(days) * 12 + (hqc_month_of_days(days) - 1) + n;
  const hqc_i64 y = (months >= 0 ? months : months - 11) / 12, m = months - y * 12 + 1;
  const hqc_i64 length = hqc_days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) - hqc_days_from_civil(y, m, 1);
  const hqc_i64 d = hqc_day_of_days(days);
  return hqc_days_from_civil(y, m, d < length ? d : length);
}
HQC_FN hqc_i32 hqc_trunc_week_days(hqc_i32 days) { return days - (hqc_i32)((((hqc_i64)days % 7) + 10) % 7); }
