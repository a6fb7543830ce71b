// Byte sizes on the command line ("4GiB", "512MiB", "1.5GB", "1048576").
//
// Contract: a non-negative number with an optional unit — B; KB, MB, GB, TB (powers of 1000); KiB,
// MiB, GiB, TiB (powers of 1024); case-insensitive, an optional space before the unit. Anything
// else throws Error(Usage) naming the option and the accepted forms; so does a size of 0 or one
// above 2^64.
#pragma once

#include <cstdint>
#include <string>

namespace hqc::cli {

uint64_t parse_byte_size(const std::string& text, const std::string& option);

}  // namespace hqc::cli
