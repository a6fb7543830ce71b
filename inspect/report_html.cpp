#include "inspect/inspect.h"
namespace hqc::inspect {
std::string render_html(const QueryReport&, const std::string&) { return ""; }
}
