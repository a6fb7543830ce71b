// Writing a program's output files (horseqc-compile, horseqc-inspect: -o DIR).
//
// Contract: write_output_file() leaves the file complete or absent — written under a temporary name
// (removed on failure or interrupt, storage/temp_files.h) and renamed into place; ensure_output_dir()
// creates DIR if absent. Either failing is Error(Input) naming the path and --output.
#pragma once

#include <filesystem>
#include <string>

namespace hqc::cli {

void write_output_file(const std::filesystem::path& path, const std::string& text);
void ensure_output_dir(const std::filesystem::path& dir);

}  // namespace hqc::cli
