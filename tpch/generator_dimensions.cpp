// The TPC-H tables other than orders and lineitem: region, nation, supplier, customer, part, partsupp
// (clause 4.2.3).
//
// Contract: row k (0-based) of each table is a function of (seed, table, k, counts) only; keys are k + 1
// (partsupp: four rows per part, suppliers by the specification's PS_SUPPKEY formula). Each text column
// draws from its own stream, so it can be written straight into its heap in a separate parallel pass
// (generator_columns.h, text_column). Supplier comments carry "Customer ... Complaints" in exactly
// N(5·SF) rows and "Customer ... Recommends" in N(5·SF) others, chosen by a seeded ranking (the
// specification says SF·5 randomly selected rows of each; dbgen draws each row with probability 0.05 %).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tpch/generator_columns.h"
#include "tpch/generator_random.h"
#include "tpch/generator_tables.h"
#include "tpch/generator_text.h"

namespace hqc::tpch {

namespace {

template <size_t N>
std::vector<std::string_view> views(const std::array<std::string_view, N>& list) {
  return {list.begin(), list.end()};
}

std::vector<std::string_view> views(const std::vector<std::string>& list) {
  return {list.begin(), list.end()};
}

// "Supplier#000000042": a 9-digit zero-padded key after the tag.
Column keyed_names(GenContext& ctx, const ColumnDef& def, uint64_t rows, const char* tag) {
  const size_t tag_length = std::strlen(tag);
  return text_column(
      ctx.threads, def, rows, [&](uint64_t) { return tag_length + 10; },
      [&](uint64_t r, char* dst) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s#%09llu", tag, static_cast<unsigned long long>(r + 1));
        std::memcpy(dst, buf, tag_length + 10);
      });
}

// V-string of length [10, 40] over dbgen's address alphabet.
Column addresses(GenContext& ctx, const ColumnDef& def, uint64_t rows, Stream stream) {
  const uint64_t seed = ctx.seed;
  return text_column(
      ctx.threads, def, rows, [&](uint64_t r) { RowRandom rng(seed, stream, r); return static_cast<size_t>(rng.uniform(10, 40)); },
      [&](uint64_t r, char* dst) {
        RowRandom rng(seed, stream, r);
        const int64_t length = rng.uniform(10, 40);
        constexpr std::string_view kAlphabet = vocab::kAddressAlphabet;
        for (int64_t i = 0; i < length; ++i)
          dst[i] = kAlphabet[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(kAlphabet.size()) - 1))];
      });
}

// Comments from the text pool, [lo, hi] bytes, one stream per row.
Column comments(GenContext& ctx, const ColumnDef& def, uint64_t rows, Stream stream, int64_t lo, int64_t hi) {
  const uint64_t seed = ctx.seed;
  const TextPool& pool = ctx.pool;
  return text_column(
      ctx.threads, def, rows,
      [&](uint64_t r) { RowRandom rng(seed, stream, r); return static_cast<size_t>(TextPool::comment_length(rng, lo, hi)); },
      [&](uint64_t r, char* dst) {
        RowRandom rng(seed, stream, r);
        const std::string_view text = pool.comment(rng, lo, hi);
        std::memcpy(dst, text.data(), text.size());
      });
}

// Clause 4.2.2.9: country code = nation key + 10, then three random local number groups.
void write_phone(RowRandom& rng, int64_t nation, char* dst) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d-%03d-%03d-%04d", static_cast<int>(nation + 10),
                static_cast<int>(rng.uniform(100, 999)), static_cast<int>(rng.uniform(100, 999)),
                static_cast<int>(rng.uniform(1000, 9999)));
  std::memcpy(dst, buf, 15);
}

// The stream layout shared by supplier and customer rows: nation, phone digits, account balance, then
// (customer only) the market segment.
struct PersonDraws {
  int64_t nation, acctbal_cents;
  char phone[15];
  uint8_t segment;
  explicit PersonDraws(RowRandom& rng) {
    nation = rng.uniform(0, 24);
    write_phone(rng, nation, phone);
    acctbal_cents = rng.uniform(-99999, 999999);
    segment = static_cast<uint8_t>(rng.uniform(0, 4));
  }
};

}  // namespace

