// Byte size parsing; see byte_size.h.
#include "tools/cli/byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "storage/error.h"

namespace hqc::cli {

uint64_t parse_byte_size(const std::string& text, const std::string& option) {
  const std::string accepted = option + ": expected a size such as 4GiB, 512MiB, 1.5GB or 1048576 (bytes), got \"" + text + "\"";
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) throw Error(ErrorKind::Usage, accepted);
  char* end = nullptr;
  const std::string number = text.substr(0, i);
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) throw Error(ErrorKind::Usage, accepted);
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit;
  for (; i < text.size(); ++i) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else if (unit == "tb") scale = 1e12;
  else if (unit == "kib") scale = 1024.0;
  else if (unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
  else throw Error(ErrorKind::Usage, accepted);
  const double bytes = std::floor(value * scale);
  if (!(bytes >= 1) || bytes >= 18446744073709551616.0) throw Error(ErrorKind::Usage, accepted);
  return static_cast<uint64_t>(bytes);
}

}  // namespace hqc::cli
