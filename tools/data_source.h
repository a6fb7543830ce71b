// Where horseqc-run finds its data: an explicit --data directory, or SSB generated once at --sf into
// the user cache directory ($XDG_CACHE_HOME/horseqc/ssb/sf<X>, default ~/.cache/horseqc/...).
#pragma once

#include <filesystem>
#include <string>

namespace hqc::cli {

// The cache root: $XDG_CACHE_HOME/horseqc, else $HOME/.cache/horseqc.
std::filesystem::path cache_root();

// The directory holding SSB .tbl files for scale factor `sf`; generates them there first when absent
// (complete or not at all: generated into a temporary directory renamed into place).
std::filesystem::path ensure_ssb_data(double sf, bool quiet);

// "0.01" for 0.01, "10" for 10: the spelling used in directory names.
std::string format_sf(double sf);

}  // namespace hqc::cli
