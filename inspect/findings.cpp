// Names of findings.h's enums, and lookups.
#include "inspect/findings.h"

namespace hqc::inspect {

const char* space_name(Space s) {
  switch (s) {
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Private: return "private";
    case Space::Unknown: return "unknown";
  }
  return "?";
}

const char* position_name(Position p) {
  switch (p) {
    case Position::PerTuple: return "per tuple";
    case Position::PerWarp: return "per warp";
    case Position::PerCta: return "per CTA";
    case Position::PerThread: return "per thread";
  }
  return "?";
}

const ArrayUse* KernelFindings::find_array(const std::string& array) const {
  for (const ArrayUse& a : arrays)
    if (a.name == array) return &a;
  return nullptr;
}

}  // namespace hqc::inspect
