// Distributed runs without MPI: where distribute() places merges and rank-0-only pipelines, rank_plan's
// row counts, and merge_state() on OpenCL (PoCL) buffers as rank 0 of two ranks whose other rank's
// contributions a scripted communicator supplies — each merge checked against the whole state computed
// by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>

#include <cstring>
#include <deque>

#include "runtime/device/backend.h"
#include "runtime/distributed/distributed_run.h"
#include "runtime/distributed/distribution.h"
#include "runtime/distributed/state_merge.h"
#include "runtime/execution/plan_state.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

PipelineSpec pipeline(const std::string& name, const std::string& table, const std::string& state, size_t sink_launches = 1) {
  PipelineSpec p;
  p.name = name;
  p.source_table = table;
  p.sink_state = state;
  p.launches.resize(sink_launches + 1);  // one compaction launch after the sink's
  p.sink_launches = sink_launches;
  return p;
}

StateMerge merge_of(const std::string& state, StateMerge::Kind kind) {
  StateMerge m;
  m.state = state;
  m.kind = kind;
  m.what = state;
  return m;
}

// Rank 0 of two; rank 1's part of each collective comes from `other`, in call order.
class ScriptedPeer final : public Communicator {
 public:
  std::deque<std::vector<unsigned char>> other;
  int rank() const override { return 0; }
  int size() const override { return 2; }
  int local_rank() const override { return 0; }
  std::string transport() const override { return "scripted"; }
  void barrier() override {}
  std::vector<std::vector<unsigned char>> all_gather(const std::vector<unsigned char>& bytes) override {
    return {bytes, next()};
  }
  void all_reduce_host(void* data, uint64_t count, ElementType type, Reduction op) override {
    const std::vector<unsigned char> theirs = next();
    REQUIRE(theirs.size() == count * element_bytes(type));
    REQUIRE(type == ElementType::I64);
    auto* mine = static_cast<int64_t*>(data);
    for (uint64_t i = 0; i < count; ++i) {
      int64_t t;
      std::memcpy(&t, theirs.data() + i * 8, 8);
      mine[i] = op == Reduction::Sum ? mine[i] + t : op == Reduction::Min ? std::min(mine[i], t) : std::max(mine[i], t);
    }
  }
  std::vector<std::vector<unsigned char>> all_to_all(const std::vector<std::vector<unsigned char>>& to) override {
    REQUIRE(to.size() == 2);
    sent = to[1];
    return {to[0], next()};  // rank 1's part for rank 0 comes from `other`
  }
  std::vector<unsigned char> sent;  // the last all_to_all's part for rank 1
  [[noreturn]] void abort(int) override { throw std::logic_error("abort"); }

 protected:
  void all_gather_host(const void* mine, const std::vector<uint64_t>& bytes, void* all) override {
    std::memcpy(all, mine, bytes[0]);
    const std::vector<unsigned char> theirs = next();
    REQUIRE(theirs.size() == bytes[1]);
    std::memcpy(static_cast<unsigned char*>(all) + bytes[0], theirs.data(), theirs.size());
  }

 private:
  std::vector<unsigned char> next() {
    REQUIRE(!other.empty());
    std::vector<unsigned char> v = other.front();
    other.pop_front();
    return v;
  }
};

std::vector<unsigned char> bytes_of(const std::vector<int64_t>& words) {
  std::vector<unsigned char> b(words.size() * 8);
  if (!words.empty()) std::memcpy(b.data(), words.data(), b.size());
  return b;
}

BufferSpec spec(const std::string& name, const std::string& per, uint64_t multiplier = 1, BufferSpec::Init init = BufferSpec::Init::Zero,
                uint64_t pattern = 0) {
  BufferSpec b;
  b.name = name;
  b.element = ElementType::I64;
  b.elements_param = per;
  b.multiplier = multiplier;
  b.fixed_elements = per.empty() ? multiplier : 0;
  b.init = init;
  b.pattern = pattern;
  return b;
}

}  // namespace

