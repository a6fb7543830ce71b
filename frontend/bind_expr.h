// Binding of JSON expressions against the attributes an operator's input provides: name
// resolution, literal parsing, type checking, implicit numeric promotion, and the rewrite of
// string comparisons on dictionary columns into code comparisons with run-time DictCode params.
//
// Contract: the result is a typed plan::Expr (frontend/expr.h) whose Column nodes all name an
// attribute of `scope`; errors are Error(Input) at the JSON path of the offending sub-expression
// (unknown or ambiguous columns with a suggestion, type mismatches, malformed literals).
// Expression syntax: docs/plan-format.md.
#pragma once

#include <vector>

#include "frontend/expr.h"
#include "frontend/json_reader.h"
#include "frontend/logical_plan.h"

namespace hqc::plan {

ExprPtr bind_expression(const JsonNode& node, const std::vector<Attribute>& scope);
// A predicate: bind_expression plus an Error unless the result is Bool.
ExprPtr bind_predicate(const JsonNode& node, const std::vector<Attribute>& scope);

// Result type of an aggregate over an argument of type `arg` (Error text in `why` when invalid).
bool aggregate_type(AggFunc f, const DataType* arg, DataType& result, std::string& why);

// Numeric type of a common operand for comparisons and CASE branches; false when incompatible.
bool is_numeric(const DataType& t);

}  // namespace hqc::plan
