#pragma once
// A minimal fork-join loop for the CPU reference and the synthetic generator.
#include <cstddef>
#include <functional>

namespace moegemv::nvfp4 {

/// Calls body(begin, end) over disjoint chunks covering [0, n), on up to
/// std::thread::hardware_concurrency() threads. Chunks hold at least `grain` items; callers
/// must make results independent of the chunking (each item writes only its own outputs).
/// The first exception thrown by a chunk is rethrown after all threads have joined.
void parallel_for(std::size_t n, std::size_t grain,
                  const std::function<void(std::size_t begin, std::size_t end)>& body);

}  // namespace moegemv::nvfp4
