// The progress bar: silent for short work, drawn (and erased) for long work, thread-safe counting.
#include <doctest/doctest.h>

#include <sstream>
#include <thread>
#include <vector>

#include "storage/progress.h"

using namespace hqc;

TEST_CASE("short work draws nothing") {
  std::ostringstream sink;
  {
    Progress p("loading x.tbl", 100, Progress::Unit::Bytes, {.delay = std::chrono::milliseconds(1000), .sink = &sink});
    p.advance(100);
  }
  CHECK(sink.str().empty());
}

TEST_CASE("long work draws a bar and clears it when finished") {
  std::ostringstream sink;
  Progress p("generating lineorder", 1000, Progress::Unit::Rows, {.delay = std::chrono::milliseconds(0), .sink = &sink});
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i)
    workers.emplace_back([&] {
      for (int k = 0; k < 125; ++k) p.advance(1);
    });
  for (std::thread& t : workers) t.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  p.finish();
  p.finish();  // idempotent
  CHECK(p.done() == 500);
  const std::string out = sink.str();
  CHECK(out.find("generating lineorder [") != std::string::npos);
  CHECK(out.find("50%") != std::string::npos);
  CHECK(out.ends_with("\r\x1b[K"));
}

TEST_CASE("render shows fraction, amounts and time") {
  Progress p("loading a.tbl", 2u << 20, Progress::Unit::Bytes, {.enabled = false});
  p.advance(1u << 20);
  CHECK(p.render(std::chrono::milliseconds(1500)) ==
        "loading a.tbl [###############...............]  50%  1.0 MiB / 2.0 MiB  1.5 s");
  Progress disabled("x", 1, Progress::Unit::Rows, {.delay = std::chrono::milliseconds(0), .enabled = false});
  CHECK(disabled.render(std::chrono::seconds(0)).find("0 rows / 1 rows") != std::string::npos);
}
