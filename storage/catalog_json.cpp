// Catalog <-> JSON (format: docs/schema-format.md).
//
// Contract: from_json accepts exactly the documented format and rejects everything else with an
// hqc::Error (ErrorKind::Input) whose message reads "<source>: <JSON path>: expected ..., found ...";
// unknown keys are errors (a misspelt "encodng" must not silently mean the default). After parsing,
// names are unique, keys name existing columns, foreign keys name existing tables and columns of the
// same count, and encodings fit the types. to_json writes every field, so from_json(to_json(c))
// reproduces c exactly.
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "storage/catalog.h"
#include "storage/error.h"

namespace hqc {

namespace {

using nlohmann::json;

// Short rendering of the offending JSON value for messages.
std::string shown(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

class SchemaReader {
 public:
  explicit SchemaReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& expected, const json* found) const {
    std::string msg = source_ + ": " + path + ": expected " + expected;
    if (found) msg += ", found " + shown(*found);
    throw Error(ErrorKind::Input, msg);
  }

  const json& member(const json& obj, const std::string& path, const char* key) const {
    if (!obj.contains(key)) fail(path, std::string("a member \"") + key + "\"", nullptr);
    return obj.at(key);
  }

  void only_keys(const json& obj, const std::string& path, std::initializer_list<const char*> allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool known = false;
      for (const char* k : allowed) known = known || it.key() == k;
      if (!known) {
        std::string list;
        for (const char* k : allowed) list += (list.empty() ? "" : ", ") + std::string(k);
        const json key = it.key();
        fail(path, "only the members " + list, &key);
      }
    }
  }

  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "an object", &v);
    return v;
  }

  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "an array", &v);
    return v;
  }

  std::string name(const json& v, const std::string& path) const {
    const char* what = "a name of letters, digits and '_' not starting with a digit";
    if (!v.is_string()) fail(path, what, &v);
    const std::string s = v.get<std::string>();
    bool ok = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
    for (char c : s) ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
    if (!ok) fail(path, what, &v);
    return s;
  }

  std::vector<std::string> names(const json& v, const std::string& path) const {
    array(v, path);
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(name(v[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }

  ColumnDef column(const json& v, const std::string& path) const {
    object(v, path);
    only_keys(v, path, {"name", "type", "encoding", "text_format"});
    ColumnDef c;
    c.name = name(member(v, path, "name"), path + ".name");
    const json& type = member(v, path, "type");
    if (!type.is_string()) fail(path + ".type", "a type name string", &type);
    try {
      c.type = DataType::parse(type.get<std::string>());
    } catch (const std::invalid_argument&) {
      fail(path + ".type", "a type such as int32, int64, date, float64, decimal(15,2), char(25), varchar(44)", &type);
    }
    if (c.type.id == TypeId::Bool) fail(path + ".type", "a storable type (bool exists only inside expressions)", &type);
    c.encoding = c.type.is_string() ? Encoding::Heap : Encoding::Plain;
    if (v.contains("encoding")) {
      const json& e = v.at("encoding");
      const std::string p = path + ".encoding";
      if (c.type.is_string()) {
        if (e == "dictionary") c.encoding = Encoding::Dictionary;
        else if (e == "heap") c.encoding = Encoding::Heap;
        else fail(p, "\"dictionary\" or \"heap\" for a string column", &e);
      } else if (e != "plain") {
        fail(p, "\"plain\" for a " + c.type.to_string() + " column", &e);
      }
    }
    if (v.contains("text_format")) {
      const json& f = v.at("text_format");
      const std::string p = path + ".text_format";
      if (!f.is_string()) fail(p, "a string", &f);
      c.text_format = f.get<std::string>();
      if (c.type.id != TypeId::Date)
        fail(p, "no text_format on a " + c.type.to_string() + " column (only date columns take \"yyyymmdd\")", &f);
      if (c.text_format != "yyyymmdd") fail(p, "\"yyyymmdd\" (the text spells dates as 8-digit integers)", &f);
    }
    return c;
  }

  void check_columns_exist(const TableDef& t, const std::vector<std::string>& cols, const std::string& path) const {
    for (size_t i = 0; i < cols.size(); ++i)
      if (!t.find(cols[i])) {
        const json bad = cols[i];
        fail(path + "[" + std::to_string(i) + "]", "a column of table " + t.name, &bad);
      }
  }

  TableDef table(const json& v, const std::string& path) const {
    object(v, path);
    only_keys(v, path, {"name", "columns", "primary_key", "foreign_keys", "rows_at_sf1", "scales_with_sf"});
    TableDef t;
    t.name = name(member(v, path, "name"), path + ".name");
    const json& cols = array(member(v, path, "columns"), path + ".columns");
    if (cols.empty()) fail(path + ".columns", "at least one column", &cols);
    std::set<std::string> seen;
    for (size_t i = 0; i < cols.size(); ++i) {
      const std::string p = path + ".columns[" + std::to_string(i) + "]";
      t.columns.push_back(column(cols[i], p));
      if (!seen.insert(t.columns.back().name).second) {
        const json dup = t.columns.back().name;
        fail(p + ".name", "a column name not used before in table " + t.name, &dup);
      }
    }
    if (v.contains("primary_key")) {
      t.primary_key = names(v.at("primary_key"), path + ".primary_key");
      check_columns_exist(t, t.primary_key, path + ".primary_key");
    }
    if (v.contains("rows_at_sf1")) {
      const json& r = v.at("rows_at_sf1");
      if (!r.is_number_unsigned()) fail(path + ".rows_at_sf1", "a non-negative integer", &r);
      t.rows_at_sf1 = r.get<uint64_t>();
    }
    if (v.contains("scales_with_sf")) {
      const json& s = v.at("scales_with_sf");
      if (!s.is_boolean()) fail(path + ".scales_with_sf", "true or false", &s);
      t.scales_with_sf = s.get<bool>();
    }
    if (v.contains("foreign_keys")) {
      const json& fks = array(v.at("foreign_keys"), path + ".foreign_keys");
      for (size_t i = 0; i < fks.size(); ++i) {
        const std::string p = path + ".foreign_keys[" + std::to_string(i) + "]";
        object(fks[i], p);
        only_keys(fks[i], p, {"columns", "references", "ref_columns"});
        ForeignKey fk;
        fk.columns = names(member(fks[i], p, "columns"), p + ".columns");
        if (fk.columns.empty()) fail(p + ".columns", "at least one column", &fks[i].at("columns"));
        check_columns_exist(t, fk.columns, p + ".columns");
        fk.ref_table = name(member(fks[i], p, "references"), p + ".references");
        fk.ref_columns = names(member(fks[i], p, "ref_columns"), p + ".ref_columns");
        if (fk.ref_columns.size() != fk.columns.size())
          fail(p + ".ref_columns", std::to_string(fk.columns.size()) + " column(s) like \"columns\"",
               &fks[i].at("ref_columns"));
        t.foreign_keys.push_back(std::move(fk));
      }
    }
    return t;
  }

  // References are resolved after every table is read, so tables may appear in any order.
  void check_references(const Catalog& c, const json& tables) const {
    for (size_t ti = 0; ti < c.tables.size(); ++ti) {
      const TableDef& t = c.tables[ti];
      for (size_t fi = 0; fi < t.foreign_keys.size(); ++fi) {
        const ForeignKey& fk = t.foreign_keys[fi];
        const std::string p = "$.tables[" + std::to_string(ti) + "].foreign_keys[" + std::to_string(fi) + "]";
        const TableDef* ref = c.find(fk.ref_table);
        if (!ref) fail(p + ".references", "the name of a table in this schema", &tables[ti]["foreign_keys"][fi]["references"]);
        for (size_t k = 0; k < fk.ref_columns.size(); ++k)
          if (!ref->find(fk.ref_columns[k]))
            fail(p + ".ref_columns[" + std::to_string(k) + "]", "a column of table " + ref->name,
                 &tables[ti]["foreign_keys"][fi]["ref_columns"][k]);
      }
    }
  }

  Catalog catalog(const json& root) const {
    object(root, "$");
    only_keys(root, "$", {"name", "tables"});
    Catalog c;
    c.name = name(member(root, "$", "name"), "$.name");
    const json& tables = array(member(root, "$", "tables"), "$.tables");
    if (tables.empty()) fail("$.tables", "at least one table", &tables);
    std::set<std::string> seen;
    for (size_t i = 0; i < tables.size(); ++i) {
      const std::string p = "$.tables[" + std::to_string(i) + "]";
      c.tables.push_back(table(tables[i], p));
      if (!seen.insert(c.tables.back().name).second) {
        const json dup = c.tables.back().name;
        fail(p + ".name", "a table name not used before", &dup);
      }
    }
    check_references(c, tables);
    return c;
  }

 private:
  std::string source_;
};

}  // namespace

Catalog Catalog::from_json(const std::string& json_text, const std::string& source_name) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    // nlohmann's text reads "[json.exception.parse_error.101] parse error at line 1, column 2: ...";
    // keep the position and the reason, drop the library's exception id.
    const std::string what = e.what();
    const size_t at = what.find("parse error at ");
    if (at != std::string::npos) throw Error(ErrorKind::Input, source_name + ": invalid JSON " + what.substr(at + 12));
    throw Error(ErrorKind::Input, source_name + ": invalid JSON at byte " + std::to_string(e.byte) + ": " + what);
  }
  return SchemaReader(source_name).catalog(root);
}

std::string Catalog::to_json() const {
  using json = nlohmann::ordered_json;  // keep "name" first: the file is meant to be read by people
  json root;
  root["name"] = name;
  root["tables"] = json::array();
  for (const TableDef& t : tables) {
    json jt;
    jt["name"] = t.name;
    jt["columns"] = json::array();
    for (const ColumnDef& c : t.columns) {
      json jc{{"name", c.name}, {"type", c.type.to_string()}, {"encoding", encoding_name(c.encoding)}};
      if (!c.text_format.empty()) jc["text_format"] = c.text_format;
      jt["columns"].push_back(std::move(jc));
    }
    jt["primary_key"] = t.primary_key;
    jt["foreign_keys"] = json::array();
    for (const ForeignKey& fk : t.foreign_keys)
      jt["foreign_keys"].push_back({{"columns", fk.columns}, {"references", fk.ref_table}, {"ref_columns", fk.ref_columns}});
    jt["rows_at_sf1"] = t.rows_at_sf1;
    jt["scales_with_sf"] = t.scales_with_sf;
    root["tables"].push_back(std::move(jt));
  }
  return root.dump(2) + "\n";
}

}  // namespace hqc
