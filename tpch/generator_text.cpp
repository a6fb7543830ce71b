// TPC-H vocabularies and the comment grammar; see generator_text.h for the contract.
//
// Grammar (clause 4.2.2.10), each choice weighted as in the specification's distribution lists:
//   sentence  := NP VP T | NP VP PP T | NP VP NP T | NP PP VP NP T | NP PP VP PP T   (weights 3 3 3 1 1)
//   NP        := noun | adjective noun | adjective, adjective noun | adverb adjective noun (10 20 10 50)
//   VP        := verb | auxiliary verb | verb adverb | auxiliary verb adverb             (30 1 40 1)
//   PP        := preposition "the" NP
//   T         := . ; : ? ! --   (the terminator follows the last word without a blank)
#include "tpch/generator_text.h"

#include <vector>

#include "storage/parallel.h"

namespace hqc::tpch::vocab {

const std::array<std::string_view, 4> kInstructions = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                                       "TAKE BACK RETURN"};

}  // namespace hqc::tpch::vocab

namespace hqc::tpch {

namespace {

struct Weighted {
  std::string_view word;
  uint32_t weight;
};

class WordList {
 public:
  WordList(std::initializer_list<Weighted> words) : words_(words) {
    for (const Weighted& w : words_) total_ += w.weight;
  }
  std::string_view pick(RowRandom& rng) const {
    int64_t x = rng.uniform(0, total_ - 1);
    for (const Weighted& w : words_) {
      if (x < w.weight) return w.word;
      x -= w.weight;
    }
    return words_.back().word;  // unreachable: x < total_
  }

