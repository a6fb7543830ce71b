// NCCL transport (nccl_communicator.h): the library loaded with dlopen, the communicator bootstrapped
// through MPI, device collectives in place on the CUDA backend's memory.
#include "runtime/distributed/nccl_communicator.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include <dlfcn.h>
#include <glob.h>
#include <nccl.h>

#include "runtime/device/cuda_backend.h"
#include "runtime/device/cuda_driver.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// The NCCL entry points horseqc uses (nccl.h gives their types).
struct NcclLibrary {
  void* library = nullptr;
  std::string path;
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclCommAbort) comm_abort = nullptr;
  decltype(&::ncclCommGetAsyncError) comm_get_async_error = nullptr;
  decltype(&::ncclGetErrorString) get_error_string = nullptr;
  decltype(&::ncclGetLastError) get_last_error = nullptr;  // NCCL 2.13 and later; may stay null
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclSend) send = nullptr;
  decltype(&::ncclRecv) recv = nullptr;
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;
  std::string version;  // "2.28.9"

  // "ncclAllReduce: unhandled cuda error (run with NCCL_DEBUG=INFO for details): <last error>"
  std::string describe(ncclResult_t result, const char* call, ncclComm_t comm) const {
    std::string text = std::string(call) + ": " + get_error_string(result);
    if (get_last_error != nullptr) {
      const char* last = get_last_error(comm);
      if (last != nullptr && *last != '\0') text += std::string(": ") + last;
    }
    return text;
  }
  void check(ncclResult_t result, const char* call, ncclComm_t comm) const {
    if (result != ncclSuccess) throw Error(ErrorKind::Device, "NCCL error: " + describe(result, call, comm));
  }
};

// Where NCCL may be, in order; $HORSEQC_NCCL_LIBRARY alone when set.
std::vector<std::string> candidate_paths() {
  if (const char* forced = std::getenv("HORSEQC_NCCL_LIBRARY"); forced != nullptr && *forced != '\0') return {forced};
  std::vector<std::string> paths = {"libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"};
  // PyTorch's NCCL wheel (nvidia-nccl-cu*) on the GPU machines: the Python version is not known here.
  for (const char* pattern : {"/opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/opt/torch/.venv/lib/python3*/site-packages/nvidia/cu13/lib/libnccl.so.2"}) {
    glob_t found{};
    if (glob(pattern, 0, nullptr, &found) == 0) {
      for (size_t i = 0; i < found.gl_pathc; ++i) paths.emplace_back(found.gl_pathv[i]);
    }
    globfree(&found);
  }
  return paths;
}

template <typename Fn>
void resolve(const NcclLibrary& lib, Fn& target, const char* symbol) {
  target = reinterpret_cast<Fn>(dlsym(lib.library, symbol));
  if (target == nullptr) throw Error(ErrorKind::Device, "NCCL library " + lib.path + " lacks " + symbol + ": too old for horseqc");
}

