// Cost-based join ordering (frontend/join_order.h).
#include "frontend/join_order.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "storage/error.h"

namespace hqc::plan {

namespace {

bool covers_unique_key(const JoinRelation& r, const std::set<std::string>& columns) {
  return std::any_of(r.unique_keys.begin(), r.unique_keys.end(), [&](const std::vector<std::string>& key) {
    return std::all_of(key.begin(), key.end(), [&](const std::string& c) { return columns.count(c) != 0; });
  });
}

// The columns of `side` in the edges between `side` and the relations marked in `other`.
std::set<std::string> join_columns(const JoinGraph& g, size_t side, const std::vector<bool>& other) {
  std::set<std::string> cols;
  for (const JoinEdge& e : g.edges) {
    if (e.left == side && e.right != side && other[e.right] && !e.left_column.empty()) cols.insert(e.left_column);
    if (e.right == side && e.left != side && other[e.left] && !e.right_column.empty()) cols.insert(e.right_column);
  }
  return cols;
}

// Selectivity of the edges between relations a and b (1 when there are none).
double pair_selectivity(const JoinGraph& g, size_t a, size_t b) {
  std::vector<bool> only_a(g.relations.size(), false), only_b(g.relations.size(), false);
  only_a[a] = true;
  only_b[b] = true;
  bool any = false;
  double product = 1.0;
  for (const JoinEdge& e : g.edges) {
    if (!((e.left == a && e.right == b) || (e.left == b && e.right == a))) continue;
    any = true;
    const double dl = e.left_distinct > 0 ? e.left_distinct : g.relations[e.left].base_rows;
    const double dr = e.right_distinct > 0 ? e.right_distinct : g.relations[e.right].base_rows;
    product /= std::max({dl, dr, 1.0});
  }
  if (!any) return 1.0;
  const JoinRelation& ra = g.relations[a];
  const JoinRelation& rb = g.relations[b];
  const bool a_unique = covers_unique_key(ra, join_columns(g, a, only_b));
  const bool b_unique = covers_unique_key(rb, join_columns(g, b, only_a));
  if (a_unique && b_unique) return 1.0 / std::max({ra.base_rows, rb.base_rows, 1.0});
  if (b_unique) return 1.0 / std::max(rb.base_rows, 1.0);
  if (a_unique) return 1.0 / std::max(ra.base_rows, 1.0);
  return product;
}

// The search over the ordered relations, renumbered 0..k-1.
class Search {
 public:
  explicit Search(const JoinGraph& g) : g_(g) {
    for (size_t i = 0; i < g.relations.size(); ++i)
      if (g.relations[i].ordered) ids_.push_back(i);
    const size_t k = ids_.size();
    sel_.assign(k, std::vector<double>(k, 1.0));
    adjacent_.assign(k, std::vector<bool>(k, false));
    for (size_t a = 0; a < k; ++a) {
      for (size_t b = 0; b < k; ++b) {
        if (a == b) continue;
        sel_[a][b] = pair_selectivity(g, ids_[a], ids_[b]);
        for (const JoinEdge& e : g.edges)
          adjacent_[a][b] = adjacent_[a][b] || (e.left == ids_[a] && e.right == ids_[b]) || (e.left == ids_[b] && e.right == ids_[a]);
      }
    }
    // Which of s's unique keys the edges to each t provide, as bit sets over s's join columns.
    provides_.assign(k, std::vector<uint64_t>(k, 0));
    key_masks_.assign(k, {});
    for (size_t s = 0; s < k; ++s) {
      std::vector<std::string> columns;
      auto bit = [&](const std::string& c) -> uint64_t {
        auto it = std::find(columns.begin(), columns.end(), c);
        if (it == columns.end()) {
          if (columns.size() == 64) return 0;
          columns.push_back(c);
          it = columns.end() - 1;
        }
        return uint64_t{1} << static_cast<size_t>(it - columns.begin());
      };
      for (size_t t = 0; t < k; ++t) {
        for (const JoinEdge& e : g.edges) {
          if (e.left == ids_[s] && e.right == ids_[t] && !e.left_column.empty()) provides_[s][t] |= bit(e.left_column);
          if (e.right == ids_[s] && e.left == ids_[t] && !e.right_column.empty()) provides_[s][t] |= bit(e.right_column);
        }
      }
      for (const std::vector<std::string>& key : g.relations[ids_[s]].unique_keys) {
        uint64_t m = 0;
        bool usable = true;
        for (const std::string& c : key) {
          auto it = std::find(columns.begin(), columns.end(), c);
          if (it == columns.end()) usable = false;
          else m |= uint64_t{1} << static_cast<size_t>(it - columns.begin());
        }
        if (usable) key_masks_[s].push_back(m);
      }
    }
    // Probe preference on equal cost: most base rows, then `preference`, then the lowest index.
    std::vector<size_t> by_rows(k);
    for (size_t i = 0; i < k; ++i) by_rows[i] = i;
    std::stable_sort(by_rows.begin(), by_rows.end(), [&](size_t x, size_t y) {
      const JoinRelation& a = g.relations[ids_[x]];
      const JoinRelation& b = g.relations[ids_[y]];
      if (a.base_rows != b.base_rows) return a.base_rows > b.base_rows;
      return a.preference < b.preference;
    });
    probe_rank_.assign(k, 0);
    for (size_t r = 0; r < k; ++r) probe_rank_[by_rows[r]] = r;
  }

