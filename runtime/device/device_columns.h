// Device copies of host columns, uploaded once and shared by every pipeline and query that scans
// them (a dimension table's key column is read by the hash build of several queries).
//
// Contract:
//   - get() returns the device form of a column: one buffer with the physical values (int32 for
//     Int32/Date/dictionary codes, int64 for Int64/Decimal, double for Float64), or for a Heap
//     string column `values` = the uint64 offsets (rows + 1) and `heap` = the bytes.
//   - Narrowed columns (ir pass narrow_columns; `stored_bytes` 1, 2 or 4 of an Int32/Int64-backed
//     column): the values as signed integers of that width, converted as they are copied: into
//     the staging slots, or piece by piece into one kept pageable buffer of
//     StagingOptions::piece_bytes — never a host copy of the whole column, whose first-touch
//     faults cost more than its copy on the GPU hosts. Whether a narrowed column is staged is
//     decided by its host bytes (those the host reads to narrow it), as for any other column.
//     A value that does not fit fails the
//     upload with Error(Input) naming the column — the kernels were compiled for statistics that
//     this data contradicts — and nothing is kept; a value is never truncated. The narrowed copy is
//     an entry of its own ("table.column@bytes"), beside the full-width one if both are asked for.
//   - An entry is keyed by "table.column" and remembers the host vectors' address, length and a
//     fingerprint of sampled bytes; a Column that was replaced, resized or visibly rewritten is
//     uploaded again. A caller that rewrites column values in place (same address and length)
//     must call clear(): sampling cannot see every byte.
//   - Transfer time and bytes are accumulated, so the executor can report the transfer phase.
//   - Staged uploads: a buffer of at least StagingOptions::threshold bytes is not copied from
//     pageable memory (which the driver stages through a small bounce buffer at a fraction of the
//     link's rate) but through `slots` pinned staging buffers of `slot_bytes` each: host threads
//     copy piece i into slot i mod slots (memcpy split over up to `threads` threads) while the
//     asynchronous copy of piece i − 1 runs on that slot's own stream; a slot is refilled only
//     after its stream has drained. get() returns after every stream drained, so kernels launched
//     afterwards on any queue see the whole column. Pinning the slots costs about as much as
//     copying their size from pageable memory, so they are created only by get_all() for a batch
//     that uploads at least `batch_threshold` bytes, and kept; once they exist every buffer of at
//     least `threshold` bytes is staged. Smaller buffers and a threshold of 0 use the synchronous copy.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/device/backend.h"
#include "storage/column.h"

namespace hqc::runtime {

// A column's values in the physical form devices read (values, codes or heap offsets; not the heap).
struct HostColumnBytes {
  const void* data = nullptr;
  uint64_t bytes = 0;
  uint64_t rows = 0;
  uint32_t width() const { return rows == 0 ? 0 : static_cast<uint32_t>(bytes / rows); }
};
HostColumnBytes host_column_bytes(const Column& column);
// FNV-1a over 64 sampled windows of the bytes (all of them when small): notices a different data
// set at the same address and size without hashing everything.
uint64_t sampled_fingerprint(const HostColumnBytes& view);
// The width a column asked for in `stored_bytes` (ArgSpec::stored_bytes) has on the device: those
// bytes where they are fewer than its physical values' (an Int32/Int64-backed column), else 0 (its
// physical values; heap strings' offsets always). The one rule every narrowed size below follows.
unsigned narrowed_width(const Column& column, unsigned stored_bytes);
// Bytes of a column's values on the device (a heap string's offsets, not its bytes), narrowed where
// narrowed_width says so; device_bytes adds a heap string's bytes.
uint64_t device_value_bytes(const Column& column, unsigned stored_bytes = 0);
uint64_t device_bytes(const Column& column, unsigned stored_bytes = 0);
// Rows [first, first + count) of an Int32- or Int64-backed column's values (`view`) written to `out`
// as signed integers of `stored_bytes` (1, 2 or 4) each. Throws Error(Input) naming `what` where a
// value does not fit (what was written to `out` by then is meaningless), Error(Internal) for a
// width that is no narrowing of the view's.
void narrow_values(const HostColumnBytes& view, unsigned stored_bytes, uint64_t first, uint64_t count, void* out,
                   const std::string& what);
// Rows [first, first + count) so, in pieces of 2^18 rows on up to `threads` threads (0: all there are).
void narrow_values_parallel(const HostColumnBytes& view, unsigned stored_bytes, uint64_t first, uint64_t count, void* out,
                            const std::string& what, unsigned threads);

struct DeviceColumn {
  DeviceBuffer values;  // values, codes, or heap offsets
  DeviceBuffer heap;    // string bytes (Heap encoding only)
  uint64_t rows = 0;
};

struct StagingOptions {
  uint64_t threshold = uint64_t{32} << 20;         // host bytes of one buffer; 0 disables staging
  // Host bytes a get_all() batch must read before the slots are pinned (paid once). On the H200 host
  // a first upload through 3 x 16 MiB slots, pinning them included, took 26 ms for 256 MiB (pageable
  // 33 ms) and 57 ms for 720 MiB (3 x 64 MiB slots 134 ms, pageable 88 ms); later ones 9 and 32 ms
  // (bench/results/2026-12-01-h200-narrow-columns, upload-bench).
  uint64_t batch_threshold = uint64_t{256} << 20;
  uint64_t slot_bytes = uint64_t{16} << 20;
  unsigned slots = 3;
  // A narrowed column that is not staged is narrowed into one kept pageable buffer of this many
  // bytes at most and uploaded piece by piece.
  uint64_t piece_bytes = uint64_t{16} << 20;
  // Host threads per memcpy into a slot, at most the hardware threads (0: all of them). On the
  // 16-core H100 host 16 threads stage 2 GiB at 37 GB/s, 8 at 28, 4 at 20; the pinned ceiling is
  // 55 GB/s, pageable copies 8.6 (bench/upload-bench; bench/results/2026-11-22-h100-upload-bench).
  unsigned threads = 16;
};

class DeviceColumnCache {
 public:
  explicit DeviceColumnCache(Backend& backend, StagingOptions staging = {}) : backend_(backend), staging_(staging) {}

