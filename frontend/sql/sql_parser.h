// SQL text → horseqc SQL AST (frontend/sql/sql_ast.h), through libpg_query (PostgreSQL's own
// grammar): pg_query_parse gives a JSON parse tree, which this pass walks.
//
// Contract:
//   expects: one SELECT statement (a trailing ';' and comments are fine).
//   guarantees: an AST whose nodes all carry the byte offset of their source text; a simple CASE
//   is rewritten into searched form; `date '...'` becomes a DateLiteral and `interval 'n' unit`
//   an IntervalLiteral; `date` is accepted as a table name (SSB).
//   throws: Error(Input) "<source>:<line>:<col>: syntax error at or near ..." for text PostgreSQL
//   rejects; Error(Unsupported) naming the construct for valid SQL horseqc does not handle
//   (UNION, window functions, OFFSET, NATURAL/USING joins, recursive CTEs, ...).
#pragma once

#include <memory>

#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_source.h"

namespace hqc::sql {

std::shared_ptr<SelectStmt> parse_select(const SqlSource& source);

}  // namespace hqc::sql
