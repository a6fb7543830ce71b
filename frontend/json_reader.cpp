// Path-aware JSON access and the non-throwing document parser (frontend/json_reader.h).
#include "frontend/json_reader.h"

#include <algorithm>
#include <limits>

#include "storage/error.h"

namespace hqc::plan {

using nlohmann::json;

std::string json_kind(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    default: return "an unknown value";
  }
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  size_t limit = std::max<size_t>(2, name.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best = closest_name(name, candidates);
  return best.empty() ? "" : " (did you mean \"" + best + "\"?)";
}

void JsonNode::fail(const std::string& message) const {
  throw Error(ErrorKind::Input, source() + ": " + path_ + ": " + message);
}

void JsonNode::unsupported(const std::string& message) const {
  throw Error(ErrorKind::Unsupported, source() + ": " + path_ + ": " + message);
}

bool JsonNode::has(const char* field) const { return value_->is_object() && value_->contains(field); }

JsonNode JsonNode::at(const char* field) const {
  if (!value_->is_object()) fail(std::string("expected an object with field \"") + field + "\", found " + json_kind(*value_));
  auto it = value_->find(field);
  if (it == value_->end()) fail(std::string("missing field \"") + field + "\"");
  return JsonNode(*it, path_ + "." + field, *source_);
}

std::optional<JsonNode> JsonNode::find(const char* field) const {
  if (!has(field)) return std::nullopt;
  return at(field);
}

std::vector<JsonNode> JsonNode::elements() const {
  if (!value_->is_array()) fail("expected an array, found " + json_kind(*value_));
  std::vector<JsonNode> out;
  for (size_t i = 0; i < value_->size(); ++i) out.emplace_back((*value_)[i], path_ + "[" + std::to_string(i) + "]", *source_);
  return out;
}

std::vector<JsonNode> JsonNode::array(const char* field) const { return at(field).elements(); }

std::string JsonNode::as_string() const {
  if (!value_->is_string()) fail("expected a string, found " + json_kind(*value_));
  return value_->get<std::string>();
}

int64_t JsonNode::as_int() const {
  if (value_->is_number_unsigned()) {
    uint64_t u = value_->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) fail("integer " + std::to_string(u) + " does not fit in 64 bits");
    return static_cast<int64_t>(u);
  }
  if (!value_->is_number_integer()) fail("expected an integer, found " + json_kind(*value_));
  return value_->get<int64_t>();
}

bool JsonNode::as_bool() const {
  if (!value_->is_boolean()) fail("expected true or false, found " + json_kind(*value_));
  return value_->get<bool>();
}

double JsonNode::as_number() const {
  if (!value_->is_number()) fail("expected a number, found " + json_kind(*value_));
  return value_->get<double>();
}

void JsonNode::expect_object(const std::vector<std::string>& allowed) const {
  if (!value_->is_object()) fail("expected an object, found " + json_kind(*value_));
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      fail("unknown field \"" + it.key() + "\"" + did_you_mean(it.key(), allowed));
    }
  }
}

void JsonNode::expect_object(std::initializer_list<const char*> allowed) const {
  expect_object(std::vector<std::string>(allowed.begin(), allowed.end()));
}

namespace {

// Builds the DOM through nlohmann's own DOM builder and records where a syntax error happened;
// also bounds nesting so that later recursive binding cannot exhaust the stack.
class PositionRecordingSax {
 public:
  explicit PositionRecordingSax(json& root) : dom_(root, false) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return dom_.number_float(v, s); }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return enter() && dom_.start_object(n); }
  bool key(json::string_t& v) { return dom_.key(v); }
  bool end_object() { --depth_; return dom_.end_object(); }
  bool start_array(std::size_t n) { return enter() && dom_.start_array(n); }
  bool end_array() { --depth_; return dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    failed_ = true;
    byte_ = position;
    std::string what = ex.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, column 2: "
    auto colon = what.find(": ");
    message_ = colon == std::string::npos ? what : what.substr(colon + 2);
    return false;
  }

  bool failed() const { return failed_; }
  size_t byte() const { return byte_; }
  const std::string& message() const { return message_; }

 private:
  static constexpr int kMaxDepth = 256;
  bool enter() {
    if (++depth_ > kMaxDepth) {
      failed_ = true;
      message_ = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
      return false;
    }
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int depth_ = 0;
  bool failed_ = false;
  size_t byte_ = 0;
  std::string message_;
};

}  // namespace

json parse_json_document(const std::string& text, const std::string& source) {
  json root;
  PositionRecordingSax sax(root);
  bool ok = json::sax_parse(text, &sax, json::input_format_t::json, true);
  if (!ok || sax.failed()) {
    std::string where = sax.byte() ? "byte " + std::to_string(sax.byte()) : "document";
    throw Error(ErrorKind::Input, source + ": " + where + ": malformed JSON: " +
                                      (sax.message().empty() ? std::string("syntax error") : sax.message()));
  }
  return root;
}

}  // namespace hqc::plan