NcclLibrary load_library() {
  // Before NCCL's first call, which reads its parameters once per process (nccl_communicator.h says why).
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  NcclLibrary lib;
  std::string tried;
  for (const std::string& path : candidate_paths()) {
    lib.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.library != nullptr) {
      lib.path = path;
      break;
    }
    const char* why = dlerror();
    tried += "\n  " + path + ": " + (why ? why : "dlopen failed");
  }
  if (lib.library == nullptr) {
    throw Error(ErrorKind::Device, std::string("NCCL is not available: no library loads") +
                                       (std::getenv("HORSEQC_NCCL_LIBRARY") ? " ($HORSEQC_NCCL_LIBRARY is set)" : "") +
                                       ", tried:" + tried);
  }
  resolve(lib, lib.get_version, "ncclGetVersion");
  resolve(lib, lib.get_unique_id, "ncclGetUniqueId");
  resolve(lib, lib.comm_init_rank, "ncclCommInitRank");
  resolve(lib, lib.comm_destroy, "ncclCommDestroy");
  resolve(lib, lib.comm_abort, "ncclCommAbort");
  resolve(lib, lib.comm_get_async_error, "ncclCommGetAsyncError");
  resolve(lib, lib.get_error_string, "ncclGetErrorString");
  resolve(lib, lib.all_reduce, "ncclAllReduce");
  resolve(lib, lib.send, "ncclSend");
  resolve(lib, lib.recv, "ncclRecv");
  resolve(lib, lib.group_start, "ncclGroupStart");
  resolve(lib, lib.group_end, "ncclGroupEnd");
  lib.get_last_error = reinterpret_cast<decltype(lib.get_last_error)>(dlsym(lib.library, "ncclGetLastError"));
  int code = 0;
  lib.check(lib.get_version(&code), "ncclGetVersion", nullptr);
  // NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9, major*1000 + minor*100 + patch before.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code % 10000 / 100 : code % 1000 / 100;
  lib.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
  return lib;
}

const NcclLibrary& nccl() {
  // Loaded once; a failure is remembered so that every caller reports the same reason.
  static std::once_flag once;
  static NcclLibrary library;
  static std::string failure;
  std::call_once(once, [] {
    try {
      library = load_library();
    } catch (const Error& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw Error(ErrorKind::Device, failure);
  return library;
}

ncclDataType_t datatype_of(ElementType type) {
  switch (type) {
    case ElementType::I32: return ncclInt32;
    case ElementType::U32: return ncclUint32;
    case ElementType::I64: return ncclInt64;
    case ElementType::U64: return ncclUint64;
    case ElementType::F64: return ncclFloat64;
  }
  throw Error(ErrorKind::Internal, "all_reduce: no NCCL type for this element type");
}

ncclRedOp_t op_of(Reduction r) {
  switch (r) {
    case Reduction::Sum: return ncclSum;
    case Reduction::Min: return ncclMin;
    case Reduction::Max: return ncclMax;
  }
  throw Error(ErrorKind::Internal, "all_reduce: no NCCL operation for this reduction");
}

void* device_pointer(const DeviceBuffer& buffer, uint64_t offset) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(buffer.handle() + offset));
}

}  // namespace

std::string nccl_version() { return nccl().version; }