TEST_CASE("distribute: merges after the last partitioned writer, rank-0-only replicated writers, refusals") {
  ExecutablePlan plan;
  plan.label = "q";
  plan.model = "resolution";
  plan.pipelines = {pipeline("p0 build date", "date", "ht0"), pipeline("p1 lineorder arm", "lineorder", "out0"),
                    pipeline("p2 date arm", "date", "out0"), pipeline("p3 aggregate", "", "agg0"),
                    pipeline("p4 lineorder again", "lineorder", "agg1", 2)};
  plan.merges = {merge_of("out0", StateMerge::Kind::Rows), merge_of("agg0", StateMerge::Kind::Elementwise),
                 merge_of("agg1", StateMerge::Kind::HashedGroups)};
  const Distribution d = distribute(plan, {"lineorder"});
  CHECK(d.partitioned == std::vector<bool>{false, true, false, false, true});
  CHECK(d.rank0_only == std::vector<bool>{false, false, true, false, false});
  REQUIRE(d.merges_after[2].size() == 1);  // after the LAST writer of out0
  CHECK(d.merges_after[2][0]->state == "out0");
  CHECK(d.merges_after[1].empty());
  CHECK(d.merges_after[3].empty());  // agg0 is filled from merged state: the same on every rank
  REQUIRE(d.merges_after[4].size() == 1);
  CHECK(d.merges_after[4][0]->state == "agg1");
  CHECK(d.merges == 2);
  // One process's view: nothing partitioned, nothing merged.
  CHECK(distribute(plan, {}).merges == 0);

  SUBCASE("a hash table filled from a partition is a compiler bug") {
    plan.pipelines.push_back(pipeline("p5 build lineorder", "lineorder", "ht1"));
    CHECK_THROWS_WITH_AS(distribute(plan, {"lineorder"}), doctest::Contains("has no merge across ranks"), Error);
  }
  SUBCASE("an unmergeable state, row references into a partition, the library models are refused") {
    plan.merges[2].unsupported = "MIN/MAX of a 128-bit value (m) has no merge across ranks yet";
    CHECK_THROWS_WITH_AS(distribute(plan, {"lineorder"}), doctest::Contains("MIN/MAX of a 128-bit value"), Error);
    plan.merges[2].unsupported.clear();
    plan.merges[0].heap_tables = {"lineorder"};
    CHECK_THROWS_WITH_AS(distribute(plan, {"lineorder"}), doctest::Contains("row references"), Error);
    CHECK_NOTHROW(distribute(plan, {"orders"}));
    plan.model = "multi_pass";
    CHECK_THROWS_WITH_AS(distribute(plan, {"lineorder"}), doctest::Contains("runs on one device only"), Error);
  }
}

