// Stream/chunk time model and the optimal chunk count. See stream_model.h for the equations.
#include "planner/stream_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "storage/error.h"

namespace hqc::planner {
namespace {

void require_positive(double v, const char* what) {
  if (!(v > 0) || !std::isfinite(v)) {
    throw Error(ErrorKind::Input, std::string("stream model: ") + what + " must be a positive number, got " + std::to_string(v));
  }
}

void require_non_negative(const StreamTimes& t) {
  for (double v : {t.host_to_device, t.kernel, t.device_to_host, t.per_chunk_overhead}) {
    if (!(v >= 0) || !std::isfinite(v)) throw Error(ErrorKind::Input, "stream model: times must be finite and non-negative");
  }
}

}  // namespace

StreamTimes from_rates(const StreamRates& r) {
  require_positive(r.host_to_device_bytes_per_s, "host-to-device rate");
  require_positive(r.device_to_host_bytes_per_s, "device-to-host rate");
  require_positive(r.kernel_bytes_per_s, "kernel rate");
  if (r.bytes_in < 0 || r.bytes_out < 0 || r.per_chunk_overhead_s < 0) {
    throw Error(ErrorKind::Input, "stream model: byte counts and the per-chunk overhead must be non-negative");
  }
  return StreamTimes{r.bytes_in / r.host_to_device_bytes_per_s, r.bytes_in / r.kernel_bytes_per_s,
                     r.bytes_out / r.device_to_host_bytes_per_s, r.per_chunk_overhead_s};
}

double serial_seconds(const StreamTimes& t) {
  require_non_negative(t);
  return t.host_to_device + t.kernel + t.device_to_host + t.per_chunk_overhead;
}

double streamed_seconds(const StreamTimes& t, uint64_t chunks, Engines engines) {
  require_non_negative(t);
  if (chunks == 0) throw Error(ErrorKind::Input, "stream model: at least one chunk");
  const double n = static_cast<double>(chunks);
  const double overhead = n * t.per_chunk_overhead;
  switch (engines) {
    case Engines::ThreeEngines: {
      const double slowest = std::max({t.host_to_device, t.kernel, t.device_to_host});
      const double sum = t.host_to_device + t.kernel + t.device_to_host;
      return slowest + (sum - slowest) / n + overhead;
    }
    case Engines::OneCopyEngineOverlap:
      if (t.host_to_device > t.kernel) return t.host_to_device + t.kernel / n + t.device_to_host + overhead;
      return t.host_to_device / n + t.kernel + t.device_to_host + overhead;
  }
  return 0;
}

double continuous_optimal_chunks(const StreamTimes& t, Engines engines) {
  require_non_negative(t);
  double hidden = 0;  // the part of the time that shrinks as 1/n
  switch (engines) {
    case Engines::ThreeEngines: {
      const double slowest = std::max({t.host_to_device, t.kernel, t.device_to_host});
      hidden = t.host_to_device + t.kernel + t.device_to_host - slowest;
      break;
    }
    case Engines::OneCopyEngineOverlap:
      hidden = t.host_to_device > t.kernel ? t.kernel : t.host_to_device;
      break;
  }
  if (t.per_chunk_overhead == 0) return hidden > 0 ? std::numeric_limits<double>::infinity() : 1.0;
  return std::sqrt(hidden / t.per_chunk_overhead);
}

ChunkPlan optimal_chunks(const StreamTimes& t, Engines engines, uint64_t max_chunks) {
  if (max_chunks == 0) throw Error(ErrorKind::Input, "stream model: max_chunks must be at least 1");
  ChunkPlan plan;
  plan.serial_seconds = serial_seconds(t);
  plan.continuous_optimum = continuous_optimal_chunks(t, engines);
  const double clamped = std::clamp(plan.continuous_optimum, 1.0, static_cast<double>(max_chunks));
  const uint64_t lo = static_cast<uint64_t>(std::floor(clamped));
  const uint64_t hi = std::min<uint64_t>(max_chunks, static_cast<uint64_t>(std::ceil(clamped)));
  plan.chunks = lo;
  plan.seconds = streamed_seconds(t, lo, engines);
  const double at_hi = streamed_seconds(t, hi, engines);
  if (at_hi < plan.seconds) {
    plan.chunks = hi;
    plan.seconds = at_hi;
  }
  return plan;
}

const char* to_string(Engines engines) {
  switch (engines) {
    case Engines::ThreeEngines: return "three engines (H->D, kernel, D->H overlap)";
    case Engines::OneCopyEngineOverlap: return "one copy engine (H->D overlaps the kernel)";
  }
  return "?";
}

}  // namespace hqc::planner