Table make_region(GenContext& ctx, const TableDef& def) {
  const uint64_t rows = vocab::kRegions.size();
  IntColumn key(column_def(def, "r_regionkey"), rows, static_cast<int64_t>(rows));
  std::vector<std::string> names;
  for (uint64_t r = 0; r < rows; ++r) {
    key.put(r, static_cast<int64_t>(r));
    names.emplace_back(vocab::kRegions[r]);
  }
  std::vector<Column> cols;
  cols.push_back(key.finish());
  cols.push_back(string_column(column_def(def, "r_name"), names));
  cols.push_back(comments(ctx, column_def(def, "r_comment"), rows, Stream::RegionComment, 31, 115));
  return assemble_table(ctx, def, rows, std::move(cols));
}

Table make_nation(GenContext& ctx, const TableDef& def) {
  const uint64_t rows = vocab::kNations.size();
  IntColumn key(column_def(def, "n_nationkey"), rows, static_cast<int64_t>(rows));
  IntColumn region(column_def(def, "n_regionkey"), rows, static_cast<int64_t>(vocab::kRegions.size()));
  std::vector<std::string> names;
  for (uint64_t r = 0; r < rows; ++r) {
    key.put(r, static_cast<int64_t>(r));
    region.put(r, vocab::kNations[r].region);
    names.emplace_back(vocab::kNations[r].name);
  }
  std::vector<Column> cols;
  cols.push_back(key.finish());
  cols.push_back(region.finish());
  cols.push_back(string_column(column_def(def, "n_name"), names));
  cols.push_back(comments(ctx, column_def(def, "n_comment"), rows, Stream::NationComment, 31, 114));
  return assemble_table(ctx, def, rows, std::move(cols));
}

Table make_supplier(GenContext& ctx, const TableDef& def) {
  const uint64_t rows = ctx.counts.suppliers;
  const uint64_t seed = ctx.seed;
  IntColumn key(column_def(def, "s_suppkey"), rows, static_cast<int64_t>(rows));
  IntColumn nation(column_def(def, "s_nationkey"), rows, 24);
  IntColumn acctbal(column_def(def, "s_acctbal"), rows, 999999);
  ctx.for_chunks(rows, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      RowRandom rng(seed, Stream::Supplier, r);
      const PersonDraws d(rng);
      key.put(r, static_cast<int64_t>(r + 1));
      nation.put(r, d.nation);
      acctbal.put(r, d.acctbal_cents);
    }
  });

  // The Q16 rows: rank suppliers by a seeded hash; the first `press` get complaints, the next `press`
  // recommendations (1 = complaint, 2 = recommendation).
  const uint64_t press = std::min<uint64_t>(rows / 2, static_cast<uint64_t>(std::llround(5.0 * static_cast<double>(rows) / 10000.0)));
  std::vector<uint8_t> press_kind(rows, 0);
  if (press > 0) {
    std::vector<std::pair<uint64_t, uint64_t>> ranked(rows);
    for (uint64_t r = 0; r < rows; ++r) ranked[r] = {RowRandom(seed, Stream::SupplierPress, r).next(), r};
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<ptrdiff_t>(2 * press - 1), ranked.end());
    std::sort(ranked.begin(), ranked.begin() + static_cast<ptrdiff_t>(2 * press));
    for (uint64_t i = 0; i < 2 * press; ++i) press_kind[ranked[i].second] = i < press ? 1 : 2;
  }

  const TextPool& pool = ctx.pool;
  std::vector<Column> cols;
  cols.push_back(key.finish());
  cols.push_back(nation.finish());
  cols.push_back(acctbal.finish());
  cols.push_back(keyed_names(ctx, column_def(def, "s_name"), rows, "Supplier"));
  cols.push_back(addresses(ctx, column_def(def, "s_address"), rows, Stream::SupplierAddress));
  cols.push_back(text_column(
      ctx.threads, column_def(def, "s_phone"), rows, [](uint64_t) { return size_t{15}; },
      [&](uint64_t r, char* dst) {
        RowRandom rng(seed, Stream::Supplier, r);
        const PersonDraws d(rng);
        std::memcpy(dst, d.phone, 15);
      }));
  cols.push_back(text_column(
      ctx.threads, column_def(def, "s_comment"), rows,
      [&](uint64_t r) {
        RowRandom rng(seed, Stream::SupplierComment, r);
        return static_cast<size_t>(TextPool::comment_length(rng, 25, 100));
      },
      [&](uint64_t r, char* dst) {
        RowRandom rng(seed, Stream::SupplierComment, r);
        const std::string_view text = pool.comment(rng, 25, 100);
        std::memcpy(dst, text.data(), text.size());
        if (press_kind[r] == 0) return;
        // dbgen's shape: "Customer " at a random offset, the verdict after `noise` bytes of the original
        // comment, all inside the comment's length (25 ≥ 9 + 10 + noise + offset by construction).
        constexpr std::string_view kBase = "Customer ";
        const std::string_view verdict = press_kind[r] == 1 ? "Complaints" : "Recommends";
        const int64_t length = static_cast<int64_t>(text.size());
        const int64_t fixed = static_cast<int64_t>(kBase.size() + verdict.size());
        const int64_t noise = rng.uniform(0, length - fixed);
        const int64_t offset = rng.uniform(0, length - fixed - noise);
        std::memcpy(dst + offset, kBase.data(), kBase.size());
        std::memcpy(dst + offset + static_cast<int64_t>(kBase.size()) + noise, verdict.data(), verdict.size());
      }));
  return assemble_table(ctx, def, rows, std::move(cols));
}