TEST_CASE("merge_state: rows shuffled by key — each row to one rank, the same rank for the same key at any width") {
  std::unique_ptr<Backend> backend = open_backend(DeviceChoice::OpenCL);
  ExecutablePlan plan;
  plan.label = "shuffle test";
  std::map<std::string, int64_t> params = {{"cap", 64}};
  // key (I64 or I32) and a payload, 64 rows: keys 1..64, payload 1000 + key.
  auto shuffle = [&](ElementType key_type, std::vector<int64_t>& kept_keys, std::vector<int64_t>& kept_payload,
                     std::vector<int64_t>& sent_keys, std::vector<int64_t>& sent_payload) {
    ScriptedPeer peer;
    BufferSpec key = spec("key", "cap");
    key.element = key_type;
    plan.buffers = {key, spec("pay", "cap"), spec("counter", "")};
    std::map<std::string, AllocatedBuffer> buffers = allocate_state(*backend, plan, params);
    std::vector<int64_t> keys, payload;
    for (int64_t k = 1; k <= 64; ++k) {
      keys.push_back(k);
      payload.push_back(1000 + k);
    }
    if (key_type == ElementType::I32) buffers.at("key").buffer.upload(std::vector<int32_t>(keys.begin(), keys.end()));
    else buffers.at("key").buffer.upload(keys);
    buffers.at("pay").buffer.upload(payload);
    buffers.at("counter").buffer.upload(std::vector<int64_t>{64});
    StateMerge m = merge_of("out0", StateMerge::Kind::Shuffle);
    m.counter_buffer = "counter";
    m.capacity_param = "cap";
    m.lanes = {{"key", StateMerge::Op::Sum, 1}, {"pay", StateMerge::Op::Sum, 1}};
    m.keys = {{"key", StateMerge::Op::Sum, 1}};
    // Rank 1 sends rank 0 two rows (keys 500, 501): its key lane's bytes, then its payload's.
    std::vector<unsigned char> theirs = key_type == ElementType::I32 ? std::vector<unsigned char>(8) : bytes_of({500, 501});
    if (key_type == ElementType::I32) {
      const int32_t k[2] = {500, 501};
      std::memcpy(theirs.data(), k, 8);
    }
    const std::vector<unsigned char> pay = bytes_of({1500, 1501});
    theirs.insert(theirs.end(), pay.begin(), pay.end());
    peer.other = {theirs};
    merge_state(peer, *backend, plan, m, buffers, params);
    const int64_t rows = buffers.at("counter").buffer.download_as<int64_t>(1)[0];
    const std::vector<int64_t> got_keys =
        key_type == ElementType::I32 ? [&] {
          const std::vector<int32_t> narrow = buffers.at("key").buffer.download_as<int32_t>(static_cast<uint64_t>(rows));
          return std::vector<int64_t>(narrow.begin(), narrow.end());
        }()
                                     : buffers.at("key").buffer.download_as<int64_t>(static_cast<uint64_t>(rows));
    const std::vector<int64_t> got_payload = buffers.at("pay").buffer.download_as<int64_t>(static_cast<uint64_t>(rows));
    // Received in rank order: this rank's own rows first, then rank 1's two.
    REQUIRE(rows >= 2);
    CHECK(std::vector<int64_t>(got_keys.end() - 2, got_keys.end()) == std::vector<int64_t>{500, 501});
    CHECK(std::vector<int64_t>(got_payload.end() - 2, got_payload.end()) == std::vector<int64_t>{1500, 1501});
    kept_keys.assign(got_keys.begin(), got_keys.end() - 2);
    kept_payload.assign(got_payload.begin(), got_payload.end() - 2);
    // What went to rank 1: whole rows, its key lane then its payload lane.
    const uint64_t key_bytes = key_type == ElementType::I32 ? 4 : 8, n = peer.sent.size() / (key_bytes + 8);
    REQUIRE(peer.sent.size() == n * (key_bytes + 8));
    sent_keys.clear();
    sent_payload.assign(n, 0);
    for (uint64_t i = 0; i < n; ++i) {
      int64_t k = 0;
      if (key_bytes == 4) {
        int32_t narrow;
        std::memcpy(&narrow, peer.sent.data() + i * 4, 4);
        k = narrow;
      } else {
        std::memcpy(&k, peer.sent.data() + i * 8, 8);
      }
      sent_keys.push_back(k);
    }
    if (n > 0) std::memcpy(sent_payload.data(), peer.sent.data() + n * key_bytes, n * 8);
  };
  std::vector<int64_t> kept64, pay64, sent64, spay64, kept32, pay32, sent32, spay32;
  shuffle(ElementType::I64, kept64, pay64, sent64, spay64);
  shuffle(ElementType::I32, kept32, pay32, sent32, spay32);
  // Every row exactly once, with its own payload; both ranks get some of 64 keys.
  std::vector<int64_t> all = kept64;
  all.insert(all.end(), sent64.begin(), sent64.end());
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(64);
  for (size_t i = 0; i < 64; ++i) expected[i] = static_cast<int64_t>(i) + 1;
  CHECK(all == expected);
  CHECK_FALSE(kept64.empty());
  CHECK_FALSE(sent64.empty());
  for (size_t i = 0; i < kept64.size(); ++i) CHECK(pay64[i] == 1000 + kept64[i]);
  for (size_t i = 0; i < sent64.size(); ++i) CHECK(spay64[i] == 1000 + sent64[i]);
  // The same keys as 32-bit values go to the same ranks (both sides of a join agree on them).
  CHECK(kept32 == kept64);
  CHECK(sent32 == sent64);
  CHECK(pay32 == pay64);
}

