// Row-count arithmetic and scale-factor checks of the data generators; see gen_options.h.
#include "storage/generation/gen_options.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "storage/error.h"

namespace hqc::gen {

uint64_t scaled(double base, double sf) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(base * sf)));
}

void check_scale_factor(const char* benchmark, double sf) {
  if (!std::isfinite(sf) || sf <= 0)
    throw Error(ErrorKind::Usage,
                std::string(benchmark) + " scale factor must be a positive number, got " + std::to_string(sf));
}

}  // namespace hqc::gen