Table make_customer(GenContext& ctx, const TableDef& def) {
  const uint64_t rows = ctx.counts.customers;
  const uint64_t seed = ctx.seed;
  IntColumn key(column_def(def, "c_custkey"), rows, static_cast<int64_t>(rows));
  IntColumn nation(column_def(def, "c_nationkey"), rows, 24);
  IntColumn acctbal(column_def(def, "c_acctbal"), rows, 999999);
  std::vector<uint8_t> segment(rows);
  ctx.for_chunks(rows, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      RowRandom rng(seed, Stream::Customer, r);
      const PersonDraws d(rng);
      key.put(r, static_cast<int64_t>(r + 1));
      nation.put(r, d.nation);
      acctbal.put(r, d.acctbal_cents);
      segment[r] = d.segment;
    }
  });
  std::vector<Column> cols;
  cols.push_back(key.finish());
  cols.push_back(nation.finish());
  cols.push_back(acctbal.finish());
  cols.push_back(vocabulary_column(ctx.threads, column_def(def, "c_mktsegment"), views(vocab::kSegments), segment));
  cols.push_back(keyed_names(ctx, column_def(def, "c_name"), rows, "Customer"));
  cols.push_back(addresses(ctx, column_def(def, "c_address"), rows, Stream::CustomerAddress));
  cols.push_back(text_column(
      ctx.threads, column_def(def, "c_phone"), rows, [](uint64_t) { return size_t{15}; },
      [&](uint64_t r, char* dst) {
        RowRandom rng(seed, Stream::Customer, r);
        const PersonDraws d(rng);
        std::memcpy(dst, d.phone, 15);
      }));
  cols.push_back(comments(ctx, column_def(def, "c_comment"), rows, Stream::CustomerComment, 29, 116));
  return assemble_table(ctx, def, rows, std::move(cols));
}

namespace {

// P_NAME: five distinct color words (clause 4.2.3), as indexes into kColors.
std::array<size_t, 5> part_colors(uint64_t seed, uint64_t row) {
  RowRandom rng(seed, Stream::PartName, row);
  std::array<size_t, 5> picked{};
  for (size_t i = 0; i < picked.size(); ++i) {
    bool fresh;
    do {
      picked[i] = static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(vocab::kColors.size()) - 1));
      fresh = std::find(picked.begin(), picked.begin() + static_cast<ptrdiff_t>(i), picked[i]) ==
              picked.begin() + static_cast<ptrdiff_t>(i);
    } while (!fresh);
  }
  return picked;
}

}  // namespace

