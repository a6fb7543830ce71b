// Backend-independent parts of the device abstraction: buffer and module ownership, the
// cache-aware compile path, device choice parsing and open_backend()'s selection order.
//
// Selection order for DeviceChoice::Auto: CUDA if the driver loads and reports a device, else an
// OpenCL GPU, else an OpenCL CPU. An explicit choice never falls back; its error says why.
#include "runtime/device/backend.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "runtime/device/cuda_backend.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/device/opencl_backend.h"
#include "storage/error.h"

namespace hqc::runtime {

DeviceChoice parse_device_choice(std::string_view text) {
  if (text == "auto") return DeviceChoice::Auto;
  if (text == "cuda") return DeviceChoice::Cuda;
  if (text == "opencl") return DeviceChoice::OpenCL;
  throw Error(ErrorKind::Usage, "unknown device \"" + std::string(text) + "\": expected auto, cuda or opencl");
}

const char* device_choice_name(DeviceChoice choice) {
  switch (choice) {
    case DeviceChoice::Auto: return "auto";
    case DeviceChoice::Cuda: return "cuda";
    case DeviceChoice::OpenCL: return "opencl";
  }
  return "?";
}

// ---- DeviceBuffer ----

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : owner_(other.owner_), handle_(other.handle_), bytes_(other.bytes_) {
  other.owner_ = nullptr;
  other.handle_ = 0;
  other.bytes_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = other.owner_;
    handle_ = other.handle_;
    bytes_ = other.bytes_;
    other.owner_ = nullptr;
    other.handle_ = 0;
    other.bytes_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (owner_ != nullptr) {
    owner_->raw_free(handle_);
    owner_->note_released(bytes_);
  }
  owner_ = nullptr;
  handle_ = 0;
  bytes_ = 0;
}

static void check_range(const char* what, uint64_t offset, uint64_t bytes, uint64_t size) {
  if (offset > size || bytes > size - offset) {
    throw Error(ErrorKind::Internal, std::string("device buffer ") + what + " out of range: offset " +
                                         std::to_string(offset) + " + " + std::to_string(bytes) +
                                         " bytes > buffer size " + std::to_string(size));
  }
}

void DeviceBuffer::upload(const void* host, uint64_t bytes, uint64_t offset) {
  if (bytes == 0) return;
  if (owner_ == nullptr) throw Error(ErrorKind::Internal, "upload to a released device buffer");
  check_range("upload", offset, bytes, bytes_);
  owner_->raw_upload(handle_, offset, host, bytes);
}

void DeviceBuffer::download(void* host, uint64_t bytes, uint64_t offset) const {
  if (bytes == 0) return;
  if (owner_ == nullptr) throw Error(ErrorKind::Internal, "download from a released device buffer");
  check_range("download", offset, bytes, bytes_);
  owner_->raw_download(handle_, offset, host, bytes);
}

void DeviceBuffer::fill(const void* pattern, uint32_t pattern_bytes) {
  if (pattern_bytes != 4 && pattern_bytes != 8) {
    throw Error(ErrorKind::Internal, "device buffer fill pattern must be 4 or 8 bytes, got " +
                                         std::to_string(pattern_bytes));
  }
  if (bytes_ % pattern_bytes != 0) {
    throw Error(ErrorKind::Internal, "device buffer of " + std::to_string(bytes_) +
                                         " bytes is not a multiple of the fill pattern (" +
                                         std::to_string(pattern_bytes) + " bytes)");
  }
  if (bytes_ == 0) return;
  if (owner_ == nullptr) throw Error(ErrorKind::Internal, "fill of a released device buffer");
  owner_->raw_fill(handle_, bytes_, pattern, pattern_bytes);
}

// ---- Module ----

Module::~Module() {
  if (owner_ != nullptr) owner_->raw_unload(handle_);
}

const Kernel& Module::kernel(const std::string& name) const {
  for (const Kernel& k : kernels_) {
    if (k.name == name) return k;
  }
  for (const std::shared_ptr<const Module>& library : libraries_) {
    for (const Kernel& k : library->kernels_) {
      if (k.name == name) return k;
    }
  }
  std::string known;
  for (const Kernel& k : kernels_) known += (known.empty() ? "" : ", ") + k.name;
  for (const std::shared_ptr<const Module>& library : libraries_) {
    for (const Kernel& k : library->kernels_) known += (known.empty() ? "" : ", ") + k.name;
  }
  throw Error(ErrorKind::Internal, "kernel \"" + name + "\" is not in the module (it has: " + known + ")");
}

void Module::link(std::shared_ptr<const Module> library) {
  if (library.get() == this) return;
  for (const std::shared_ptr<const Module>& l : libraries_) {
    if (l == library) return;
  }
  libraries_.push_back(std::move(library));
}

// ---- Backend ----

std::string Backend::device_description() const {
  const DeviceProperties& p = properties();
  std::ostringstream out;
  out << name() << ": " << p.name << " (" << p.vendor;
  if (p.compute_major > 0) out << ", compute capability " << p.compute_major << "." << p.compute_minor;
  out << ", " << p.api_version;
  if (!p.driver_version.empty()) out << ", driver " << p.driver_version;
  out << ", " << p.multiprocessors << (dialect() == codegen::Dialect::Cuda ? " SMs" : " compute units");
  out << ", " << (p.global_memory >> 20) << " MiB" << (p.is_gpu ? "" : ", CPU device") << ")";
  return out.str();
}

DeviceBuffer Backend::allocate(uint64_t bytes) {
  // A zero-byte buffer still gets a real allocation of one word so kernels can take its address.
  uint64_t handle = 0;
  try {
    handle = raw_allocate(bytes == 0 ? 8 : bytes);
  } catch (const Error&) {
    if (scratch_.empty()) throw;
    drop_scratch();  // the cached temporaries give way
    handle = raw_allocate(bytes == 0 ? 8 : bytes);
  }
  allocated_bytes_ += bytes;
  return DeviceBuffer(this, handle, bytes);
}

// The first kept buffer of at least `bytes` (they are kept smallest first).
static std::vector<DeviceBuffer>::iterator first_of_size(std::vector<DeviceBuffer>& kept, uint64_t bytes) {
  return std::lower_bound(kept.begin(), kept.end(), bytes, [](const DeviceBuffer& b, uint64_t n) { return b.bytes() < n; });
}

DeviceBuffer Backend::acquire_scratch(uint64_t bytes) {
  const auto it = first_of_size(scratch_, bytes);
  if (it == scratch_.end()) return allocate(bytes);
  DeviceBuffer kept = std::move(*it);
  scratch_.erase(it);
  return kept;
}

void Backend::release_scratch(DeviceBuffer buffer) {
  if (!buffer.valid()) return;
  const auto at = first_of_size(scratch_, buffer.bytes());
  scratch_.insert(at, std::move(buffer));
  while (cached_scratch_bytes() > kScratchCacheBytes) scratch_.pop_back();  // the largest freed first
}

void Backend::drop_scratch() noexcept { scratch_.clear(); }

uint64_t Backend::cached_scratch_bytes() const {
  uint64_t bytes = 0;
  for (const DeviceBuffer& b : scratch_) bytes += b.bytes();
  return bytes;
}

// ---- pinned host memory, streams, events ----

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : owner_(other.owner_), handle_(other.handle_), data_(other.data_), bytes_(other.bytes_) {
  other.owner_ = nullptr;
  other.data_ = nullptr;
  other.bytes_ = 0;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = other.owner_;
    handle_ = other.handle_;
    data_ = other.data_;
    bytes_ = other.bytes_;
    other.owner_ = nullptr;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

PinnedBuffer::~PinnedBuffer() { release(); }

void PinnedBuffer::release() {
  if (owner_ != nullptr) owner_->raw_free_pinned(handle_, data_);
  owner_ = nullptr;
  data_ = nullptr;
  bytes_ = 0;
}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->raw_destroy_stream(handle_);
    owner_ = other.owner_;
    handle_ = other.handle_;
    other.owner_ = nullptr;
  }
  return *this;
}

