// The options and row-count arithmetic shared by the benchmark data generators (ssb/, tpch/).
//
// Contract: GenOptions is what a caller hands to hqc::ssb::generate or hqc::tpch::generate (both name
// it as their own GenOptions); the data is a pure function of (seed, sf), `threads` changes only the
// speed. scaled() is the "N(base·SF)" of the generators' cardinality formulas. check_scale_factor()
// throws hqc::Error(Usage) for an sf that is not a finite positive number.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>

namespace hqc::gen {

struct GenOptions {
  double sf = 1.0;           // scale factor, > 0
  uint64_t seed = 19920101;  // the default makes every horseqc installation agree
  unsigned threads = 0;      // 0: one per hardware thread
  // Called with (units done, units in all) over the whole database; each generator's header says what
  // a unit is. Serialized by the generator, `done` never decreases and ends equal to the total.
  // Optional.
  std::function<void(uint64_t, uint64_t)> progress;
  // The columns to keep, as "table.column"; empty: all of them. Every table is still generated row by
  // row with the same random draws (the kept values do not change), but a column not named is never
  // stored: a fact table far larger than memory fits when only the columns its queries read are kept
  // (horseqc-run --in-memory). A table none of whose columns is named keeps its row count only.
  std::set<std::string> columns;

  bool keeps(const std::string& table, const std::string& column) const {
    return columns.empty() || columns.count(table + "." + column) > 0;
  }
};

// N(base·sf): rounding to the nearest integer, at least 1.
uint64_t scaled(double base, double sf);

// `benchmark` names the data set in the message ("SSB", "TPC-H").
void check_scale_factor(const char* benchmark, double sf);

}  // namespace hqc::gen
