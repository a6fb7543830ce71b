// Path-aware access to a parsed JSON document, shared by the plan binder's operator and
// expression halves. Every accessor that can fail throws hqc::Error(Input) whose message is
// "<source>: <json path>: <what was expected>", so no caller formats an error by hand.
//
// Contract: a JsonNode refers into a document that outlives it; paths use "$", ".field" and
// "[index]" ($.plan.input.aggregates[0].arg).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hqc::plan {

class JsonNode {
 public:
  JsonNode(const nlohmann::json& value, std::string path, const std::string& source)
      : value_(&value), path_(std::move(path)), source_(&source) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return *source_; }

  bool has(const char* field) const;
  // Required member of an object (Error naming the missing field otherwise).
  JsonNode at(const char* field) const;
  std::optional<JsonNode> find(const char* field) const;
  // Elements of a required array member.
  std::vector<JsonNode> array(const char* field) const;
  // This node's elements; Error unless it is an array.
  std::vector<JsonNode> elements() const;

  std::string as_string() const;
  int64_t as_int() const;
  bool as_bool() const;
  double as_number() const;

  // Error unless this node is an object whose keys are all in `allowed`; suggests a close name.
  void expect_object(std::initializer_list<const char*> allowed) const;
  void expect_object(const std::vector<std::string>& allowed) const;

  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void unsupported(const std::string& message) const;

 private:
  const nlohmann::json* value_;
  std::string path_;
  const std::string* source_;
};

// A JSON type in words for messages: "a string", "an array", "null", ...
std::string json_kind(const nlohmann::json& v);

// The candidate closest to `name` by edit distance, or "" when none is close enough to be a
// plausible typo (distance <= max(2, |name| / 3)).
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);
// " (did you mean \"x\"?)" or "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

// Parses without exceptions; Error(Input) "<source>: byte <n>: <what>" on a syntax error.
nlohmann::json parse_json_document(const std::string& text, const std::string& source);

}  // namespace hqc::plan