NcclCommunicator::NcclCommunicator(Backend& backend) {
  // Any failure before ncclCommInitRank is agreed, so that no rank waits in it for one that left.
  const NcclLibrary* lib = nullptr;
  std::optional<RankFailure> failure;
  ncclUniqueId id{};
  try {
    lib = &nccl();
    ordinal_ = cuda_device_ordinal(backend);
    if (ordinal_ < 0) throw Error(ErrorKind::Device, "NCCL needs the CUDA backend; this rank runs " + backend.name());
    const CudaDriver& driver = cuda_driver();
    CUdevice device = 0;
    driver.check(driver.device_get(&device, ordinal_), "cuDeviceGet");
    driver.check(driver.primary_ctx_retain(&context_, device), "cuDevicePrimaryCtxRetain");
    make_current();
    driver.check(driver.stream_create(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
    if (rank() == 0) lib->check(lib->get_unique_id(&id), "ncclGetUniqueId", nullptr);
  } catch (const Error& e) {
    failure = RankFailure{rank(), e.exit_code(), e.what()};
  }
  const auto describe_agreed = [](const RankFailure& f) {
    return "NCCL could not start on rank " + std::to_string(f.rank) + ": " + f.message;
  };
  if (const auto agreed = agree(failure)) {
    release();  // the base class, constructed, finalises MPI as the exception leaves
    throw Error(ErrorKind::Device, describe_agreed(*agreed));
  }
  // Rank 0's id to every rank: an MPI broadcast (all_gather_host of rank 0's bytes only).
  std::vector<uint64_t> sizes(static_cast<size_t>(size()), 0);
  sizes[0] = sizeof id;
  ncclUniqueId received{};
  all_gather_host(&id, sizes, &received);

  failure.reset();
  const ncclResult_t status = lib->comm_init_rank(&comm_, size(), received, rank());
  if (status != ncclSuccess) {
    failure = RankFailure{rank(), static_cast<int>(ErrorKind::Device), lib->describe(status, "ncclCommInitRank", nullptr)};
    comm_ = nullptr;
  }
  if (const auto agreed = agree(failure)) {
    release();
    throw Error(ErrorKind::Device, describe_agreed(*agreed));
  }
}

NcclCommunicator::~NcclCommunicator() { release(); }

void NcclCommunicator::release() noexcept {
  // Also for a partly built object (the constructor's agreed failures), and a second call.
  if (context_ == nullptr) return;
  const CudaDriver& driver = cuda_driver();
  driver.ctx_set_current(context_);
  scratch_ = DeviceBuffer();  // freed through the backend while this context is still retained
  if (comm_ != nullptr) nccl().comm_destroy(comm_);
  comm_ = nullptr;
  if (stream_ != nullptr) driver.stream_destroy(stream_);
  stream_ = nullptr;
  CUdevice device = 0;
  if (driver.device_get(&device, ordinal_) == CUDA_SUCCESS) driver.primary_ctx_release(device);
  context_ = nullptr;
}

std::string NcclCommunicator::transport() const { return "NCCL " + nccl_version() + " (MPI for host collectives)"; }

void NcclCommunicator::make_current() const {
  const CudaDriver& driver = cuda_driver();
  driver.check(driver.ctx_set_current(context_), "cuCtxSetCurrent");
}

void NcclCommunicator::enter(const Backend& backend, const char* collective) const {
  if (cuda_device_ordinal(backend) != ordinal_) {
    throw Error(ErrorKind::Internal, std::string(collective) + ": the buffer's backend is not the device NCCL was opened on (CUDA device " +
                                         std::to_string(ordinal_) + ")");
  }
  make_current();
}

void NcclCommunicator::finish(const char* call) {
  const CudaDriver& driver = cuda_driver();
  const CUresult waited = driver.stream_synchronize(stream_);
  ncclResult_t async = ncclSuccess;
  nccl().check(nccl().comm_get_async_error(comm_, &async), "ncclCommGetAsyncError", comm_);
  nccl().check(async, call, comm_);
  driver.check(waited, "cuStreamSynchronize (after an NCCL collective)");
}

void NcclCommunicator::all_reduce(Backend& backend, DeviceBuffer& buffer, uint64_t count, ElementType type, Reduction op) {
  if (count * element_bytes(type) > buffer.bytes()) throw Error(ErrorKind::Internal, "all_reduce: more elements than the buffer holds");
  if (count == 0) return;  // every rank passes the same count, so every rank skips
  enter(backend, "all_reduce");
  void* data = device_pointer(buffer, 0);
  nccl().check(nccl().all_reduce(data, data, count, datatype_of(type), op_of(op), comm_, stream_), "ncclAllReduce", comm_);
  finish("ncclAllReduce");
}

void NcclCommunicator::all_reduce_many(Backend& backend, const std::vector<ReduceLane>& lanes) {
  bool any = false;
  for (const ReduceLane& l : lanes) {
    if (l.count * element_bytes(l.type) > l.buffer->bytes()) throw Error(ErrorKind::Internal, "all_reduce: more elements than the buffer holds");
    any = any || l.count > 0;
  }
  if (!any) return;
  enter(backend, "all_reduce");
  // Every lane in one group: one launch, one wait.
  const NcclLibrary& lib = nccl();
  lib.check(lib.group_start(), "ncclGroupStart", comm_);
  ncclResult_t failed = ncclSuccess;
  for (const ReduceLane& l : lanes) {
    if (l.count == 0 || failed != ncclSuccess) continue;
    void* data = device_pointer(*l.buffer, 0);
    failed = lib.all_reduce(data, data, l.count, datatype_of(l.type), op_of(l.op), comm_, stream_);
  }
  const ncclResult_t ended = lib.group_end();
  lib.check(failed, "ncclAllReduce", comm_);
  lib.check(ended, "ncclGroupEnd", comm_);
  finish("ncclAllReduce");
}

void NcclCommunicator::all_gather_rows(Backend& backend, const std::vector<RowLane>& lanes, const std::vector<uint64_t>& rows) {
  const uint64_t total = check_row_lanes(lanes, rows);
  if (total == 0 || lanes.empty()) return;  // every rank passes the same rows, so every rank skips
  enter(backend, "all_gather_rows");
  const CudaDriver& driver = cuda_driver();
  const size_t me = static_cast<size_t>(rank());
  const uint64_t mine = rows[me];
  std::vector<uint64_t> first(rows.size(), 0);  // each rank's first row in the result
  for (size_t r = 1; r < rows.size(); ++r) first[r] = first[r - 1] + rows[r - 1];
  // Rows that move would be overwritten by the rows received before them: sent from a copy instead.
  const bool moves = mine > 0 && first[me] > 0;
  std::vector<uint64_t> sent_from;  // per lane: where this rank's rows are read from
  if (moves) {
    uint64_t row_bytes = 0;
    for (const RowLane& l : lanes) row_bytes += l.width;
    if (scratch_.bytes() < mine * row_bytes) {
      scratch_ = DeviceBuffer();  // the old one first: both need not fit at once
      scratch_ = backend.allocate(mine * row_bytes);
    }
    uint64_t at = 0;
    for (const RowLane& l : lanes) {
      sent_from.push_back(scratch_.handle() + at);
      driver.check(driver.memcpy_dtod_async(scratch_.handle() + at, l.buffer->handle(), mine * l.width, stream_), "cuMemcpyDtoDAsync");
      at += mine * l.width;
    }
  } else {
    for (const RowLane& l : lanes) sent_from.push_back(l.buffer->handle());
  }
  // Every lane's sends and receives in one group: one launch, one wait.
  const NcclLibrary& lib = nccl();
  lib.check(lib.group_start(), "ncclGroupStart", comm_);
  ncclResult_t failed = ncclSuccess;
  for (size_t l = 0; l < lanes.size() && failed == ncclSuccess; ++l) {
    const RowLane& lane = lanes[l];
    for (size_t peer = 0; peer < rows.size() && failed == ncclSuccess; ++peer) {
      if (peer == me) continue;
      if (mine > 0) failed = lib.send(reinterpret_cast<const void*>(static_cast<uintptr_t>(sent_from[l])), mine * lane.width, ncclUint8,
                                      static_cast<int>(peer), comm_, stream_);
      if (failed == ncclSuccess && rows[peer] > 0)
        failed = lib.recv(device_pointer(*lane.buffer, first[peer] * lane.width), rows[peer] * lane.width, ncclUint8,
                          static_cast<int>(peer), comm_, stream_);
    }
  }
  const ncclResult_t ended = lib.group_end();  // always, so that the group is closed
  lib.check(failed, "ncclSend/ncclRecv", comm_);
  lib.check(ended, "ncclGroupEnd", comm_);
  if (moves) {
    for (size_t l = 0; l < lanes.size(); ++l) {
      const RowLane& lane = lanes[l];
      driver.check(driver.memcpy_dtod_async(lane.buffer->handle() + first[me] * lane.width, sent_from[l], mine * lane.width, stream_),
                   "cuMemcpyDtoDAsync");
    }
  }
  finish("ncclSend/ncclRecv");
}

void NcclCommunicator::abort(int exit_code) {
  if (comm_ != nullptr) nccl().comm_abort(comm_);
  comm_ = nullptr;
  MpiCommunicator::abort(exit_code);
}

}  // namespace hqc::runtime
