// Golden-file comparison for generated source. With HORSEQC_UPDATE_GOLDEN=1 in the environment the
// files are (re)written instead of compared; otherwise a missing or different file fails the test
// with the first differing line and the command that regenerates it.
#pragma once

#include <string>

#include "codegen/generated_program.h"

namespace hqc::test {

// Compares (or writes) tests/codegen/golden/<name>.<cu|cl> = dialect prelude + kernels, and
// <name>.<dialect>.manifest.json.
void check_golden(const std::string& name, const codegen::GeneratedProgram& program);

}  // namespace hqc::test