  JoinOrder run() const {
    if (ids_.empty()) throw Error(ErrorKind::Internal, "join order: no relation to order");
    return ids_.size() <= kExhaustiveRelations ? exhaustive() : greedy();
  }

 private:
  struct Candidate {
    double cost = std::numeric_limits<double>::infinity();
    std::vector<size_t> sequence;  // local indices, probe start first
  };

  // Whether a (cost, sequence) beats b: lower cost, or within rounding the preferred sequence.
  bool better(double cost, const std::vector<size_t>& seq, const Candidate& b) const {
    if (b.sequence.empty()) return true;
    const double tolerance = 1e-9 * std::max(std::abs(cost), std::abs(b.cost));
    if (cost < b.cost - tolerance) return true;
    if (cost > b.cost + tolerance) return false;
    if (seq[0] != b.sequence[0]) return probe_rank_[seq[0]] < probe_rank_[b.sequence[0]];
    for (size_t i = 1; i < seq.size() && i < b.sequence.size(); ++i) {
      const JoinRelation& x = g_.relations[ids_[seq[i]]];
      const JoinRelation& y = g_.relations[ids_[b.sequence[i]]];
      if (x.preference != y.preference) return x.preference < y.preference;
      if (seq[i] != b.sequence[i]) return seq[i] < b.sequence[i];
    }
    return false;
  }

  double rows_of(size_t local) const { return std::max(g_.relations[ids_[local]].rows, 1.0); }

  // unique_build() on local indices: whether the edges from `in` to s cover a unique key of s.
  bool unique(const std::vector<bool>& in, size_t s) const {
    uint64_t covered = 0;
    for (size_t t = 0; t < in.size(); ++t)
      if (in[t]) covered |= provides_[s][t];
    return std::any_of(key_masks_[s].begin(), key_masks_[s].end(), [&](uint64_t m) { return (covered & m) == m; });
  }

  // Cost of joining `s` to the set `in` whose output is `rows_in`; sets `rows_out`.
  double step_cost(const std::vector<bool>& in, double rows_in, size_t s, double& rows_out) const {
    double sel = 1.0;
    for (size_t t = 0; t < in.size(); ++t)
      if (in[t]) sel *= sel_[t][s];
    rows_out = std::max(rows_in * rows_of(s) * sel, 1.0);
    return rows_out + kBuildCost * rows_of(s) + (unique(in, s) ? 0.0 : kMultiMatchCost * (rows_in + rows_out));
  }

  bool connected(const std::vector<bool>& in, size_t s) const {
    for (size_t t = 0; t < in.size(); ++t)
      if (in[t] && adjacent_[t][s]) return true;
    return false;
  }