Table make_part(GenContext& ctx, const TableDef& def) {
  const uint64_t rows = ctx.counts.parts;
  const uint64_t seed = ctx.seed;
  IntColumn key(column_def(def, "p_partkey"), rows, static_cast<int64_t>(rows));
  IntColumn size(column_def(def, "p_size"), rows, 50);
  IntColumn price(column_def(def, "p_retailprice"), rows, 90000 + 20000 + 100 * 999);  // formula maximum
  // Vocabulary indexes: mfgr 0..4, brand 0..24 (mfgr·5 + n), type 0..149, container 0..39.
  std::vector<uint8_t> mfgr(rows), brand(rows), type(rows), container(rows);
  ctx.for_chunks(rows, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      RowRandom rng(seed, Stream::Part, r);
      const int64_t m = rng.uniform(0, 4), n = rng.uniform(0, 4);
      const int64_t t1 = rng.uniform(0, 5), t2 = rng.uniform(0, 4), t3 = rng.uniform(0, 4);
      const int64_t c1 = rng.uniform(0, 4), c2 = rng.uniform(0, 7);
      const auto partkey = static_cast<int64_t>(r + 1);
      key.put(r, partkey);
      size.put(r, rng.uniform(1, 50));
      price.put(r, retail_price_cents(partkey));
      mfgr[r] = static_cast<uint8_t>(m);
      brand[r] = static_cast<uint8_t>(m * 5 + n);
      type[r] = static_cast<uint8_t>((t1 * 5 + t2) * 5 + t3);
      container[r] = static_cast<uint8_t>(c1 * 8 + c2);
    }
  });

  std::vector<std::string> mfgr_words, brand_words, type_words, container_words;
  for (int m = 1; m <= 5; ++m) {
    mfgr_words.push_back("Manufacturer#" + std::to_string(m));
    for (int n = 1; n <= 5; ++n) brand_words.push_back("Brand#" + std::to_string(m) + std::to_string(n));
  }
  for (std::string_view a : vocab::kTypeSize)
    for (std::string_view b : vocab::kTypeFinish)
      for (std::string_view c : vocab::kTypeMetal)
        type_words.push_back(std::string(a) + " " + std::string(b) + " " + std::string(c));
  for (std::string_view a : vocab::kContainerSize)
    for (std::string_view b : vocab::kContainerKind) container_words.push_back(std::string(a) + " " + std::string(b));

  std::vector<Column> cols;
  cols.push_back(key.finish());
  cols.push_back(size.finish());
  cols.push_back(price.finish());
  cols.push_back(vocabulary_column(ctx.threads, column_def(def, "p_mfgr"), views(mfgr_words), mfgr));
  cols.push_back(vocabulary_column(ctx.threads, column_def(def, "p_brand"), views(brand_words), brand));
  cols.push_back(vocabulary_column(ctx.threads, column_def(def, "p_type"), views(type_words), type));
  cols.push_back(vocabulary_column(ctx.threads, column_def(def, "p_container"), views(container_words), container));
  cols.push_back(text_column(
      ctx.threads, column_def(def, "p_name"), rows,
      [&](uint64_t r) {
        size_t length = 4;  // the blanks between the five words
        for (size_t c : part_colors(seed, r)) length += vocab::kColors[c].size();
        return length;
      },
      [&](uint64_t r, char* dst) {
        bool first = true;
        for (size_t c : part_colors(seed, r)) {
          if (!first) *dst++ = ' ';
          first = false;
          std::memcpy(dst, vocab::kColors[c].data(), vocab::kColors[c].size());
          dst += vocab::kColors[c].size();
        }
      }));
  cols.push_back(comments(ctx, column_def(def, "p_comment"), rows, Stream::PartComment, 5, 22));
  return assemble_table(ctx, def, rows, std::move(cols));
}

Table make_partsupp(GenContext& ctx, const TableDef& def) {
  const uint64_t rows = ctx.counts.partsupps;
  const uint64_t seed = ctx.seed;
  const auto suppliers = static_cast<int64_t>(ctx.counts.suppliers);
  IntColumn partkey(column_def(def, "ps_partkey"), rows, static_cast<int64_t>(ctx.counts.parts));
  IntColumn suppkey(column_def(def, "ps_suppkey"), rows, suppliers);
  IntColumn availqty(column_def(def, "ps_availqty"), rows, 9999);
  IntColumn supplycost(column_def(def, "ps_supplycost"), rows, 100000);
  ctx.for_chunks(rows, 1, [&](uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      RowRandom rng(seed, Stream::PartSupp, r);
      const auto part = static_cast<int64_t>(r / 4 + 1);
      partkey.put(r, part);
      suppkey.put(r, part_supplier(part, static_cast<int64_t>(r % 4), suppliers));
      availqty.put(r, rng.uniform(1, 9999));
      supplycost.put(r, rng.uniform(100, 100000));
    }
  });
  std::vector<Column> cols;
  cols.push_back(partkey.finish());
  cols.push_back(suppkey.finish());
  cols.push_back(availqty.finish());
  cols.push_back(supplycost.finish());
  cols.push_back(comments(ctx, column_def(def, "ps_comment"), rows, Stream::PartSuppComment, 49, 198));
  return assemble_table(ctx, def, rows, std::move(cols));
}

}  // namespace hqc::tpch
