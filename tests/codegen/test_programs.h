// Hand-built IR programs for codegen tests, independent of the IR builder: small star-join queries
// shaped like SSB Q1.1 (filter + perfect-hash probe + scalar SUM), Q2.1 (probe + direct-indexed
// GROUP BY two keys), a materialization (filtered rows written out) and a hashed GROUP BY, over two
// toy tables:
//   dim(d_key i32 primary key, d_year i32)
//   fact(f_key i32 -> dim, f_qty i32, f_price i32, f_brand i32)
// Each builder takes the execution model (resolution: A3/B3/C3 with `local`; pipelined: A2/B2/C2)
// and the join hash layout, and fills Program::kernels like the fusion pass would.
#pragma once

#include "ir/program.h"

namespace hqc::test {

struct ProgramOptions {
  ir::ExecutionModel model = ir::ExecutionModel::Resolution;
  ir::LocalResolution local = ir::LocalResolution::WorkEfficient;
  ir::HashLayout join_layout = ir::HashLayout::PerfectHash;
  bool scratchpad = true;  // grouped aggregation privatised in scratchpad (C3) when resolution
};

// SELECT SUM(f_price * f_qty), COUNT(*) FROM fact, dim WHERE f_key = d_key AND d_year = 1993
//   AND f_qty BETWEEN 1 AND 3 + 20   (well: f_qty < 25 AND f_qty >= 1)
ir::Program scalar_join_program(const ProgramOptions& o);
// SELECT d_year, f_brand, SUM(f_price), MIN(f_price), MAX(f_price) FROM fact, dim
//   WHERE f_key = d_key AND f_qty < 40 GROUP BY d_year, f_brand   (direct-indexed)
ir::Program grouped_join_program(const ProgramOptions& o);
// SELECT f_key, f_price * 2 FROM fact WHERE f_qty < 10   (materialized)
ir::Program materialize_program(const ProgramOptions& o);
// SELECT f_key, SUM(f_price), COUNT(*) FROM fact WHERE f_qty >= 5 GROUP BY f_key   (hashed)
ir::Program hashed_group_program(const ProgramOptions& o);
// SELECT f_key, f_brand, SUM(f_price * 2^50) (128-bit), COUNT(*) FROM fact GROUP BY f_key, f_brand   (hashed, 2 keys)
ir::Program hashed_two_key_program(const ProgramOptions& o);

}  // namespace hqc::test
