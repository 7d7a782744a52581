#include "runtime/memory.hpp"

#include <utility>

#include "moegemv/errors.hpp"
#include "runtime/driver.hpp"

namespace moegemv::driver {
namespace {

void check_copy(const void* host, std::size_t bytes, std::size_t capacity) {
  if (bytes > capacity) {
    throw ArgumentError("bytes", "at most the buffer size " + std::to_string(capacity),
                        std::to_string(bytes));
  }
  if (host == nullptr && bytes > 0) {
    throw ArgumentError("host", "a host pointer", "nullptr");
  }
}

}  // namespace

namespace detail {

// api() cannot throw in these: it succeeded when the handle was created.
void StreamDestroyer::operator()(CUstream stream) const noexcept {
  log_failure(api().cuStreamDestroy(stream), "cuStreamDestroy");
}
void EventDestroyer::operator()(CUevent event) const noexcept {
  log_failure(api().cuEventDestroy(event), "cuEventDestroy");
}
void GraphDestroyer::operator()(CUgraph graph) const noexcept {
  log_failure(api().cuGraphDestroy(graph), "cuGraphDestroy");
}
void GraphExecDestroyer::operator()(CUgraphExec exec) const noexcept {
  log_failure(api().cuGraphExecDestroy(exec), "cuGraphExecDestroy");
}

}  // namespace detail

DeviceBuffer::DeviceBuffer(std::size_t bytes) {
  if (bytes == 0) return;
  MOEGEMV_CU(api().cuMemAlloc(&ptr_, bytes));
  bytes_ = bytes;
}

DeviceBuffer::~DeviceBuffer() { reset(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::reset() noexcept {
  if (ptr_ == 0) return;
  log_failure(api().cuMemFree(ptr_), "cuMemFree");
  ptr_ = 0;
  bytes_ = 0;
}

// Both copies synchronize the whole context. A pageable HtoD copy may return before its DMA
// lands, and both run on the legacy stream, which does not order against the non-blocking
// streams our Stream creates; for test and bench helpers, "done when it returns" is worth it.
void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check_copy(host, bytes, bytes_);
  if (bytes == 0) return;
  MOEGEMV_CU(api().cuMemcpyHtoD(ptr_, host, bytes));
  MOEGEMV_CU(api().cuCtxSynchronize());
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check_copy(host, bytes, bytes_);
  if (bytes == 0) return;
  MOEGEMV_CU(api().cuCtxSynchronize());
  MOEGEMV_CU(api().cuMemcpyDtoH(host, ptr_, bytes));
}

void DeviceBuffer::fill_u16(std::uint16_t value, CUstream stream) {
  if (bytes_ % 2 != 0) {
    throw ArgumentError("DeviceBuffer::fill_u16", "an even byte count", std::to_string(bytes_));
  }
  if (bytes_ == 0) return;
  MOEGEMV_CU(api().cuMemsetD16Async(ptr_, value, bytes_ / 2, stream));
}

Stream::Stream() {
  CUstream stream = nullptr;
  MOEGEMV_CU(api().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  stream_.reset(stream);
}

void Stream::synchronize() const { MOEGEMV_CU(api().cuStreamSynchronize(stream_.get())); }

Event::Event(unsigned flags) {
  CUevent event = nullptr;
  MOEGEMV_CU(api().cuEventCreate(&event, flags));
  event_.reset(event);
}

void Event::record(CUstream stream) { MOEGEMV_CU(api().cuEventRecord(event_.get(), stream)); }

void Event::synchronize() const { MOEGEMV_CU(api().cuEventSynchronize(event_.get())); }

float elapsed_ms(Event& start, Event& end) {
  end.synchronize();
  float ms = 0;
  MOEGEMV_CU(api().cuEventElapsedTime(&ms, start.get(), end.get()));
  return ms;
}

void GraphExec::launch(CUstream stream) const {
  MOEGEMV_CU(api().cuGraphLaunch(exec_.get(), stream));
}

GraphExec capture(CUstream stream, const std::function<void()>& body, CUstreamCaptureMode mode) {
  if (stream == nullptr || stream == CU_STREAM_LEGACY) {
    throw ArgumentError("stream", "a created stream (the legacy NULL stream cannot be captured)",
                        "the NULL stream");
  }
  MOEGEMV_CU(api().cuStreamBeginCapture(stream, mode));
  try {
    body();
  } catch (...) {
    CUgraph partial = nullptr;
    log_failure(api().cuStreamEndCapture(stream, &partial), "cuStreamEndCapture (body threw)");
    const Graph discarded(partial);
    throw;
  }
  CUgraph raw = nullptr;
  MOEGEMV_CU(api().cuStreamEndCapture(stream, &raw));
  const Graph graph(raw);
  CUgraphExec exec = nullptr;
  MOEGEMV_CU(api().cuGraphInstantiateWithFlags(&exec, graph.get(), 0));
  return GraphExec(exec);
}

}  // namespace moegemv::driver