  // `stored_bytes`: 0 for the column's physical values, else the narrowed width (see the contract).
  const DeviceColumn& get(const std::string& table, const Column& column, unsigned stored_bytes = 0);
  // get() of every (table, column), after adding up the bytes that are not resident yet: a batch of
  // at least StagingOptions::batch_threshold bytes creates the staging slots. Columns of earlier
  // batches stay resident for later ones, but never at the batch's expense: while its uploads plus
  // `then_allocated` (the state the caller allocates next) exceed the device's free memory (or what
  // the memory limit leaves beside the resident columns), the columns it does not read are freed,
  // least recently used first (evictions() counts them).
  // A batch may ask for a column at one width only (Error(Internal) otherwise): the result is keyed
  // by (table, column).
  struct Request {
    std::string table;
    const Column* column = nullptr;
    unsigned stored_bytes = 0;
  };
  std::map<std::pair<std::string, std::string>, const DeviceColumn*> get_all(const std::vector<Request>& requests,
                                                                             uint64_t then_allocated = 0);
  // Device bytes horseqc may use (`--gpu-memory-limit`; 0: the device's free memory): get_all()
  // frees columns while the resident ones plus the batch's uploads and state would exceed it.
  void set_memory_limit(uint64_t bytes) { memory_limit_ = bytes; }
  void clear() { entries_.clear(); }
  // Frees the device copies of `table`'s columns (a table that is about to be streamed in chunks).
  void evict(const std::string& table);
  // Whether table.column is resident now, and the device bytes all entries hold.
  bool holds(const std::string& table, const std::string& column) const { return entries_.count(table + "." + column) > 0; }
  uint64_t bytes_held() const;

  double transfer_ms() const { return transfer_ms_; }
  uint64_t bytes_uploaded() const { return bytes_uploaded_; }
  uint64_t uploads() const { return uploads_; }
  uint64_t evictions() const { return evictions_; }  // columns freed to make room, since construction
  uint64_t staged_bytes() const { return staged_bytes_; }  // of bytes_uploaded(), through pinned slots
  void reset_counters() { transfer_ms_ = 0; bytes_uploaded_ = 0; uploads_ = 0; staged_bytes_ = 0; }

 private:
  struct Entry {
    DeviceColumn column;
    const void* host_data = nullptr;
    uint64_t host_bytes = 0;
    uint64_t fingerprint = 0;
    uint64_t last_used = 0;  // use_clock_ at its last get()
  };
  struct Slot {
    PinnedBuffer host;
    Stream stream;
  };
  // Copies `rows` values of `width` bytes from `host` into `target`, narrowed to `stored_bytes` each
  // where that is fewer (narrow_values; `what` names the column), staged through the slots when
  // large enough.
  void upload(DeviceBuffer& target, const void* host, uint64_t rows, unsigned width, unsigned stored_bytes,
              const std::string& what);
  bool resident(const std::string& key, const HostColumnBytes& view) const;
  // "table.column", or "table.column@bytes" for a narrowed copy.
  static std::string entry_key(const std::string& table, const Column& column, unsigned stored_bytes);
  // Frees columns not in `keep`, least recently used first, until `needed` bytes are free (of the
  // device's free memory, and of the memory limit beside the columns held).
  void make_room(uint64_t needed, const std::set<std::string>& keep);

  Backend& backend_;
  StagingOptions staging_;
  std::vector<Slot> slots_;  // created at the first staged upload
  std::unique_ptr<char[]> piece_;  // a narrowed column's pieces when it is not staged
  uint64_t piece_bytes_ = 0;
  uint64_t staged_bytes_ = 0;
  uint64_t batch_bytes_ = 0;  // of the get_all() in progress
  uint64_t memory_limit_ = 0;
  std::map<std::string, Entry> entries_;
  double transfer_ms_ = 0;
  uint64_t bytes_uploaded_ = 0;
  uint64_t uploads_ = 0;
  uint64_t evictions_ = 0;
  uint64_t use_clock_ = 0;
};

}  // namespace hqc::runtime
