// The embedded templates are byte-for-byte the files under templates/, and the embedding step
// survives content that would break a naive raw-string or chunking scheme (embed_fixture.txt).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "storage/error.h"
#include "templates/embedded.h"
#include "templates/template_library.h"

namespace hqc::test::fixture {
const std::vector<hqc::templates::detail::EmbeddedFile>& embedded_files();
}

namespace {

std::string source_dir() {
  const char* dir = std::getenv("HORSEQC_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("every embedded template equals its file on disk") {
  const auto& names = hqc::templates::template_names();
  REQUIRE(names.size() >= 8);
  for (const std::string& name : names) {
    CAPTURE(name);
    CHECK(hqc::templates::template_source(name) == read_file(source_dir() + "/templates/" + name));
  }
}

TEST_CASE("the library order names embedded files only") {
  for (const std::string& name : hqc::templates::library_files()) {
    CAPTURE(name);
    CHECK_FALSE(hqc::templates::template_source(name).empty());
  }
}

TEST_CASE("an unknown template name is an error naming the known ones") {
  try {
    (void)hqc::templates::template_source("device/nope.h");
    FAIL("expected an error");
  } catch (const hqc::Error& e) {
    CHECK(e.kind() == hqc::ErrorKind::Internal);
    CHECK(std::string(e.what()).find("device/scan.h") != std::string::npos);
  }
}

TEST_CASE("awkward content survives embedding in 7-byte chunks") {
  const auto& files = hqc::test::fixture::embedded_files();
  REQUIRE(files.size() == 1);
  CHECK(files[0].name == "embed_fixture.txt");
  std::string joined;
  size_t max_chunk = 0;
  for (std::string_view c : files[0].chunks) {
    joined.append(c);
    max_chunk = std::max(max_chunk, c.size());
  }
  CHECK(files[0].chunks.size() > 20);
  CHECK(max_chunk <= 7);
  CHECK(joined == read_file(source_dir() + "/tests/templates/embed_fixture.txt"));
}
