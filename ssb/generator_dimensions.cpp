// The SSB dimension tables customer, supplier and part (SSB revision 3 §2, ssb-dbgen's domains).
//
// Contract: row k (0-based) of each table is a function of (seed, table, k, row count) only; keys are
// k + 1. The attributes that SSB queries filter on are dealt out evenly rather than drawn
// independently: row k gets slot = Permutation(seed, table, rows)(k), and
//   customer/supplier: nation = slot mod 25, city digit = ⌊slot / 25⌋ mod 10 (so each of the 250
//     cities, 25 nations and 5 regions holds its exact share of rows, ±1), region from the nation;
//   part: brand index = slot mod 1000 → mfgr 1..5, category 1..5 within it, brand 1..40 within the
//     category ("MFGR#1101".."MFGR#5540"), each brand ±1 row of its share.
// ssb-dbgen draws these independently per row, which at SF 1 leaves s_region = 'AMERICA' anywhere
// between 360 and 440 of 2,000 suppliers, and every supplier-side filter factor ±18 % off the
// specification's (4 σ); dealt out evenly, the filter factors hold at every scale factor, which is
// what the benchmark's query design counts on. Everything else is drawn per row: address, phone digits,
// market segment, colors (p_name two words, p_color a third), type, size 1..50, container.
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "ssb/generator_columns.h"
#include "ssb/generator_random.h"
#include "ssb/generator_tables.h"
#include "ssb/generator_vocabulary.h"

namespace hqc::ssb {

namespace {

template <size_t N>
std::string_view pick(RowRandom& rng, const std::array<std::string_view, N>& list) {
  return list[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(N) - 1))];
}

// Letters, digits, comma and period: never the '|' delimiter, never leading/trailing blanks that a
// CSV reader might trim.
std::string random_address(RowRandom& rng) {
  static constexpr std::string_view kAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";
  const auto length = static_cast<size_t>(rng.uniform(10, 25));
  std::string s(length, ' ');
  for (char& ch : s) ch = kAlphabet[static_cast<size_t>(rng.uniform(0, kAlphabet.size() - 1))];
  return s;
}

std::string keyed_name(const char* tag, uint64_t key) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s#%09llu", tag, static_cast<unsigned long long>(key));
  return buf;
}

std::string make_phone(RowRandom& rng, size_t nation) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%02d-%03d-%03d-%04d", static_cast<int>(10 + nation),
                static_cast<int>(rng.uniform(100, 999)), static_cast<int>(rng.uniform(100, 999)),
                static_cast<int>(rng.uniform(1000, 9999)));
  return buf;
}

// The columns customer and supplier share: address, city, nation, region, phone.
struct Location {
  std::vector<std::string> address, city, nation, region, phone;
  explicit Location(uint64_t n) : address(n), city(n), nation(n), region(n), phone(n) {}
  void fill(uint64_t r, uint64_t slot, RowRandom& rng) {
    address[r] = random_address(rng);
    const size_t i = slot % vocab::kNations.size();
    const vocab::Nation& nat = vocab::kNations[i];
    nation[r] = nat.name;
    region[r] = vocab::kRegions[nat.region];
    city[r] = vocab::city_name(nat.name, static_cast<uint32_t>(slot / vocab::kNations.size() % 10));
    phone[r] = make_phone(rng, i);
  }
};

}  // namespace

Table make_customer(GenContext& ctx, const TableDef& def) {
  const uint64_t n = ctx.counts.customers;
  IntColumn key(column_def(def, "c_custkey"), n, static_cast<int64_t>(n));
  std::vector<std::string> name(n), segment(n);
  Location loc(n);
  const Permutation slots(ctx.seed, StreamTag::CustomerSlots, n);
  ctx.for_chunks(n, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      RowRandom rng(ctx.seed, StreamTag::Customer, r);
      key.put(r, static_cast<int64_t>(r + 1));
      name[r] = keyed_name("Customer", r + 1);
      loc.fill(r, slots(r), rng);
      segment[r] = pick(rng, vocab::kSegments);
    }
  });
  std::vector<Column> cols = build_columns(ctx.threads, {
      [&] { return key.finish(); },
      [&] { return string_column(column_def(def, "c_name"), name); },
      [&] { return string_column(column_def(def, "c_address"), loc.address); },
      [&] { return string_column(column_def(def, "c_city"), loc.city); },
      [&] { return string_column(column_def(def, "c_nation"), loc.nation); },
      [&] { return string_column(column_def(def, "c_region"), loc.region); },
      [&] { return string_column(column_def(def, "c_phone"), loc.phone); },
      [&] { return string_column(column_def(def, "c_mktsegment"), segment); }});
  return assemble_table(ctx, def, n, std::move(cols));
}