TEST_CASE("distribute: a shuffled output is the rank's share; only a partitioned pipeline may fill it") {
  ExecutablePlan plan;
  plan.label = "q";
  plan.model = "resolution";
  plan.pipelines = {pipeline("p0 materialize out0", "partsupp", "out0"), pipeline("p1 hash_build ht0", "", "ht0"),
                    pipeline("p2 materialize out1", "lineitem", "out1"), pipeline("p3 aggregate agg0", "", "agg0")};
  plan.pipelines[1].source_state = "out0";
  plan.pipelines[3].source_state = "out1";
  plan.merges = {merge_of("out0", StateMerge::Kind::Shuffle), merge_of("ht0", StateMerge::Kind::Local),
                 merge_of("out1", StateMerge::Kind::Shuffle), merge_of("agg0", StateMerge::Kind::Elementwise)};
  const Distribution d = distribute(plan, {"lineitem", "partsupp"});
  CHECK(d.partitioned == std::vector<bool>{true, true, true, true});
  REQUIRE(d.merges_after[0].size() == 1);
  CHECK(d.merges_after[0][0]->kind == StateMerge::Kind::Shuffle);
  CHECK(d.merges_after[1].empty());  // the build from the rows sent here stays here
  REQUIRE(d.merges_after[3].size() == 1);
  CHECK(d.merges_after[3][0]->state == "agg0");  // what the probe rows fill is partial: merged
  plan.pipelines[0].source_table = "nation";  // a replicated writer would send every row N times
  CHECK_THROWS_WITH_AS(distribute(plan, {"lineitem", "partsupp"}), doctest::Contains("without scanning a share"), Error);
}

TEST_CASE("distribute: a rank-local state is never merged; the pipeline materializing it is partitioned") {
  // Two-phase hashed aggregation (ir/two_phase_aggregation.cpp): partial groups, their rows, the final table.
  ExecutablePlan plan;
  plan.label = "q";
  plan.model = "resolution";
  plan.pipelines = {pipeline("p0 aggregate agg0_partial", "lineitem", "agg0_partial"), pipeline("p1 materialize", "", "out0"),
                    pipeline("p2 aggregate agg0", "", "agg0")};
  plan.pipelines[1].source_state = "agg0_partial";
  plan.pipelines[2].source_state = "out0";
  plan.merges = {merge_of("agg0_partial", StateMerge::Kind::Local), merge_of("agg0", StateMerge::Kind::HashedGroups),
                 merge_of("out0", StateMerge::Kind::Rows)};
  const Distribution d = distribute(plan, {"orders", "lineitem"});
  CHECK(d.partitioned == std::vector<bool>{true, true, false});
  CHECK(d.rank0_only == std::vector<bool>{false, false, false});
  CHECK(d.merges_after[0].empty());  // the partial groups stay on their rank
  REQUIRE(d.merges_after[1].size() == 1);
  CHECK(d.merges_after[1][0]->state == "out0");
  CHECK(d.merges_after[2].empty());  // the final table is the same on every rank: no host merge
  CHECK(d.merges == 1);
  // Not partitioned: nothing is, nothing merged.
  const Distribution one = distribute(plan, {});
  CHECK(one.partitioned == std::vector<bool>{false, false, false});
  CHECK(one.merges == 0);

  SUBCASE("only a materialization into a merged output may read a rank-local state") {
    plan.pipelines[1].sink_state = "agg0";
    plan.pipelines.pop_back();
    CHECK_THROWS_WITH_AS(distribute(plan, {"lineitem"}), doctest::Contains("neither materializes its groups"), Error);
  }
  SUBCASE("groups by the partition key may be built into a rank-local join table (ir/rank_local_groups.cpp)") {
    plan.pipelines[1] = pipeline("p1 hash_build ht0", "", "ht0");
    plan.pipelines[1].source_state = "agg0_partial";
    plan.pipelines[2] = pipeline("p2 aggregate agg1", "lineitem", "agg1");
    plan.merges = {merge_of("agg0_partial", StateMerge::Kind::Local), merge_of("ht0", StateMerge::Kind::Local),
                   merge_of("agg1", StateMerge::Kind::Elementwise)};
    const Distribution kept = distribute(plan, {"orders", "lineitem"});
    CHECK(kept.partitioned == std::vector<bool>{true, true, true});  // the build reads the rank's groups
    CHECK(kept.merges_after[0].empty());
    CHECK(kept.merges_after[1].empty());
    REQUIRE(kept.merges_after[2].size() == 1);
    CHECK(kept.merges == 1);
  }
  SUBCASE("every writer of a rank-local state scans a partition") {
    plan.pipelines.push_back(pipeline("p3 replicated writer", "nation", "agg0_partial"));
    CHECK_THROWS_WITH_AS(distribute(plan, {"lineitem"}), doctest::Contains("without scanning a partition"), Error);
  }
}

