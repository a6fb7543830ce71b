// A Backend that forwards every call to a real one (OpenCL on PoCL here, CUDA on a GPU machine), for
// tests that watch or change one part of a backend's behaviour by overriding it (runtime_concurrent's
// recording of launches and uploads).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/device/backend.h"

namespace hqc::test {

class ForwardingBackend : public runtime::Backend {
 public:
  using Backend = runtime::Backend;
  using DeviceProperties = runtime::DeviceProperties;
  using DevicePrimitives = runtime::DevicePrimitives;
  using DeviceBuffer = runtime::DeviceBuffer;
  using Event = runtime::Event;
  using Kernel = runtime::Kernel;
  using KernelArg = runtime::KernelArg;
  using LaunchConfig = runtime::LaunchConfig;
  using Module = runtime::Module;
  using ModuleSource = runtime::ModuleSource;
  using Stream = runtime::Stream;
  using TimedLaunch = runtime::TimedLaunch;

  explicit ForwardingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  ~ForwardingBackend() override { drop_scratch(); }  // its buffers free through inner_, destroyed next

  codegen::Dialect dialect() const override { return inner_->dialect(); }
  const DeviceProperties& properties() const override { return inner_->properties(); }
  uint64_t free_memory() override { return inner_->free_memory(); }
  void launch(const Kernel& k, const std::vector<KernelArg>& a, const LaunchConfig& c) override { inner_->launch(k, a, c); }
  double launch_timed(const Kernel& k, const std::vector<KernelArg>& a, const LaunchConfig& c) override {
    return inner_->launch_timed(k, a, c);
  }
  void synchronize() override { inner_->synchronize(); }
  void launch_on(const Stream& s, const Kernel& k, const std::vector<KernelArg>& a, const LaunchConfig& c) override {
    inner_->launch_on(s, k, a, c);
  }
  TimedLaunch launch_on_timed(const Stream& s, const Kernel& k, const std::vector<KernelArg>& a, const LaunchConfig& c) override {
    return inner_->launch_on_timed(s, k, a, c);  // its events release themselves on the inner backend
  }
  Interval launch_interval_ms(const TimedLaunch& l, const TimedLaunch& o) override { return inner_->launch_interval_ms(l, o); }
  void wait(const Stream& s, const Event& e) override { inner_->wait(s, e); }
  void synchronize(const Stream& s) override { inner_->synchronize(s); }
  void copy_device(const DeviceBuffer& t, const DeviceBuffer& s, uint64_t bytes) override { inner_->copy_device(t, s, bytes); }
  DevicePrimitives& primitives() override { return inner_->primitives(); }
  std::string cache_identity() const override { return inner_->cache_identity(); }
  uint64_t raw_allocate(uint64_t bytes) override { return inner_->raw_allocate(bytes); }
  void raw_free(uint64_t h) noexcept override { inner_->raw_free(h); }
  void raw_upload(uint64_t h, uint64_t o, const void* p, uint64_t b) override { inner_->raw_upload(h, o, p, b); }
  void raw_download(uint64_t h, uint64_t o, void* p, uint64_t b) override { inner_->raw_download(h, o, p, b); }
  void raw_fill(uint64_t h, uint64_t b, const void* p, uint32_t pb) override { inner_->raw_fill(h, b, p, pb); }
  std::vector<char> compile_binary(const ModuleSource& s, std::string& log) override { return inner_->compile_binary(s, log); }
  std::shared_ptr<Module> load_binary(const std::vector<char>& b, const ModuleSource& s) override {
    return inner_->load_binary(b, s);
  }
  void raw_unload(uint64_t h) noexcept override { inner_->raw_unload(h); }
  uint64_t raw_allocate_pinned(uint64_t bytes, void** data) override { return inner_->raw_allocate_pinned(bytes, data); }
  void raw_free_pinned(uint64_t h, void* d) noexcept override { inner_->raw_free_pinned(h, d); }
  uint64_t raw_create_stream() override { return inner_->raw_create_stream(); }
  void raw_destroy_stream(uint64_t h) noexcept override { inner_->raw_destroy_stream(h); }
  uint64_t raw_record(uint64_t s) override { return inner_->raw_record(s); }
  void raw_release_event(uint64_t e) noexcept override { inner_->raw_release_event(e); }
  void raw_upload_async(uint64_t s, uint64_t t, uint64_t o, const void* h, uint64_t b) override {
    inner_->raw_upload_async(s, t, o, h, b);
  }

 protected:
  Backend& inner() { return *inner_; }

 private:
  std::unique_ptr<Backend> inner_;
};

}  // namespace hqc::test
