// The TPC-H generator's column builders: the shared ones of storage/generation/column_builders.h,
// named in hqc::tpch so the table makers call them unqualified.
//
// Contract: as column_builders.h states (values → catalog layout, order-preserving dictionaries,
// statistics, Internal errors for a layout the generator cannot fill); nothing TPC-H-specific is added.
#pragma once

#include "storage/generation/column_builders.h"

namespace hqc::tpch {

using gen::assemble_table;
using gen::build_columns;
using gen::column_def;
using gen::IntColumn;
using gen::string_column;
using gen::text_column;
using gen::vocabulary_column;

}  // namespace hqc::tpch