TEST_CASE("rank_plan: scans of a partitioned table count the rank's rows, nothing else changes") {
  ExecutablePlan plan;
  plan.params = {{"rows_lineorder", 6000, "lineorder"}, {"rows_date", 2556, "date"}, {"ht0_capacity", 4096, ""}};
  const ExecutablePlan mine = rank_plan(plan, {{"lineorder", 1500}});
  CHECK(mine.params[0].value == 1500);
  CHECK(mine.params[1].value == 2556);
  CHECK(mine.params[2].value == 4096);
}

TEST_CASE("rank_plan: a capacity sized per rank is sized for the rank's rows, bounded by its groups") {
  ExecutablePlan plan;
  ParamSpec rows_bound{"agg0_partial_capacity", 1 << 20, "", PerRankCapacity{"lineitem", {0.25, 0, 0.5}}};
  ParamSpec groups_bound{"agg1_partial_capacity", 1 << 20, "", PerRankCapacity{"lineitem", {1.0, 3000, 0.5}}};
  ParamSpec elsewhere{"agg2_partial_capacity", 1 << 20, "", PerRankCapacity{"orders", {1.0, 0, 0.5}}};
  plan.params = {rows_bound, groups_bound, elsewhere};
  const ExecutablePlan mine = rank_plan(plan, {{"lineitem", 100000}});
  CHECK(mine.params[0].value == 65536);  // 25,000 rows / 0.5 -> the next power of two
  CHECK(mine.params[1].value == 8192);   // min(100,000, 3,000 groups) / 0.5
  CHECK(mine.params[2].value == 1 << 20);  // orders is not partitioned here: unchanged
  const ExecutablePlan empty = rank_plan(plan, {{"lineitem", 0}});
  CHECK(empty.params[0].value == 16);  // hash_capacity's least table
}

TEST_CASE("rank_plan: a rank-local table's key placement spans the share's keys, and what is computed from it follows") {
  ExecutablePlan plan;
  ParamSpec key_min{"ht0_key_min", 1, "", std::nullopt, PerRankKeyRange{"orders", "o_orderkey", false}, std::nullopt};
  ParamSpec slots{"ht0_slots", 6000000, "", std::nullopt, PerRankKeyRange{"orders", "o_orderkey", true}, std::nullopt};
  ParamSpec words{"ht0_bitmap_words", 187500, "", std::nullopt, std::nullopt, PerRankDerived{true, {"ht0_slots"}}};
  ParamSpec other{"agg0_l_orderkey_domain", 6000000, "", std::nullopt, PerRankKeyRange{"lineitem", "l_orderkey", true}, std::nullopt};
  ParamSpec product{"agg0_slots", 6000000 * 7, "", std::nullopt, std::nullopt, PerRankDerived{false, {"agg0_l_orderkey_domain", "seven"}}};
  ParamSpec seven{"seven", 7, "", std::nullopt};
  plan.params = {key_min, slots, words, seven, other, product};
  // Computing the ranges from a share's rows: the smallest and largest key it holds.
  Database share;
  Table orders;
  orders.name = "orders";
  orders.rows = 3;
  Column c;
  c.name = "o_orderkey";
  c.type = DataType::int32();
  c.i32 = {3000001, 3000033, 3999971};
  orders.columns.push_back(c);
  share.tables["orders"] = orders;
  Table lineitem;  // an empty share
  lineitem.name = "lineitem";
  c.name = "l_orderkey";
  c.i32.clear();
  lineitem.columns.push_back(c);
  share.tables["lineitem"] = lineitem;
  const LocalKeyRanges ranges = share_key_ranges(share, per_rank_range_columns(plan));
  REQUIRE(ranges.size() == 2);
  CHECK(ranges.at({"orders", "o_orderkey"}).min == 3000001);
  CHECK(ranges.at({"orders", "o_orderkey"}).max == 3999971);
  const ExecutablePlan mine = rank_plan(plan, {}, ranges);
  CHECK(mine.params[0].value == 3000001);
  CHECK(mine.params[1].value == 999971);
  CHECK(mine.params[2].value == (999971 + 31) / 32);
  CHECK(mine.params[3].value == 7);
  CHECK(mine.params[4].value == 1);  // the empty share: one slot
  CHECK(mine.params[5].value == 7);
  // Without ranges every placement keeps the whole table's.
  const ExecutablePlan whole = rank_plan(plan, {}, {});
  for (size_t i = 0; i < plan.params.size(); ++i) CHECK(whole.params[i].value == plan.params[i].value);
}

