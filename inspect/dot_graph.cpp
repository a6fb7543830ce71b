#include "inspect/inspect.h"
namespace hqc::inspect {
std::string render_dot(const ir::Program&, const codegen::GeneratedProgram&) { return ""; }
}