Stream::~Stream() {
  if (owner_ != nullptr) owner_->raw_destroy_stream(handle_);
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->raw_release_event(handle_);
    owner_ = other.owner_;
    handle_ = other.handle_;
    other.owner_ = nullptr;
  }
  return *this;
}

Event::~Event() {
  if (owner_ != nullptr) owner_->raw_release_event(handle_);
}

PinnedBuffer Backend::allocate_pinned(uint64_t bytes) {
  void* data = nullptr;
  const uint64_t handle = raw_allocate_pinned(bytes == 0 ? 8 : bytes, &data);
  return PinnedBuffer(this, handle, data, bytes);
}

std::optional<PinnedBuffer> Backend::register_host(const void* data, uint64_t bytes) {
  if (data == nullptr || bytes == 0) return std::nullopt;
  // Registration only page-locks; the memory is read, never written, through the buffer.
  void* host = const_cast<void*>(data);
  const std::optional<uint64_t> handle = raw_register_host(host, bytes);
  if (!handle) return std::nullopt;
  return PinnedBuffer(this, *handle, host, bytes);
}

Stream Backend::create_stream() { return Stream(this, raw_create_stream()); }

Event Backend::record(const Stream& stream) { return Event(this, raw_record(stream.handle())); }

void Backend::upload_async(const Stream& stream, const DeviceBuffer& target, uint64_t target_offset,
                           const PinnedBuffer& source, uint64_t source_offset, uint64_t bytes) {
  if (bytes == 0) return;
  check_range("asynchronous upload", target_offset, bytes, target.bytes());
  if (source_offset > source.bytes() || bytes > source.bytes() - source_offset) {
    throw Error(ErrorKind::Internal, "pinned host buffer out of range: offset " + std::to_string(source_offset) +
                                         " + " + std::to_string(bytes) + " bytes > " + std::to_string(source.bytes()));
  }
  raw_upload_async(stream.handle(), target.handle(), target_offset, static_cast<const char*>(source.data()) + source_offset,
                   bytes);
}