TEST_CASE("rank_plan: a split key's bounds give each rank a disjoint slice, the ends open, the same whatever the share") {
  ExecutablePlan plan;
  ParamSpec key_min{"agg0_c_custkey_min", 1, "", std::nullopt};
  ParamSpec domain{"agg0_c_custkey_domain", 150000, "", std::nullopt};
  // A rank-local placement of the same name would differ per rank: the split reads the whole table's.
  ParamSpec lo{"agg0_split_c_custkey_lo", INT32_MIN, "", std::nullopt};
  lo.per_rank_split = PerRankSplit{"agg0_c_custkey_min", "agg0_c_custkey_domain", false};
  ParamSpec hi{"agg0_split_c_custkey_hi", INT32_MAX, "", std::nullopt};
  hi.per_rank_split = PerRankSplit{"agg0_c_custkey_min", "agg0_c_custkey_domain", true};
  plan.params = {key_min, domain, lo, hi};
  std::vector<std::pair<int64_t, int64_t>> slices;
  for (unsigned r = 0; r < 3; ++r) {
    const ExecutablePlan mine = rank_plan(plan, {{"lineitem", 10}}, {}, r, 3);
    slices.push_back({mine.params[2].value, mine.params[3].value});
  }
  CHECK(slices[0] == std::pair<int64_t, int64_t>{INT32_MIN, 50000});  // keys 1..50,000
  CHECK(slices[1] == std::pair<int64_t, int64_t>{50001, 100000});
  CHECK(slices[2] == std::pair<int64_t, int64_t>{100001, INT32_MAX});
  // One rank (and one process): every key.
  const ExecutablePlan alone = rank_plan(plan, {}, {}, 0, 1);
  CHECK(alone.params[2].value == INT32_MIN);
  CHECK(alone.params[3].value == INT32_MAX);
  // More ranks than keys: some slices are empty, none overlaps, every key is someone's.
  plan.params[1].value = 2;
  int64_t next = 1;
  for (unsigned r = 0; r < 4; ++r) {
    const ExecutablePlan mine = rank_plan(plan, {}, {}, r, 4);
    const int64_t a = std::max<int64_t>(mine.params[2].value, 1), b = std::min<int64_t>(mine.params[3].value, 2);
    if (a > b) continue;
    CHECK(a == next);
    next = b + 1;
  }
  CHECK(next == 3);
}

TEST_CASE("distribute: phase 2 split across ranks works on the rank's part; its compacted rows merge after the compaction") {
  ExecutablePlan plan;
  plan.pipelines.resize(3);
  plan.pipelines[0] = pipeline("p0 aggregate agg0_partial", "lineitem", "agg0_partial");
  plan.pipelines[1] = pipeline("p1 materialize out0", "", "out0");
  plan.pipelines[1].source_state = "agg0_partial";
  plan.pipelines[2] = pipeline("p2 aggregate agg0", "", "agg0", 1);
  plan.pipelines[2].source_state = "out0";
  plan.pipelines[2].launches.resize(3);  // the sink's, then the compaction's two
  StateMerge dense = merge_of("agg0", StateMerge::Kind::Rows);
  dense.after_compaction = true;
  plan.merges = {merge_of("agg0_partial", StateMerge::Kind::Local), merge_of("out0", StateMerge::Kind::Rows), dense};
  SUBCASE("split") {
    plan.pipelines[2].rank_split = true;
    const Distribution d = distribute(plan, {"lineitem"});
    CHECK(d.partitioned == std::vector<bool>{true, true, true});
    REQUIRE(d.merges_after[2].size() == 1);
    CHECK(d.merges_after[2][0]->state == "agg0");
    CHECK(d.exchange_after == std::vector<size_t>{0, 0, 2});  // after the last launch, the compaction's
  }
  SUBCASE("not split: the same on every rank, nothing merged") {
    const Distribution d = distribute(plan, {"lineitem"});
    CHECK(d.partitioned == std::vector<bool>{true, true, false});
    CHECK(d.merges_after[2].empty());
    CHECK(d.exchange_after[2] == 0);
  }
}

