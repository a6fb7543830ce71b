// Storage layout of generated values; see column_builders.h for the contract.
#include "storage/generation/column_builders.h"

#include <algorithm>
#include <limits>

#include "storage/error.h"
#include "storage/generation/gen_workers.h"
#include "storage/parallel.h"

namespace hqc::gen {

namespace {

[[noreturn]] void unsupported_layout(const ColumnDef& def, const std::string& what) {
  throw Error(ErrorKind::Internal, "data generator: column " + def.name + " is declared " + def.type.to_string() +
                                       " (" + encoding_name(def.encoding) + ") in the catalog, but " + what);
}

Column empty_like(const ColumnDef& def) {
  Column c;
  c.name = def.name;
  c.type = def.type;
  c.encoding = def.type.is_string() ? def.encoding : Encoding::Plain;
  return c;
}

void require_string(const ColumnDef& def) {
  if (!def.type.is_string()) unsupported_layout(def, "the generator produces strings for it");
  if (def.encoding != Encoding::Dictionary && def.encoding != Encoding::Heap)
    unsupported_layout(def, "a string column must be Dictionary or Heap");
}

}  // namespace

const ColumnDef& column_def(const TableDef& table, const char* column) {
  const ColumnDef* c = table.find(column);
  if (!c) throw Error(ErrorKind::Internal, "data generator: the catalog has no column " + table.name + "." + column);
  return *c;
}

IntColumn::IntColumn(const ColumnDef& def, uint64_t rows, int64_t max_value, Allocation when)
    : column_(empty_like(def)), rows_(rows) {
  switch (def.type.id) {
    case TypeId::Int32:
    case TypeId::Date:
      if (max_value > std::numeric_limits<int32_t>::max())
        throw Error(ErrorKind::Unsupported, "data generator: column " + def.name + " is " + def.type.to_string() +
                                                " but needs values up to " + std::to_string(max_value) +
                                                " at this scale factor; use a smaller --sf");
      break;
    case TypeId::Int64:
    case TypeId::Decimal: break;
    default: unsupported_layout(def, "the generator produces integers for it");
  }
  skipped_ = when == Allocation::Skipped;
  if (when == Allocation::Now) allocate();
}

void IntColumn::allocate() {
  if (skipped_) return;
  if (column_.type.id == TypeId::Int32 || column_.type.id == TypeId::Date) {
    column_.i32.assign(rows_, 0);
    i32_ = column_.i32.data();
  } else {
    column_.i64.assign(rows_, 0);
    i64_ = column_.i64.data();
  }
}

void allocate_in_parallel(unsigned threads, const std::vector<IntColumn*>& columns) {
  parallel_for(columns.size(), threads, [&](size_t i) { columns[i]->allocate(); });
}

Column IntColumn::finish() {
  if (!skipped_) column_.compute_stats();
  return std::move(column_);
}

Column text_column(unsigned threads, const ColumnDef& def, uint64_t rows,
                   const std::function<size_t(uint64_t)>& length_of,
                   const std::function<void(uint64_t, char*)>& write) {
  require_string(def);
  Column c = empty_like(def);
  // Lengths first (parallel), then offsets (a serial prefix sum: one add per row), then the bytes
  // written in place (parallel): no per-row std::string for the hundreds of millions of comments.
  c.offsets.assign(rows + 1, 0);
  for_chunks(rows, threads, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) c.offsets[r + 1] = length_of(r);
  });
  for (uint64_t r = 0; r < rows; ++r) c.offsets[r + 1] += c.offsets[r];
  c.heap.resize(c.offsets[rows]);
  for_chunks(rows, threads, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) write(r, c.heap.data() + c.offsets[r]);
  });
  if (def.encoding == Encoding::Heap) {
    c.compute_stats();
    return c;
  }
  std::vector<std::string> values(rows);
  for (uint64_t r = 0; r < rows; ++r) values[r] = std::string(c.string_at(r));
  return make_dictionary_column(def.name, def.type, values);
}

Column vocabulary_column(unsigned threads, const ColumnDef& def, const std::vector<std::string_view>& vocabulary,
                         const std::vector<uint8_t>& index) {
  require_string(def);
  const uint64_t rows = index.size();
  if (def.encoding == Encoding::Heap)
    return text_column(
        threads, def, rows, [&](uint64_t r) { return vocabulary[index[r]].size(); },
        [&](uint64_t r, char* dst) { std::copy(vocabulary[index[r]].begin(), vocabulary[index[r]].end(), dst); });

  // Dictionary of the entries that occur, sorted; then one remapping table from vocabulary index to code.
  std::vector<bool> used(vocabulary.size(), false);
  for (uint8_t i : index) used[i] = true;
  std::vector<std::string_view> present;
  for (size_t i = 0; i < vocabulary.size(); ++i)
    if (used[i]) present.push_back(vocabulary[i]);
  std::sort(present.begin(), present.end());
  present.erase(std::unique(present.begin(), present.end()), present.end());
  Column c = empty_like(def);
  for (std::string_view s : present) c.dictionary.emplace_back(s);
  std::vector<int32_t> code_of(vocabulary.size(), -1);
  for (size_t i = 0; i < vocabulary.size(); ++i)
    if (used[i])
      code_of[i] = static_cast<int32_t>(std::lower_bound(present.begin(), present.end(), vocabulary[i]) - present.begin());
  c.i32.resize(rows);
  for_chunks(rows, threads, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) c.i32[r] = code_of[index[r]];
  });
  c.compute_stats();
  return c;
}

Column string_column(const ColumnDef& def, const std::vector<std::string>& values) {
  require_string(def);
  if (def.encoding == Encoding::Dictionary) return make_dictionary_column(def.name, def.type, values);
  return make_heap_column(def.name, def.type, values);
}

std::vector<Column> build_columns(unsigned threads, const std::vector<std::function<Column()>>& builders) {
  std::vector<Column> out(builders.size());
  parallel_for(builders.size(), threads, [&](size_t i) { out[i] = builders[i](); });
  return out;
}

Table assemble_table(const GenWorkers& workers, const TableDef& def, uint64_t rows, std::vector<Column>&& columns) {
  Table t;
  t.name = def.name;
  t.rows = rows;
  for (const ColumnDef& cd : def.columns) {
    auto it = std::find_if(columns.begin(), columns.end(), [&](const Column& c) { return c.name == cd.name; });
    if (!workers.keeps(def.name, cd.name)) {
      if (it != columns.end()) columns.erase(it);
      continue;
    }
    if (it == columns.end())
      throw Error(ErrorKind::Internal, "data generator: catalog column " + def.name + "." + cd.name + " is not generated");
    if (it->size() != rows)
      throw Error(ErrorKind::Internal, "data generator: column " + cd.name + " has " + std::to_string(it->size()) +
                                           " rows, table " + def.name + " has " + std::to_string(rows));
    t.columns.push_back(std::move(*it));
    columns.erase(it);
  }
  if (!columns.empty())
    throw Error(ErrorKind::Internal, "data generator: column " + columns.front().name + " is not in the catalog's " +
                                         def.name + " table");
  t.validate();
  return t;
}

}  // namespace hqc::gen
