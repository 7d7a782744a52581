#include "nvfp4/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace moegemv::nvfp4 {

void parallel_for(std::size_t n, std::size_t grain,
                  const std::function<void(std::size_t begin, std::size_t end)>& body) {
  if (n == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min(hw, (n + grain - 1) / grain);
  if (workers <= 1) {
    body(0, n);
    return;
  }
  // Several chunks per worker, handed out dynamically, so uneven chunks still balance.
  const std::size_t chunk = std::max(grain, (n + workers * 4 - 1) / (workers * 4));
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (;;) {
      const std::size_t begin = next.fetch_add(chunk);
      if (begin >= n) return;
      try {
        body(begin, std::min(n, begin + chunk));
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(n);
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace moegemv::nvfp4
