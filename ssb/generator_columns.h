// The SSB generator's column builders: the shared ones of storage/generation/column_builders.h, named
// in hqc::ssb so the table makers call them unqualified.
//
// Contract: as column_builders.h states (values → catalog layout, order-preserving dictionaries,
// statistics, Internal errors for a layout the generator cannot fill); nothing SSB-specific is added.
#pragma once

#include "storage/generation/column_builders.h"

namespace hqc::ssb {

using gen::allocate_in_parallel;
using gen::assemble_table;
using gen::build_columns;
using gen::column_def;
using gen::IntColumn;
using gen::string_column;
using gen::vocabulary_column;

}  // namespace hqc::ssb