Table make_supplier(GenContext& ctx, const TableDef& def) {
  const uint64_t n = ctx.counts.suppliers;
  IntColumn key(column_def(def, "s_suppkey"), n, static_cast<int64_t>(n));
  std::vector<std::string> name(n);
  Location loc(n);
  const Permutation slots(ctx.seed, StreamTag::SupplierSlots, n);
  ctx.for_chunks(n, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      RowRandom rng(ctx.seed, StreamTag::Supplier, r);
      key.put(r, static_cast<int64_t>(r + 1));
      name[r] = keyed_name("Supplier", r + 1);
      loc.fill(r, slots(r), rng);
    }
  });
  std::vector<Column> cols = build_columns(ctx.threads, {
      [&] { return key.finish(); },
      [&] { return string_column(column_def(def, "s_name"), name); },
      [&] { return string_column(column_def(def, "s_address"), loc.address); },
      [&] { return string_column(column_def(def, "s_city"), loc.city); },
      [&] { return string_column(column_def(def, "s_nation"), loc.nation); },
      [&] { return string_column(column_def(def, "s_region"), loc.region); },
      [&] { return string_column(column_def(def, "s_phone"), loc.phone); }});
  return assemble_table(ctx, def, n, std::move(cols));
}

Table make_part(GenContext& ctx, const TableDef& def) {
  const uint64_t n = ctx.counts.parts;
  IntColumn key(column_def(def, "p_partkey"), n, static_cast<int64_t>(n));
  IntColumn size(column_def(def, "p_size"), n, 50);
  std::vector<std::string> name(n), mfgr(n), category(n), brand(n), color(n), type(n), container(n);
  const Permutation slots(ctx.seed, StreamTag::PartSlots, n);
  ctx.for_chunks(n, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      RowRandom rng(ctx.seed, StreamTag::Part, r);
      key.put(r, static_cast<int64_t>(r + 1));
      // Three distinct color words: the first is p_color, the other two make p_name (as ssb-dbgen,
      // which cuts the first word of a three-word TPC-H name off into p_color).
      const int64_t last = static_cast<int64_t>(vocab::kColors.size()) - 1;
      const int64_t a = rng.uniform(0, last);
      int64_t b = rng.uniform(0, last - 1);
      if (b >= a) ++b;
      int64_t c = rng.uniform(0, last - 2);
      for (int64_t taken : {std::min(a, b), std::max(a, b)})
        if (c >= taken) ++c;
      color[r] = vocab::kColors[static_cast<size_t>(a)];
      name[r] = std::string(vocab::kColors[static_cast<size_t>(b)]) + " " + std::string(vocab::kColors[static_cast<size_t>(c)]);
      const uint64_t brand_index = slots(r) % 1000;
      const uint64_t m = brand_index / 200 + 1, cat = brand_index / 40 % 5 + 1, br = brand_index % 40 + 1;
      mfgr[r] = "MFGR#" + std::to_string(m);
      category[r] = mfgr[r] + std::to_string(cat);
      brand[r] = category[r] + (br < 10 ? "0" : "") + std::to_string(br);
      type[r] = std::string(pick(rng, vocab::kTypeSize)) + " " + std::string(pick(rng, vocab::kTypeFinish)) +
                " " + std::string(pick(rng, vocab::kTypeMetal));
      size.put(r, rng.uniform(1, 50));
      container[r] =
          std::string(pick(rng, vocab::kContainerSize)) + " " + std::string(pick(rng, vocab::kContainerKind));
    }
  });
  std::vector<Column> cols = build_columns(ctx.threads, {
      [&] { return key.finish(); },
      [&] { return string_column(column_def(def, "p_name"), name); },
      [&] { return string_column(column_def(def, "p_mfgr"), mfgr); },
      [&] { return string_column(column_def(def, "p_category"), category); },
      [&] { return string_column(column_def(def, "p_brand1"), brand); },
      [&] { return string_column(column_def(def, "p_color"), color); },
      [&] { return string_column(column_def(def, "p_type"), type); },
      [&] { return size.finish(); },
      [&] { return string_column(column_def(def, "p_container"), container); }});
  return assemble_table(ctx, def, n, std::move(cols));
}

}  // namespace hqc::ssb