  JoinOrder exhaustive() const {
    const size_t k = ids_.size();
    const size_t states = size_t{1} << k;
    std::vector<Candidate> best(states);
    std::vector<double> rows(states, -1.0);
    for (size_t r = 0; r < k; ++r) {
      best[size_t{1} << r] = Candidate{rows_of(r), {r}};
      rows[size_t{1} << r] = rows_of(r);
    }
    for (size_t mask = 1; mask < states; ++mask) {
      if (best[mask].sequence.empty()) continue;
      std::vector<bool> in(k);
      for (size_t t = 0; t < k; ++t) in[t] = (mask >> t) & 1;
      for (size_t s = 0; s < k; ++s) {
        if (in[s] || !connected(in, s)) continue;
        double out = 0;
        const double cost = best[mask].cost + step_cost(in, rows[mask], s, out);
        const size_t next = mask | (size_t{1} << s);
        if (rows[next] < 0) rows[next] = out;  // the same for every order of the set, up to rounding
        std::vector<size_t> seq = best[mask].sequence;
        seq.push_back(s);
        if (better(cost, seq, best[next])) best[next] = Candidate{cost, std::move(seq)};
      }
    }
    const Candidate& all = best[states - 1];
    if (all.sequence.empty()) throw Error(ErrorKind::Internal, "join order: the relations are not connected");
    return finish(all);
  }

  JoinOrder greedy() const {
    const size_t k = ids_.size();
    Candidate best;
    for (size_t start = 0; start < k; ++start) {
      std::vector<bool> in(k, false);
      in[start] = true;
      Candidate c{rows_of(start), {start}};
      double rows = rows_of(start);
      for (size_t step = 1; step < k; ++step) {
        size_t pick = k;
        double pick_cost = 0, pick_rows = 0;
        for (size_t s = 0; s < k; ++s) {
          if (in[s] || !connected(in, s)) continue;
          double out = 0;
          const double cost = step_cost(in, rows, s, out);
          const bool preferred = pick < k && g_.relations[ids_[s]].preference < g_.relations[ids_[pick]].preference;
          if (pick == k || cost < pick_cost || (cost == pick_cost && preferred)) pick = s, pick_cost = cost, pick_rows = out;
        }
        if (pick == k) throw Error(ErrorKind::Internal, "join order: the relations are not connected");
        in[pick] = true;
        c.cost += pick_cost;
        c.sequence.push_back(pick);
        rows = pick_rows;
      }
      if (better(c.cost, c.sequence, best)) best = c;
    }
    return finish(best);
  }

  // Replays the chosen sequence for its per-step rows and build kinds.
  JoinOrder finish(const Candidate& c) const {
    JoinOrder order;
    order.cost = c.cost;
    std::vector<bool> in(ids_.size(), false);
    double rows = rows_of(c.sequence[0]);
    order.steps.push_back(JoinStep{ids_[c.sequence[0]], rows, true});
    in[c.sequence[0]] = true;
    for (size_t i = 1; i < c.sequence.size(); ++i) {
      const size_t s = c.sequence[i];
      double out = 0;
      step_cost(in, rows, s, out);
      order.steps.push_back(JoinStep{ids_[s], out, unique(in, s)});
      in[s] = true;
      rows = out;
    }
    return order;
  }

  const JoinGraph& g_;
  std::vector<size_t> ids_;
  std::vector<std::vector<double>> sel_;
  std::vector<std::vector<bool>> adjacent_;
  std::vector<size_t> probe_rank_;
  std::vector<std::vector<uint64_t>> provides_;   // [s][t]: s's join columns the edges s-t name
  std::vector<std::vector<uint64_t>> key_masks_;  // [s]: s's unique keys over those columns
};

}  // namespace

double join_selectivity(const JoinGraph& graph, const std::vector<bool>& joined, size_t relation) {
  double sel = 1.0;
  for (size_t t = 0; t < graph.relations.size(); ++t)
    if (t != relation && joined[t]) sel *= pair_selectivity(graph, t, relation);
  return sel;
}

bool unique_build(const JoinGraph& graph, const std::vector<bool>& joined, size_t relation) {
  return covers_unique_key(graph.relations[relation], join_columns(graph, relation, joined));
}

std::vector<bool> connected_to(const JoinGraph& graph, size_t start) {
  std::vector<bool> reached(graph.relations.size(), false);
  reached[start] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (const JoinEdge& e : graph.edges) {
      if (!graph.relations[e.left].ordered || !graph.relations[e.right].ordered) continue;
      if (reached[e.left] != reached[e.right]) {
        reached[e.left] = reached[e.right] = true;
        grew = true;
      }
    }
  }
  return reached;
}

JoinOrder order_joins(const JoinGraph& graph) { return Search(graph).run(); }

}  // namespace hqc::plan
