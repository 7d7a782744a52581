#pragma once
// Owned device memory, streams, events and CUDA graphs for tests, `moegemv check` and
// `moegemv bench`. The launch path uses none of this: it only takes CUstream and pointers.
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace moegemv::driver {

namespace detail {
// noexcept deleters that log (never throw) when the driver refuses.
struct StreamDestroyer {
  void operator()(CUstream stream) const noexcept;
};
struct EventDestroyer {
  void operator()(CUevent event) const noexcept;
};
struct GraphDestroyer {
  void operator()(CUgraph graph) const noexcept;
};
struct GraphExecDestroyer {
  void operator()(CUgraphExec exec) const noexcept;
};
}  // namespace detail

/// cuMemAlloc'ed bytes in the current context, freed in the destructor. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);  ///< 0 bytes allocates nothing (ptr() == 0)
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

  /// Synchronous copies of the first `bytes` bytes; ArgumentError if bytes > this->bytes().
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

  /// Sets every 16-bit word (e.g. to a bf16 NaN to poison an output); stream-ordered, async.
  /// ArgumentError unless bytes() is even.
  void fill_u16(std::uint16_t value, CUstream stream);

 private:
  void reset() noexcept;

  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

/// A non-blocking stream (no implicit sync with the legacy NULL stream). Move-only.
class Stream {
 public:
  Stream();

  CUstream get() const { return stream_.get(); }
  void synchronize() const;

 private:
  std::unique_ptr<CUstream_st, detail::StreamDestroyer> stream_;
};

/// A timing event (CU_EVENT_DEFAULT). Move-only.
class Event {
 public:
  explicit Event(unsigned flags = CU_EVENT_DEFAULT);

  CUevent get() const { return event_.get(); }
  void record(CUstream stream);
  void synchronize() const;

 private:
  std::unique_ptr<CUevent_st, detail::EventDestroyer> event_;
};

/// Milliseconds from `start` to `end`; waits for `end` to complete first.
float elapsed_ms(Event& start, Event& end);

/// A captured graph (cuGraphDestroy). Move-only.
class Graph {
 public:
  explicit Graph(CUgraph graph = nullptr) : graph_(graph) {}

  CUgraph get() const { return graph_.get(); }

 private:
  std::unique_ptr<CUgraph_st, detail::GraphDestroyer> graph_;
};

/// An instantiated graph (cuGraphExecDestroy); independent of the Graph it came from. Move-only.
class GraphExec {
 public:
  explicit GraphExec(CUgraphExec exec = nullptr) : exec_(exec) {}

  CUgraphExec get() const { return exec_.get(); }
  void launch(CUstream stream) const;

 private:
  std::unique_ptr<CUgraphExec_st, detail::GraphExecDestroyer> exec_;
};

/// Captures what `body` enqueues on `stream` into a graph and instantiates it. If `body` throws,
/// the capture is ended and discarded and the exception propagates. The default mode is
/// THREAD_LOCAL: it still rejects an allocation or synchronization made by the capturing thread
/// (exactly what a moegemv launch must never do), but does not fail unrelated driver calls that
/// other threads (another test, a background compile and module load) make meanwhile, as GLOBAL
/// would. `stream` must not be the legacy NULL stream, which cannot be captured.
GraphExec capture(CUstream stream, const std::function<void()>& body,
                  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);

}  // namespace moegemv::driver
