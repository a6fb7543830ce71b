// SQL LIKE patterns: their shape (which decides how a LIKE is evaluated) and the host matcher.
//
// Semantics, the same on the host and on the device (templates/device/strings.h): `%` matches any
// run of bytes (also empty), `_` exactly one byte, every other byte itself; there is no escape
// character. Matching is over bytes, so a multi-byte UTF-8 character is several bytes for `_`.
//
// Shapes:
//   Exact   no wildcard at all: LIKE 'abc' is = 'abc'
//   Prefix  a literal followed by one trailing '%' ('PROMO%'): on an order-preserving dictionary,
//           a contiguous range of codes
//   General anything else ('%BRASS', '%green%', 'a_c%')
#pragma once

#include <string>
#include <string_view>

namespace hqc::plan {

enum class LikeShape { Exact, Prefix, General };

// The shape of `pattern`; for Exact and Prefix, `literal` receives the literal text (without '%').
LikeShape classify_like(std::string_view pattern, std::string* literal);

// True when `text` matches `pattern` under the semantics above.
bool like_match(std::string_view text, std::string_view pattern);

}  // namespace hqc::plan