TEST_CASE("merge_state on the device: elementwise, hashed groups, rows") {
  std::unique_ptr<Backend> backend = open_backend(DeviceChoice::OpenCL);
  ScriptedPeer peer;
  ExecutablePlan plan;
  plan.label = "merge test";
  std::map<std::string, int64_t> params;
  std::map<std::string, AllocatedBuffer> buffers;
  auto allocate = [&](const std::vector<BufferSpec>& specs) {
    plan.buffers = specs;
    buffers = allocate_state(*backend, plan, params);
    backend->synchronize();
  };
  auto read = [&](const std::string& name) {
    const AllocatedBuffer& b = buffers.at(name);
    return b.buffer.download_as<int64_t>(b.elements);
  };
  auto write = [&](const std::string& name, const std::vector<int64_t>& v) { buffers.at(name).buffer.upload(v); };

  SUBCASE("elementwise: sums, min, max and a 128-bit sum slot by slot") {
    params = {{"slots", 3}};
    allocate({spec("sum", "slots"), spec("lo", "slots"), spec("hi", "slots"), spec("wide", "slots", 2), spec("count", "slots")});
    StateMerge m = merge_of("agg0", StateMerge::Kind::Elementwise);
    m.slots_param = "slots";
    m.lanes = {{"sum", StateMerge::Op::Sum, 1}, {"lo", StateMerge::Op::Min, 1}, {"hi", StateMerge::Op::Max, 1},
               {"wide", StateMerge::Op::Sum128, 2}, {"count", StateMerge::Op::Sum, 1}};
    write("sum", {1, 2, 3});
    write("lo", {5, -7, 9});
    write("hi", {5, -7, 9});
    write("wide", {-1, 0, 7, 0, -1, -1});  // 2^64 - 1, 7, -1
    write("count", {1, 0, 2});
    // The 64-bit lanes first (one collective on NCCL), then the 128-bit sum.
    peer.other = {bytes_of({10, 20, 30}), bytes_of({4, -8, 10}), bytes_of({4, -8, 10}), bytes_of({3, 0, 1}),
                  bytes_of({1, 0, -8, -1, -1, -1})};
    merge_state(peer, *backend, plan, m, buffers, params);
    CHECK(read("sum") == std::vector<int64_t>{11, 22, 33});
    CHECK(read("lo") == std::vector<int64_t>{4, -8, 9});
    CHECK(read("hi") == std::vector<int64_t>{5, -7, 10});
    CHECK(read("wide") == std::vector<int64_t>{0, 1, -1, -1, -2, -1});  // 2^64, -1, -2
    CHECK(read("count") == std::vector<int64_t>{4, 0, 3});
  }

  SUBCASE("hashed groups: combined by key, one group per slot from slot 0, the table grown for the union") {
    const int64_t empty = INT64_MIN;
    params = {{"slots", 3}};
    allocate({spec("keys", "slots", 1, BufferSpec::Init::Pattern, static_cast<uint64_t>(empty)), spec("sum", "slots"),
              spec("occ", "slots"), spec("dense", "slots")});
    StateMerge m = merge_of("agg1", StateMerge::Kind::HashedGroups);
    m.slots_param = "slots";
    m.keys = {{"keys", StateMerge::Op::Sum, 1}};
    m.lanes = {{"sum", StateMerge::Op::Sum, 1}, {"occ", StateMerge::Op::Sum, 1}};
    m.occupancy_buffer = "occ";
    write("keys", {empty, 42, 7});  // rank 0: groups 42 and 7
    write("sum", {0, 100, 5});
    write("occ", {0, 2, 1});
    // rank 1: groups 7 (again), 8 and 9 — key, sum, occupancy per group
    peer.other = {bytes_of({7, 50, 3, 8, 1, 1, 9, 2, 4})};
    merge_state(peer, *backend, plan, m, buffers, params);
    CHECK(params.at("slots") == 4);  // four groups in all: grown from 3
    CHECK(read("keys") == std::vector<int64_t>{42, 7, 8, 9});
    CHECK(read("sum") == std::vector<int64_t>{100, 55, 1, 2});
    CHECK(read("occ") == std::vector<int64_t>{2, 4, 1, 4});
    CHECK(buffers.at("dense").elements == 4);  // every buffer sized by the slots
  }

  SUBCASE("rows: concatenated in rank order, the counter their sum, buffers grown past the capacity") {
    params = {{"cap", 3}};
    allocate({spec("col", "cap"), spec("wide", "cap", 2), spec("counter", "")});
    StateMerge m = merge_of("out0", StateMerge::Kind::Rows);
    m.counter_buffer = "counter";
    m.capacity_param = "cap";
    m.lanes = {{"col", StateMerge::Op::Sum, 1}, {"wide", StateMerge::Op::Sum, 2}};
    write("col", {1, 2, 0});
    write("wide", {10, 11, 20, 21, 0, 0});
    write("counter", {2});
    // The peer's row count, then its rows of every lane in one piece (one host all-gather): col's, then wide's.
    peer.other = {bytes_of({3}), bytes_of({3, 4, 5, 30, 31, 40, 41, 50, 51})};
    merge_state(peer, *backend, plan, m, buffers, params);
    CHECK(read("counter") == std::vector<int64_t>{5});
    CHECK(read("col") == std::vector<int64_t>{1, 2, 3, 4, 5});
    CHECK(read("wide") == std::vector<int64_t>{10, 11, 20, 21, 30, 31, 40, 41, 50, 51});
  }
}