 private:
  std::vector<Weighted> words_;
  int64_t total_ = 0;
};

const WordList& nouns() {
  static const WordList list = {
      {"packages", 40},   {"requests", 40},   {"accounts", 40},     {"deposits", 40},      {"foxes", 20},
      {"ideas", 20},      {"theodolites", 20}, {"pinto beans", 20}, {"instructions", 20},  {"dependencies", 10},
      {"excuses", 10},    {"platelets", 10},  {"asymptotes", 10},   {"courts", 5},         {"dolphins", 5},
      {"multipliers", 1}, {"sauternes", 1},   {"warthogs", 1},      {"frets", 1},          {"dinos", 1},
      {"attainments", 1}, {"somas", 1},       {"Tiresias", 1},      {"patterns", 1},       {"forges", 1},
      {"braids", 1},      {"frays", 1},       {"warhorses", 1},     {"dugouts", 1},        {"notornis", 1},
      {"epitaphs", 1},    {"pearls", 1},      {"tithes", 1},        {"waters", 1},         {"orbits", 1},
      {"gifts", 1},       {"sheaves", 1},     {"depths", 1},        {"sentiments", 1},     {"decoys", 1},
      {"realms", 1},      {"pains", 1},       {"grouches", 1},      {"escapades", 1},      {"hockey players", 1}};
  return list;
}

const WordList& verbs() {
  static const WordList list = {
      {"sleep", 20}, {"wake", 20},  {"are", 20},      {"cajole", 20},  {"haggle", 20},  {"nag", 10},
      {"use", 10},   {"boost", 10}, {"affix", 5},     {"detect", 5},   {"integrate", 5}, {"maintain", 1},
      {"nod", 1},    {"was", 1},    {"lose", 1},      {"sublate", 1},  {"solve", 1},    {"thrash", 1},
      {"promise", 1}, {"engage", 1}, {"hinder", 1},   {"print", 1},    {"x-ray", 1},    {"breach", 1},
      {"eat", 1},    {"grow", 1},   {"impress", 1},   {"mold", 1},     {"poach", 1},    {"serve", 1},
      {"run", 1},    {"dazzle", 1}, {"snooze", 1},    {"doze", 1},     {"unwind", 1},   {"kindle", 1},
      {"play", 1},   {"hang", 1},   {"believe", 1},   {"doubt", 1}};
  return list;
}

const WordList& adjectives() {
  static const WordList list = {
      {"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20}, {"furious", 1},  {"sly", 1},
      {"careful", 1},  {"blithe", 1},   {"quick", 1},    {"fluffy", 1},   {"slow", 1},     {"quiet", 1},
      {"ruthless", 1}, {"thin", 1},     {"close", 1},    {"dogged", 1},   {"daring", 1},   {"brave", 1},
      {"stealthy", 1}, {"permanent", 1}, {"enticing", 1}, {"idle", 1},    {"busy", 1},     {"regular", 50},
      {"final", 40},   {"ironic", 40},  {"even", 30},    {"bold", 20},    {"silent", 10}};
  return list;
}

const WordList& adverbs() {
  static const WordList list = {
      {"sometimes", 1},  {"always", 1},    {"never", 1},     {"furiously", 50},  {"slyly", 50},
      {"carefully", 50}, {"blithely", 40}, {"quickly", 30},  {"fluffily", 20},   {"slowly", 1},
      {"quietly", 1},    {"ruthlessly", 1}, {"thinly", 1},   {"closely", 1},     {"doggedly", 1},
      {"daringly", 1},   {"bravely", 1},   {"stealthily", 1}, {"permanently", 1}, {"enticingly", 1},
      {"idly", 1},       {"busily", 1},    {"regularly", 1}, {"finally", 1},     {"ironically", 1},
      {"evenly", 1},     {"boldly", 1},    {"silently", 1}};
  return list;
}

const WordList& prepositions() {
  static const WordList list = {
      {"about", 50},     {"above", 50},   {"according to", 50}, {"across", 50},    {"after", 50},
      {"against", 40},   {"along", 40},   {"alongside of", 30}, {"among", 30},     {"around", 20},
      {"at", 10},        {"atop", 1},     {"before", 1},        {"behind", 1},     {"beneath", 1},
      {"beside", 1},     {"besides", 1},  {"between", 1},       {"beyond", 1},     {"by", 1},
      {"despite", 1},    {"during", 1},   {"except", 1},        {"for", 1},        {"from", 1},
      {"in place of", 1}, {"inside", 1},  {"instead of", 1},    {"into", 1},       {"near", 1},
      {"of", 1},         {"on", 1},       {"outside", 1},       {"over", 1},       {"past", 1},
      {"since", 1},      {"through", 1},  {"throughout", 1},    {"to", 1},         {"toward", 1},
      {"under", 1},      {"until", 1},    {"up", 1},            {"upon", 1},       {"without", 1},
      {"with", 1},       {"within", 1}};
  return list;
}

const WordList& auxiliaries() {
  static const WordList list = {
      {"do", 1},   {"may", 1},        {"might", 1},         {"shall", 1},         {"will", 1},
      {"would", 1}, {"can", 1},       {"could", 1},         {"should", 1},        {"ought to", 1},
      {"must", 1}, {"will have to", 1}, {"shall have to", 1}, {"could have to", 1}, {"should have to", 1},
      {"must have to", 1}, {"need to", 1}, {"try to", 1}};
  return list;
}

const WordList& terminators() {
  static const WordList list = {{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1}};
  return list;
}

// Appends words separated by single blanks; the caller adds the terminator to the last one.
class SentenceWriter {
 public:
  SentenceWriter(std::string& out, RowRandom& rng) : out_(out), rng_(rng) {}

  void word(std::string_view w) {
    if (!first_) out_ += ' ';
    out_ += w;
    first_ = false;
  }

  void noun_phrase() {
    switch (pick_index({10, 20, 10, 50})) {
      case 0: break;
      case 1: word(adjectives().pick(rng_)); break;
      case 2:
        word(adjectives().pick(rng_));
        out_ += ',';
        word(adjectives().pick(rng_));
        break;
      default:
        word(adverbs().pick(rng_));
        word(adjectives().pick(rng_));
    }
    word(nouns().pick(rng_));
  }

  void verb_phrase() {
    const int form = pick_index({30, 1, 40, 1});
    if (form == 1 || form == 3) word(auxiliaries().pick(rng_));
    word(verbs().pick(rng_));
    if (form >= 2) word(adverbs().pick(rng_));
  }

  void prepositional_phrase() {
    word(prepositions().pick(rng_));
    word("the");
    noun_phrase();
  }

  void sentence() {
    switch (pick_index({3, 3, 3, 1, 1})) {
      case 0: noun_phrase(); verb_phrase(); break;
      case 1: noun_phrase(); verb_phrase(); prepositional_phrase(); break;
      case 2: noun_phrase(); verb_phrase(); noun_phrase(); break;
      case 3: noun_phrase(); prepositional_phrase(); verb_phrase(); noun_phrase(); break;
      default: noun_phrase(); prepositional_phrase(); verb_phrase(); prepositional_phrase();
    }
    out_ += terminators().pick(rng_);
  }

 private:
  int pick_index(std::initializer_list<int64_t> weights) {
    int64_t total = 0;
    for (int64_t w : weights) total += w;
    int64_t x = rng_.uniform(0, total - 1);
    int i = 0;
    for (int64_t w : weights) {
      if (x < w) return i;
      x -= w;
      ++i;
    }
    return i - 1;
  }

  std::string& out_;
  RowRandom& rng_;
  bool first_ = true;
};

}  // namespace

TextPool::TextPool(uint64_t seed, uint64_t bytes, unsigned threads) {
  // Blocks of independent streams, so the pool is built in parallel and does not depend on `threads`.
  constexpr uint64_t kBlock = 64 * 1024;
  const uint64_t blocks = std::max<uint64_t>(1, (bytes + kBlock - 1) / kBlock);
  std::vector<std::string> parts(blocks);
  parallel_for(blocks, threads, [&](size_t b) {
    RowRandom rng(seed, Stream::TextPool, b);
    std::string& out = parts[b];
    out.reserve(kBlock + 256);
    while (out.size() < kBlock) {
      SentenceWriter(out, rng).sentence();
      out += ' ';
    }
  });
  text_.reserve(blocks * (kBlock + 256));
  for (const std::string& p : parts) text_ += p;
}

}  // namespace hqc::tpch
