// Reading a query for the command-line programs: a JSON plan file (*.json) or SQL text (*.sql, or
// --sql), bound against a catalog chosen by --schema (ssb, tpch, or a JSON schema file) or, by
// default, the built-in catalog that knows every table the query names.
#pragma once

#include <memory>
#include <string>

#include "frontend/logical_plan.h"
#include "frontend/statistics.h"
#include "storage/catalog.h"

namespace hqc::driver {

// `schema`: "auto", "ssb", "tpch" or a path to a JSON schema (docs/schema-format.md).
// For "auto", the catalog is the built-in one holding every table named in the plan or query.
Catalog choose_catalog(const std::string& schema, const std::string& query_text, bool is_sql);

// Parses and binds a plan file (*.json) or a SQL file (anything else, usually *.sql). SQL joins are
// ordered from `stats` (loaded data), else from catalog estimates (frontend/join_order.h).
std::shared_ptr<const plan::LogicalPlan> load_query(const std::string& path, const Catalog& catalog,
                                                    const plan::Statistics* stats = nullptr);

bool is_json_plan_path(const std::string& path);

// Reads a whole file; Error(Input) naming it when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace hqc::driver