TEST_CASE("RankHooks: a flag raised on another rank is raised here, its need counter too, and nothing is merged") {
  std::unique_ptr<Backend> backend = open_backend(DeviceChoice::OpenCL);
  ScriptedPeer peer;
  ExecutablePlan plan;
  plan.label = "hooks test";
  plan.model = "resolution";
  PipelineSpec p = pipeline("p0 lineorder", "lineorder", "out0");
  CheckSpec grow;
  grow.flag_buffer = "out0_overflow";
  grow.need_buffer = "out0_counter";
  grow.grow_params = {"cap"};
  p.checks = {grow};
  plan.pipelines = {p};
  StateMerge rows = merge_of("out0", StateMerge::Kind::Rows);
  rows.counter_buffer = "out0_counter";
  rows.capacity_param = "cap";
  rows.lanes = {{"col", StateMerge::Op::Sum, 1}};
  plan.merges = {rows};
  BufferSpec flag = spec("out0_overflow", "");
  flag.element = ElementType::U32;
  plan.buffers = {spec("col", "cap"), spec("out0_counter", ""), flag};
  std::map<std::string, int64_t> params{{"cap", 4}};
  std::map<std::string, AllocatedBuffer> buffers = allocate_state(*backend, plan, params);
  backend->synchronize();
  buffers.at("out0_counter").buffer.upload(std::vector<int64_t>{3});
  const Distribution d = distribute(plan, {"lineorder"});
  RankHooks hooks(peer, *backend, plan, d);
  CHECK(hooks.runs_launch(0, 0));

  // The agreement: the peer reached it without failing (value count 2: its flag 1, its need 9).
  std::vector<unsigned char> agreement(4 + 16);
  const uint32_t n = 2;
  const int64_t values[2] = {1, 9};
  std::memcpy(agreement.data(), &n, 4);
  std::memcpy(agreement.data() + 4, values, 16);
  peer.other = {agreement};
  CHECK(hooks.after_launch(0, 0, buffers, params).empty());  // no merge: the checks restart every rank
  CHECK(peer.other.empty());                                 // and no collective after the agreement
  uint32_t raised = 0;
  buffers.at("out0_overflow").buffer.download(&raised, 4);
  CHECK(raised == 1);
  CHECK(buffers.at("out0_counter").buffer.download_as<int64_t>(1)[0] == 9);  // the re-run is sized for the larger need

  SUBCASE("a failed peer ends the query here with its message") {
    std::vector<unsigned char> failure(4 + 4);
    const uint32_t none = 0;
    const int32_t code = 3;
    std::memcpy(failure.data(), &none, 4);
    std::memcpy(failure.data() + 4, &code, 4);
    const std::string message = "lineitem.hqc: truncated";
    failure.insert(failure.end(), message.begin(), message.end());
    peer.other = {failure};
    CHECK_THROWS_WITH_AS(hooks.after_launch(0, 0, buffers, params), "rank 1: lineitem.hqc: truncated", AgreedFailure);
  }
}
