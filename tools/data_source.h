// Where horseqc-run finds its data: an explicit --data directory, or the benchmark generated once at
// --sf into the user cache directory ($XDG_CACHE_HOME/horseqc/<ssb|tpch>/sf<X>, default
// ~/.cache/horseqc/...).
#pragma once

#include <filesystem>
#include <string>

namespace hqc::cli {

// The cache root: $XDG_CACHE_HOME/horseqc, else $HOME/.cache/horseqc.
std::filesystem::path cache_root();

// The directory holding the .tbl files of `benchmark` ("ssb" or "tpch") at scale factor `sf`;
// generates them there first when absent (complete or not at all: generated into a temporary
// directory renamed into place).
std::filesystem::path ensure_benchmark_data(const std::string& benchmark, double sf, bool quiet);
inline std::filesystem::path ensure_ssb_data(double sf, bool quiet) { return ensure_benchmark_data("ssb", sf, quiet); }

// About how many bytes the .tbl files of `benchmark` at `sf` take (measured: TPC-H 1.09 GB per SF,
// SSB 0.60 GB per SF); the columnar files take about as much.
uint64_t estimated_data_bytes(const std::string& benchmark, double sf);

// Refuses (Error Input, exit 3) before anything is written when the file system of `dir` (or of its
// nearest existing parent) has less free space than `bytes` and a margin; the message gives both.
void check_free_space(const std::filesystem::path& dir, uint64_t bytes, const std::string& what);

// "0.01" for 0.01, "10" for 10: the spelling used in directory names.
std::string format_sf(double sf);

}  // namespace hqc::cli
