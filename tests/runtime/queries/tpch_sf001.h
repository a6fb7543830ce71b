// The TPC-H database the runtime_queries tests run on: SF 0.01, generated once per test binary.
#pragma once

#include "storage/table.h"
#include "tpch/generator.h"

namespace hqc::test {

inline const Database& tpch_sf001() {
  static const Database db = [] {
    tpch::GenOptions o;
    o.sf = 0.01;
    o.threads = 2;
    return tpch::generate(o);
  }();
  return db;
}

}  // namespace hqc::test
