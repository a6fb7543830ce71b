// SQL window functions on the device over an assembled result (runtime/execution/window_stage.h).
#include "runtime/execution/window_stage.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "codegen/dialect.h"
#include "runtime/device/device_primitives.h"
#include "storage/error.h"
#include "templates/template_library.h"

namespace hqc::runtime {

namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;

bool has_order(const plan::WindowExpr& w) { return !w.order_by.empty(); }

// The distinct strings of a column, sorted byte-wise: a string's index is its order-preserving code.
std::vector<std::string> sorted_distinct(const ResultColumn& c) {
  std::vector<std::string> values;
  for (uint64_t r = 0; r < c.rows(); ++r)
    if (!c.is_null(r)) values.push_back(c.strings[r]);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

uint64_t string_code(const std::vector<std::string>& dictionary, const std::string& s) {
  return static_cast<uint64_t>(std::lower_bound(dictionary.begin(), dictionary.end(), s) - dictionary.begin());
}

// The order-preserving 64-bit keys of one ORDER BY / PARTITION BY column, most significant first:
// a NULL flag (only when the column has NULLs; 1 sorts NULLs last in both directions), then the
// value (two words for a 128-bit integer), complemented for DESC. NULL rows' value words are 0, so
// NULLs are peers of each other and form one partition.
std::vector<std::vector<uint64_t>> encode_key(const ResultColumn& c, bool descending) {
  const uint64_t n = c.rows();
  std::vector<std::vector<uint64_t>> keys;
  if (!c.valid.empty()) {
    std::vector<uint64_t> nulls(n);
    for (uint64_t r = 0; r < n; ++r) nulls[r] = c.is_null(r) ? 1 : 0;
    keys.push_back(std::move(nulls));
  }
  const size_t first_value = keys.size();
  if (c.type.is_string()) {
    const std::vector<std::string> dictionary = sorted_distinct(c);
    std::vector<uint64_t> k(n);
    for (uint64_t r = 0; r < n; ++r) k[r] = string_code(dictionary, c.strings[r]);
    keys.push_back(std::move(k));
  } else if (c.type.id == TypeId::Float64) {
    std::vector<uint64_t> k(n);
    for (uint64_t r = 0; r < n; ++r) {
      double v = c.floats[r] == 0 ? 0.0 : c.floats[r];  // -0.0 and 0.0 are peers
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      k[r] = (bits & kSignBit) ? ~bits : bits | kSignBit;
    }
    keys.push_back(std::move(k));
  } else if (!c.fits_int64()) {
    std::vector<uint64_t> high(n), low(n);
    for (uint64_t r = 0; r < n; ++r) {
      high[r] = static_cast<uint64_t>(c.highs[r]) ^ kSignBit;
      low[r] = static_cast<uint64_t>(c.ints[r]);
    }
    keys.push_back(std::move(high));
    keys.push_back(std::move(low));
  } else {
    std::vector<uint64_t> k(n);
    for (uint64_t r = 0; r < n; ++r) k[r] = static_cast<uint64_t>(c.ints[r]) ^ kSignBit;
    keys.push_back(std::move(k));
  }
  for (size_t i = first_value; i < keys.size(); ++i) {
    for (uint64_t r = 0; r < n; ++r) {
      if (descending) keys[i][r] = ~keys[i][r];
      if (c.is_null(r)) keys[i][r] = 0;
    }
  }
  return keys;
}

// What a window aggregate adds up: 64-bit values (NULLs replaced by the operation's identity),
// their 0/1 validities, and for strings the dictionary their codes index.
struct Argument {
  std::vector<int64_t> values;
  std::vector<int64_t> valid;
  std::vector<std::string> dictionary;
};

Argument encode_argument(const ResultColumn& c, const plan::WindowExpr& w) {
  const uint64_t n = c.rows();
  const int64_t identity = w.func == plan::WindowFunc::Min ? std::numeric_limits<int64_t>::max()
                           : w.func == plan::WindowFunc::Max ? std::numeric_limits<int64_t>::min() : 0;
  Argument a;
  a.values.resize(n);
  a.valid.resize(n);
  if (w.func == plan::WindowFunc::Count) {  // only whether each value is there
    for (uint64_t r = 0; r < n; ++r) a.valid[r] = c.is_null(r) ? 0 : 1;
    return a;
  }
  const bool shift = w.func == plan::WindowFunc::Lag || w.func == plan::WindowFunc::Lead;
  if (c.type.id == TypeId::Float64 && shift) {  // moved, never compared or added: the bits will do
    for (uint64_t r = 0; r < n; ++r) {
      a.valid[r] = c.is_null(r) ? 0 : 1;
      std::memcpy(&a.values[r], &c.floats[r], sizeof(double));
    }
    return a;
  }
  if (c.type.id == TypeId::Float64)
    throw Error(ErrorKind::Unsupported, "window " + w.name + ": " + plan::window_func_name(w.func) + " over a floating-point value is not supported");
  if (c.type.is_string()) a.dictionary = sorted_distinct(c);
  if (!c.type.is_string() && !c.fits_int64())
    throw Error(ErrorKind::Unsupported, "window " + w.name + ": its argument " + c.name + " has values beyond 64 bits");
  int128 magnitude = 0;
  for (uint64_t r = 0; r < n; ++r) {
    a.valid[r] = c.is_null(r) ? 0 : 1;
    if (c.is_null(r)) {
      a.values[r] = identity;
      continue;
    }
    a.values[r] = c.type.is_string() ? static_cast<int64_t>(string_code(a.dictionary, c.strings[r])) : c.ints[r];
    magnitude += a.values[r] < 0 ? -static_cast<int128>(a.values[r]) : static_cast<int128>(a.values[r]);
  }
  // The scans add in int64: exact when no partial sum can leave it, which this bound guarantees.
  if ((w.func == plan::WindowFunc::Sum || w.func == plan::WindowFunc::Avg) && magnitude > std::numeric_limits<int64_t>::max())
    throw Error(ErrorKind::Unsupported, "window " + w.name + ": the sum of |" + c.name + "| exceeds 64 bits; window sums are exact in 64 bits only");
  return a;
}

// The device side of one group of windows sharing PARTITION BY and ORDER BY.
class WindowOrder {
 public:
  WindowOrder(Backend& backend, const Module& module, uint64_t rows) : b_(backend), prims_(backend.primitives()), module_(module), n_(rows) {
    config_.block_size = 256;
    config_.grid_blocks = std::clamp<uint64_t>((n_ + config_.block_size - 1) / config_.block_size, 1, 4096);
  }

  // Sorts the rows by `keys` (most significant first) and marks partition and peer-group heads;
  // the first `partition_keys` keys partition.
  void sort(const std::vector<std::vector<uint64_t>>& keys, size_t partition_keys) {
    order_ = alloc(n_ * 4);
    launch("hqc_window_iota", {KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(order_)});
    std::vector<DeviceBuffer> uploaded;
    for (const std::vector<uint64_t>& k : keys) uploaded.push_back(upload(k));
    DeviceBuffer sorted = alloc(n_ * 8);
    for (size_t j = keys.size(); j-- > 0;) {
      prims_.gather(order_, uploaded[j], sorted, n_);
      prims_.stable_sort_by_key(sorted, order_, n_);
    }
    partition_heads_ = alloc(n_ * 4);
    peer_heads_ = alloc(n_ * 4);
    partition_heads_.fill_u32(0);
    const uint32_t one = 1;
    partition_heads_.upload(&one, 4, 0);
    for (size_t j = 0; j < keys.size(); ++j) {
      if (j == partition_keys) b_.copy_device(peer_heads_, partition_heads_, n_ * 4);
      prims_.gather(order_, uploaded[j], sorted, n_);
      launch("hqc_window_mark_changes",
             {KernelArg::buf(sorted), KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(j < partition_keys ? partition_heads_ : peer_heads_)});
    }
    if (keys.size() == partition_keys) b_.copy_device(peer_heads_, partition_heads_, n_ * 4);
  }

  // The window's values in result-row order, and (aggregates) how many non-NULL values its frame saw.
  std::pair<std::vector<int64_t>, std::vector<int64_t>> evaluate(const plan::WindowExpr& w, const Argument* arg) {
    using F = plan::WindowFunc;
    if (w.func == F::RowNumber || w.func == F::Rank || w.func == F::DenseRank) {
      DeviceBuffer out = alloc(n_ * 8);
      if (w.func == F::DenseRank) {
        DeviceBuffer flags = alloc(n_ * 8);
        launch("hqc_window_flags", {KernelArg::buf(peer_heads_), KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(flags)});
        prims_.segmented_inclusive_scan(partition_heads_, flags, out, n_, ScanOp::Sum);
      } else {
        DeviceBuffer& numbers = row_numbers();
        if (w.func == F::RowNumber) return {to_rows(numbers), {}};
        DeviceBuffer at_heads = alloc(n_ * 8);
        launch("hqc_window_select",
               {KernelArg::buf(peer_heads_), KernelArg::buf(numbers), KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(at_heads)});
        prims_.segmented_inclusive_scan(partition_heads_, at_heads, out, n_, ScanOp::Max);
      }
      return {to_rows(out), {}};
    }
    DeviceBuffer values = alloc(n_ * 8);
    DeviceBuffer valid = alloc(n_ * 8);
    if (w.func == F::CountStar) {
      values.fill_u64(1);
      valid.fill_u64(1);
    } else {
      DeviceBuffer v = upload(arg->values), ok = upload(arg->valid);
      prims_.gather(order_, v, values, n_);
      prims_.gather(order_, ok, valid, n_);
    }
    if (w.func == F::Lag || w.func == F::Lead) {
      const Segments& p = segments(partition_heads_, partitions_);
      DeviceBuffer shifted = alloc(n_ * 8), shifted_valid = alloc(n_ * 8);
      launch("hqc_window_shift", {KernelArg::buf(values), KernelArg::buf(valid), KernelArg::buf(p.starts), KernelArg::buf(p.ends),
                                  KernelArg::int64(w.func == F::Lag ? -w.offset : w.offset), KernelArg::int64(static_cast<int64_t>(n_)),
                                  KernelArg::buf(shifted), KernelArg::buf(shifted_valid)});
      return {to_rows(shifted), to_rows(shifted_valid)};
    }
    const ScanOp op = w.func == F::Min ? ScanOp::Min : w.func == F::Max ? ScanOp::Max : ScanOp::Sum;
    DeviceBuffer scanned = alloc(n_ * 8), counted = alloc(n_ * 8);
    prims_.segmented_inclusive_scan(partition_heads_, w.func == F::Count ? valid : values, scanned, n_, op);
    prims_.segmented_inclusive_scan(partition_heads_, valid, counted, n_, ScanOp::Sum);
    if (w.frame == plan::WindowFrame::Rows) {
      const Segments& p = segments(partition_heads_, partitions_);
      DeviceBuffer framed = alloc(n_ * 8), framed_count = alloc(n_ * 8);
      launch("hqc_window_rows_frame",
             {KernelArg::buf(scanned), KernelArg::buf(counted), KernelArg::buf(values), KernelArg::buf(valid), KernelArg::buf(p.starts),
              KernelArg::buf(p.ends), KernelArg::int64(w.frame_start), KernelArg::int32(w.start_unbounded ? 1 : 0),
              KernelArg::int64(w.frame_end), KernelArg::int32(w.end_unbounded ? 1 : 0),
              KernelArg::int32(op == ScanOp::Min ? 1 : op == ScanOp::Max ? 2 : 0), KernelArg::int64(static_cast<int64_t>(n_)),
              KernelArg::buf(framed), KernelArg::buf(framed_count)});
      return {to_rows(framed), to_rows(framed_count)};
    }
    // The frame's last row: the peer group's (RANGE with ORDER BY), the partition's (no ORDER BY,
    // or UNBOUNDED FOLLOWING), the row itself (ROWS).
    const DeviceBuffer* ends = nullptr;
    if (w.frame == plan::WindowFrame::WholePartition || (w.frame == plan::WindowFrame::RangeToCurrentRow && !has_order(w)))
      ends = &segments(partition_heads_, partitions_).ends;
    else if (w.frame == plan::WindowFrame::RangeToCurrentRow)
      ends = &segments(peer_heads_, peer_groups_).ends;
    if (ends != nullptr) {
      DeviceBuffer framed = alloc(n_ * 8), framed_count = alloc(n_ * 8);
      prims_.gather(*ends, scanned, framed, n_);
      prims_.gather(*ends, counted, framed_count, n_);
      return {to_rows(framed), to_rows(framed_count)};
    }
    return {to_rows(scanned), to_rows(counted)};
  }

 private:
  DeviceBuffer alloc(uint64_t bytes) { return b_.allocate(std::max<uint64_t>(bytes, 8)); }

  template <typename T>
  DeviceBuffer upload(const std::vector<T>& host) {
    DeviceBuffer d = alloc(host.size() * sizeof(T));
    if (!host.empty()) d.upload(host);
    return d;
  }

  void launch(const char* kernel, const std::vector<KernelArg>& args) { b_.launch(module_.kernel(kernel), args, config_); }

  DeviceBuffer& row_numbers() {
    if (!row_numbers_) {
      DeviceBuffer ones = alloc(n_ * 8);
      ones.fill_u64(1);
      row_numbers_ = alloc(n_ * 8);
      prims_.segmented_inclusive_scan(partition_heads_, ones, *row_numbers_, n_, ScanOp::Sum);
    }
    return *row_numbers_;
  }

  // Every row's segment's first row (int64) and last row (uint32), computed once per kind of segment.
  struct Segments {
    DeviceBuffer starts;
    DeviceBuffer ends;
  };
  const Segments& segments(const DeviceBuffer& heads, std::optional<Segments>& cached) {
    if (cached) return *cached;
    DeviceBuffer starts = alloc(n_ * 8);
    launch("hqc_window_head_positions", {KernelArg::buf(heads), KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(starts)});
    prims_.inclusive_scan(starts, starts, n_, ScanOp::Max);
    DeviceBuffer end_at_start = alloc(n_ * 4);
    launch("hqc_window_record_ends",
           {KernelArg::buf(starts), KernelArg::buf(heads), KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(end_at_start)});
    DeviceBuffer ends = alloc(n_ * 4);
    launch("hqc_window_read_ends",
           {KernelArg::buf(starts), KernelArg::buf(end_at_start), KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(ends)});
    cached = Segments{std::move(starts), std::move(ends)};
    return *cached;
  }

  std::vector<int64_t> to_rows(const DeviceBuffer& in_window_order) {
    DeviceBuffer rows = alloc(n_ * 8);
    launch("hqc_window_scatter",
           {KernelArg::buf(order_), KernelArg::buf(in_window_order), KernelArg::int64(static_cast<int64_t>(n_)), KernelArg::buf(rows)});
    return rows.download_as<int64_t>(n_);
  }

  Backend& b_;
  DevicePrimitives& prims_;
  const Module& module_;
  uint64_t n_;
  LaunchConfig config_;
  DeviceBuffer order_, partition_heads_, peer_heads_;
  std::optional<DeviceBuffer> row_numbers_;
  std::optional<Segments> partitions_, peer_groups_;
};

// The window's column: its values, NULL where an aggregate's frame had no non-NULL value or LAG /
// LEAD fell outside the partition or on a NULL.
ResultColumn window_column(const plan::WindowExpr& w, const ResultColumn* arg_column, const Argument* arg,
                           std::pair<std::vector<int64_t>, std::vector<int64_t>> computed) {
  using F = plan::WindowFunc;
  auto& [values, counts] = computed;
  ResultColumn out;
  out.name = w.name;
  out.type = w.type;
  const uint64_t n = values.size();
  if (w.func == F::Avg) {
    ResultColumn sum, count;
    sum.name = w.name;
    sum.type = arg_column->type;
    sum.ints = values;
    count.type = DataType::int64();
    count.ints = counts;
    for (uint64_t r = 0; r < n; ++r)
      if (counts[r] == 0) sum.set_null(r);
    return finalize_average(w.name, sum, count);
  }
  if (w.type.id == TypeId::Float64) {  // LAG / LEAD of a double: its bits
    out.floats.resize(n);
    for (uint64_t r = 0; r < n; ++r) std::memcpy(&out.floats[r], &values[r], sizeof(double));
  } else if (w.type.is_string()) {
    out.strings.resize(n);
    for (uint64_t r = 0; r < n; ++r)
      if (counts[r] != 0) out.strings[r] = arg->dictionary.at(static_cast<size_t>(values[r]));
  } else {
    out.ints = values;
  }
  if (w.func == F::Sum || w.func == F::Min || w.func == F::Max || w.func == F::Lag || w.func == F::Lead) {
    for (uint64_t r = 0; r < n; ++r)
      if (counts[r] == 0) out.set_null(r);
  }
  return out;
}

std::string order_signature(const plan::WindowExpr& w) {
  std::string s;
  for (const std::string& p : w.partition_by) s += "p:" + p + ";";
  for (const plan::SortKey& k : w.order_by) s += std::string(k.descending ? "d:" : "a:") + k.name + ";";
  return s;
}

}  // namespace

ModuleSource window_module(const Backend& backend) {
  const codegen::Dialect dialect = codegen::parse_dialect(backend.name());
  ModuleSource m;
  m.source = codegen::dialect_prelude(dialect) + templates::template_source("window/window.h");
  m.options = codegen::compile_options(dialect);
  m.kernel_names = {"hqc_window_mark_changes", "hqc_window_head_positions", "hqc_window_select", "hqc_window_flags",
                    "hqc_window_record_ends",  "hqc_window_read_ends",      "hqc_window_scatter", "hqc_window_iota",
                    "hqc_window_shift", "hqc_window_rows_frame"};
  m.label = "window functions (templates/window/window.h)";
  return m;
}

void apply_windows(Backend& backend, KernelCache* cache, const std::vector<plan::WindowExpr>& windows, Result& result) {
  if (windows.empty()) return;
  const uint64_t n = result.rows();
  if (n > kMaxPrimitiveElements)
    throw Error(ErrorKind::Unsupported, "window functions over " + std::to_string(n) + " rows: at most " + std::to_string(kMaxPrimitiveElements) + " rows are supported");
  // Inputs are read before any placeholder is replaced (a window never reads another's output).
  std::map<std::string, std::vector<size_t>> groups;  // windows by PARTITION BY / ORDER BY
  std::vector<std::string> group_order;
  for (size_t i = 0; i < windows.size(); ++i) {
    const std::string sig = order_signature(windows[i]);
    if (!groups.count(sig)) group_order.push_back(sig);
    groups[sig].push_back(i);
  }
  std::vector<std::optional<ResultColumn>> outputs(windows.size());
  if (n > 0) {
    std::shared_ptr<Module> module = backend.compile(window_module(backend), cache).module;
    for (const std::string& sig : group_order) {
      const plan::WindowExpr& first = windows[groups[sig].front()];
      std::vector<std::vector<uint64_t>> keys;
      size_t partition_keys = 0;
      for (const std::string& p : first.partition_by) {
        for (auto& k : encode_key(result.columns[result.index_of(p)], false)) keys.push_back(std::move(k));
      }
      partition_keys = keys.size();
      for (const plan::SortKey& o : first.order_by) {
        for (auto& k : encode_key(result.columns[result.index_of(o.name)], o.descending)) keys.push_back(std::move(k));
      }
      WindowOrder order(backend, *module, n);
      order.sort(keys, partition_keys);
      for (size_t i : groups[sig]) {
        const plan::WindowExpr& w = windows[i];
        const ResultColumn* arg_column = w.arg.empty() ? nullptr : &result.columns[result.index_of(w.arg)];
        std::optional<Argument> arg;
        if (arg_column) arg = encode_argument(*arg_column, w);
        outputs[i] = window_column(w, arg_column, arg ? &*arg : nullptr, order.evaluate(w, arg ? &*arg : nullptr));
      }
    }
  }
  for (size_t i = 0; i < windows.size(); ++i) {
    ResultColumn& placeholder = result.columns[result.index_of(windows[i].name)];
    if (outputs[i]) {
      placeholder = std::move(*outputs[i]);
    } else {  // no rows
      ResultColumn empty;
      empty.name = windows[i].name;
      empty.type = windows[i].type;
      placeholder = std::move(empty);
    }
  }
  result.validate();
}

}  // namespace hqc::runtime