CompileResult Backend::compile(const ModuleSource& source, KernelCache* cache) {
  return end_compile(begin_compile(source, cache));
}

namespace {
double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

PendingCompile Backend::begin_compile(const ModuleSource& source, KernelCache* cache) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  PendingCompile pending;
  pending.source = &source;
  pending.cache = cache;
  if (cache != nullptr) {
    pending.key = KernelCache::key_for(cache_identity(), source.source, source.options);
    if (auto binary = cache->load(pending.key)) {
      pending.result.module = load_binary(*binary, source);
      if (pending.result.module) {
        pending.result.cache_hit = true;
      } else {
        // The entry passed its checksum but the driver rejects it (e.g. a driver update that the
        // identity did not capture): drop it and compile afresh.
        cache->remove(pending.key);
      }
    }
  }
  auto adopted = adopted_.empty() ? adopted_.end()
                                  : adopted_.find(pending.key.empty() ? KernelCache::key_for(cache_identity(), source.source, source.options)
                                                                      : pending.key);
  if (!pending.result.module && adopted != adopted_.end()) {
    // Begun before this backend opened (CudaAheadCompile): wait for that one.
    std::shared_future<PendingCompile::Compiled> ahead = std::move(adopted->second);
    adopted_.erase(adopted);
    pending.compiling = std::async(std::launch::deferred, [ahead] { return ahead.get(); });
  } else if (!pending.result.module) {
    auto compile = [this, &source] {
      const auto begun = Clock::now();
      PendingCompile::Compiled c;
      c.binary = compile_binary(source, c.log);
      c.ms = ms_between(begun, Clock::now());
      return c;
    };
    // Where the backend compiles on the calling thread, the compile runs when end_compile waits.
    pending.compiling = std::async(compiles_off_thread() ? std::launch::async : std::launch::deferred, compile);
  }
  pending.caller_ms = ms_between(start, Clock::now());
  return pending;
}

void Backend::adopt_compile(const std::string& key, std::shared_future<PendingCompile::Compiled> compile) {
  adopted_[key] = std::move(compile);
}

CompileResult Backend::end_compile(PendingCompile pending) {
  using Clock = std::chrono::steady_clock;
  CompileResult result = std::move(pending.result);
  if (result.module) {
    result.compile_ms = pending.caller_ms;
    return result;
  }
  PendingCompile::Compiled compiled = pending.compiling.get();
  const auto start = Clock::now();
  const ModuleSource& source = *pending.source;
  result.module = load_binary(compiled.binary, source);
  if (!result.module) {
    throw Error(ErrorKind::Device, source.label + ": the " + name() +
                                       " driver rejected the binary its own compiler produced");
  }
  if (pending.cache != nullptr) pending.cache->store(pending.key, compiled.binary);
  result.log = std::move(compiled.log);
  result.compile_ms = pending.caller_ms + compiled.ms + ms_between(start, Clock::now());
  return result;
}

std::unique_ptr<Backend> open_backend(DeviceChoice choice, const BackendOptions& options) {
  switch (choice) {
    case DeviceChoice::Cuda:
      return open_cuda_backend(options.cuda_device_ordinal);
    case DeviceChoice::OpenCL:
      return open_opencl_backend(options.opencl_device);
    case DeviceChoice::Auto:
      break;
  }
  std::string cuda_reason;
  try {
    return open_cuda_backend(options.cuda_device_ordinal);
  } catch (const Error& e) {
    cuda_reason = e.what();
  }
  try {
    return open_opencl_backend(options.opencl_device);
  } catch (const Error& e) {
    throw Error(ErrorKind::Device, std::string("no usable device: CUDA: ") + cuda_reason + "; OpenCL: " + e.what());
  }
}

}  // namespace hqc::runtime
