// Byte offset → line:column, and SQL error formatting (frontend/sql/sql_source.h).
#include "frontend/sql/sql_source.h"

#include "storage/error.h"

namespace hqc::sql {

std::string SqlSource::position(int location) const {
  size_t end = location < 0 || static_cast<size_t>(location) > text.size() ? text.size() : static_cast<size_t>(location);
  int line = 1, column = 1;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return name + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void SqlSource::fail(int location, const std::string& message) const {
  throw Error(ErrorKind::Input, position(location) + ": " + message);
}

void SqlSource::unsupported(int location, const std::string& message) const {
  throw Error(ErrorKind::Unsupported, position(location) + ": " + message);
}

}  // namespace hqc::sql
