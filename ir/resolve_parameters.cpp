// Run-time parameter values for one database (ir/resolve_parameters.h).
#include "ir/resolve_parameters.h"

#include <algorithm>

#include "planner/sizing.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

int64_t capacity(const Param& p, const planner::Statistics& stats, const ParamValues& so_far) {
  const uint64_t source_rows = p.table.empty() && !p.factors.empty() ? static_cast<uint64_t>(so_far.at(p.factors[0])) : 0;
  return static_cast<int64_t>(capacity_terms(p, stats).slots(static_cast<double>(p.table.empty() ? source_rows : stats.rows(p.table))));
}

ColumnStats valid_stats(const Param& p, const planner::Statistics& stats) {
  ColumnStats s = stats.column(p.table, p.column);
  if (!s.valid) {
    throw Error(ErrorKind::Input, "parameter " + p.name + ": column " + p.table + "." + p.column +
                                      " has no min/max statistics (is the table empty?)");
  }
  return s;
}

}  // namespace

planner::CapacityTerms capacity_terms(const Param& p, const planner::Statistics& stats) {
  planner::CapacityTerms t;
  t.load_factor = p.load_factor;
  if (!p.table.empty() && p.predicate) t.per_row *= planner::estimate_selectivity(*p.predicate, p.table, stats);
  for (const auto& [table, predicate] : p.join_filters) t.per_row *= planner::estimate_selectivity(*predicate, table, stats);
  if (!p.distinct_columns.empty()) {
    t.groups = 1.0;
    for (const std::string& term : p.distinct_columns) t.groups *= static_cast<double>(planner::distinct_of_term(term, stats));
  }
  return t;
}

double capacity_estimate(const Param& p, const planner::Statistics& stats, uint64_t source_rows) {
  return capacity_terms(p, stats).estimate(static_cast<double>(p.table.empty() ? source_rows : stats.rows(p.table)));
}

ParamValues resolve_parameters(const Program& program, const planner::Statistics& stats) {
  ParamValues v;
  for (const Param& p : program.params) {
    int64_t value = 0;
    if (p.per_rank_range) v.per_rank_ranges[p.name] = {p.table, p.column, p.source == Param::Source::ColumnDomain};
    if ((p.source == Param::Source::Product || p.source == Param::Source::BitmapWords) &&
        std::any_of(p.factors.begin(), p.factors.end(),
                    [&](const std::string& f) { return v.per_rank_ranges.count(f) != 0 || v.per_rank_derived.count(f) != 0; }))
      v.per_rank_derived[p.name] = {p.source, p.factors};
    switch (p.source) {
      case Param::Source::RowCount: value = static_cast<int64_t>(stats.rows(p.table)); break;
      case Param::Source::ColumnMin: value = valid_stats(p, stats).min; break;
      case Param::Source::ColumnMax: value = valid_stats(p, stats).max; break;
      case Param::Source::ColumnDomain: {
        ColumnStats s = valid_stats(p, stats);
        value = s.max - s.min + 1;
        break;
      }
      case Param::Source::DictCode: value = stats.dictionary_code(p.table, p.column, p.literal, p.match); break;
      case Param::Source::Capacity:
        value = capacity(p, stats, v);
        if (p.per_rank && !p.table.empty()) v.per_rank[p.name] = {p.table, capacity_terms(p, stats)};
        if (!p.count_buffer.empty()) {
          ParamValues::Counted c{p.count_buffer, 1.0, p.load_factor};
          // No count_term: the count bounds the entries themselves (ir/pass_output_bounds.cpp).
          if (!p.count_term.empty())
            for (const std::string& term : p.distinct_columns)
              if (term != p.count_term) c.groups_per_count *= static_cast<double>(planner::distinct_of_term(term, stats));
          v.counted[p.name] = c;
        }
        break;
      case Param::Source::Product: {
        value = 1;
        for (const std::string& f : p.factors) {
          if (__builtin_mul_overflow(value, v.at(f), &value)) {
            throw Error(ErrorKind::Unsupported, "parameter " + p.name + ": the product of " + std::to_string(p.factors.size()) +
                                                    " factors overflows 64 bits");
          }
        }
        break;
      }
      case Param::Source::Sum: {
        value = 0;
        for (const std::string& f : p.factors) {
          if (__builtin_add_overflow(value, v.at(f), &value))
            throw Error(ErrorKind::Unsupported, "parameter " + p.name + ": the sum of " + std::to_string(p.factors.size()) + " terms overflows 64 bits");
        }
        break;
      }
      case Param::Source::BitmapWords: value = (v.at(p.factors.at(0)) + 31) / 32; break;
      case Param::Source::OutputRows: {
        const OutputTable* out = program.find_output(p.table);
        if (!out) throw Error(ErrorKind::Internal, "parameter " + p.name + " names unknown output " + p.table);
        value = v.at(out->capacity_param);
        break;
      }
      case Param::Source::OutputValue: value = 0; break;  // known once the writing pipeline ran (executor)
      case Param::Source::Constant: value = p.value; break;
    }
    v.values[p.name] = value;
  }
  // Heap strings travel as 32-bit row references (ir/state.h, "Heap strings").
  for (const Pipeline& pipeline : program.pipelines) {
    // Only a base table scan creates row references; a later stage over an aggregation or output
    // carries the ones the scan's pipeline made (and checked).
    if (pipeline.source.table.empty()) continue;
    for (const AttributeBinding& b : pipeline.attributes) {
      if (b.origin != AttributeBinding::Origin::SourceColumn || !b.attr.type.is_string() || !b.attr.dict_table.empty() || b.attr.type.packed)
        continue;
      if (stats.rows(pipeline.source.table) > 2147483647ull)
        throw Error(ErrorKind::Unsupported, pipeline.name + ": heap string " + pipeline.source.table + "." + b.attr.name +
                                                " is carried as a 32-bit row reference, but the table has " +
                                                std::to_string(stats.rows(pipeline.source.table)) + " rows");
    }
  }
  for (const Buffer& b : program.buffers) {
    if (b.fill != Buffer::Fill::CodeTable) continue;
    std::vector<int64_t> values = stats.dictionary_values(b.set_table, b.set_column, *b.per_code);
    if (values.size() < buffer_elements(b, v)) {
      throw Error(ErrorKind::Input, "buffer " + b.name + ": the dictionary of " + b.set_table + "." + b.set_column + " has " +
                                        std::to_string(values.size()) + " strings but codes up to " +
                                        std::to_string(buffer_elements(b, v) - 1));
    }
    v.contents[b.name] = std::move(values);
  }
  return v;
}

ParamValues resolve_parameters(const Program& program, const Database& db) {
  planner::DatabaseStatistics stats(db);
  return resolve_parameters(program, stats);
}

uint64_t buffer_elements(const Buffer& b, const ParamValues& values) {
  uint64_t n = b.fixed_elements;
  if (!b.elements_param.empty()) n += b.multiplier * static_cast<uint64_t>(values.at(b.elements_param));
  return n;
}

}  // namespace hqc::ir
