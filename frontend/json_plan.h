// JSON plans (docs/plan-format.md, schema docs/plan.schema.json) → bound logical plan.
//
// Contract:
//   - never crashes on malformed input: JSON syntax errors report the byte offset, every other
//     error is an hqc::Error(Input) whose message starts with "<source>: <json path>: " and says
//     what was expected, e.g.
//       q.json: $.plan.input.input.predicate.left: unknown column "lo_quantiy" (did you mean "lo_quantity"?)
//   - the result is fully typed and resolved against `catalog` (see frontend/logical_plan.h);
//     string literals compared with dictionary columns become DictCode expressions.
//   - join types other than inner, and other constructs that parse but do not compile yet, are
//     accepted here and rejected by the IR builder with Error(Unsupported).
#pragma once

#include <string>

#include "frontend/logical_plan.h"
#include "storage/catalog.h"

namespace hqc::plan {

// `source_name` prefixes messages (a file name, or "<plan>").
LogicalPlan parse_json_plan(const std::string& json_text, const std::string& source_name, const Catalog& catalog);
// Reads the file and parses it; Error(Input) when the file cannot be read.
LogicalPlan load_json_plan(const std::string& path, const Catalog& catalog);

}  // namespace hqc::plan
