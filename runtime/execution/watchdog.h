// The watchdog: no query may hang silently.
//
// Contract: a program arms the watchdog once (arm(limit)); the executors then mark what runs with a
// Watchdog::Phase scope (query label, phase: compile / transfer / kernels / finalize, and what it is
// doing: the kernel launched last, the wave). A monitor thread wakes a few times a second; when the
// innermost open phase has run longer than the limit, it prints
//   "<program>: error: <query>: the <phase> phase (<detail>) has run for N s, over the watchdog's
//    limit of L s; stopping"
// on stderr and ends the process with exit code 5 (a device fault: a kernel that does not return, a
// driver compile that does not finish). Nothing is printed on stdout then, so no partial result
// looks whole. A phase is never interrupted otherwise; a disarmed watchdog (limit 0, the default for
// library users and tests) costs one mutex per phase.
#pragma once

#include <chrono>
#include <string>

namespace hqc::runtime {

class Watchdog {
 public:
  // Starts the monitor (once per process); `limit_seconds` <= 0 disarms it. `program` prefixes the
  // message ("horseqc-run").
  static void arm(double limit_seconds, const std::string& program);
  static double limit_seconds();

  // Marks a phase for as long as it lives; phases nest (a kernel inside the kernels phase).
  class Phase {
   public:
    Phase(std::string query, std::string phase, std::string detail = "");
    ~Phase();
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;
    // What the phase is doing now (the kernel just launched), for the message.
    void detail(std::string what);

   private:
    size_t depth_;
  };
};

}  // namespace hqc::runtime
