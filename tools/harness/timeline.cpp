#include "tools/harness/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "moegemv/errors.hpp"
#include "runtime/driver.hpp"
#include "runtime/registry.hpp"
#include "templates/params.h"

namespace moegemv::harness {

namespace {

constexpr const char* kSymbol = "moegemv_timeline";

CUdeviceptr timeline_ptr(const Key& key, std::size_t& bytes) {
  const auto kernel = detail::kernel_for(key, false);
  CUdeviceptr ptr = 0;
  const CUresult r = driver::api().cuModuleGetGlobal(&ptr, &bytes, kernel->module.get(), kSymbol);
  if (r == CUDA_ERROR_NOT_FOUND)
    throw ArgumentError("MOEGEMV_TUNE", "gu_timeline=1,dc_timeline=1 (for --timeline)",
                        key.str() + " was built without the timeline");
  driver::check(r, "cuModuleGetGlobal(moegemv_timeline)");
  return ptr;
}

struct Range {
  double lo = 0, hi = 0, median = 0, p90 = 0;
};

Range range(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v.front(), v.back(), v[v.size() / 2], v[v.size() * 9 / 10]};
}

std::string show(const Range& r) {
  return fmt::format("{:.1f}-{:.1f} (median {:.1f}, p90 {:.1f})", r.lo, r.hi, r.median, r.p90);
}

// gate_up's CTAs per SM (under PDL they land where the previous kernel's CTAs have left, up to
// the SM's capacity, so the counts can differ from the grid's even spread), as "N x S SMs" from
// the most CTAs to none, each with its SMs' median last end (us from t0); SMs are counted over
// both kernels' stamps.
template <class Us>
std::string per_sm_counts(const std::vector<CtaStamp>& gate_up, const std::vector<CtaStamp>& down,
                          Us us) {
  std::map<int, int> count;
  std::map<int, double> last;
  for (const auto& c : gate_up) ++count[c.sm], last[c.sm] = std::max(last[c.sm], us(c.end));
  for (const auto& c : down) count.try_emplace(c.sm, 0);
  std::map<int, std::vector<double>, std::greater<>> by_count;
  for (const auto& [sm, n] : count) by_count[n].push_back(n ? last[sm] : 0.0);
  std::string out = "  gate_up CTAs per SM:";
  for (const auto& [n, ends] : by_count)
    out += n ? fmt::format(" {} x {} SMs (last end median {:.1f} us),", n, ends.size(),
                           range(ends).median)
             : fmt::format(" 0 x {} SMs,", ends.size());
  out.back() = '\n';
  return out;
}

}  // namespace

void clear_timeline(const Key& key, CUstream stream) {
  std::size_t bytes = 0;
  const CUdeviceptr ptr = timeline_ptr(key, bytes);
  driver::check(driver::api().cuMemsetD8Async(ptr, 0, bytes, stream), "cuMemsetD8Async(timeline)");
}

std::vector<CtaStamp> read_timeline(const Key& key) {
  std::size_t bytes = 0;
  const CUdeviceptr ptr = timeline_ptr(key, bytes);
  std::vector<unsigned long long> raw(bytes / sizeof(unsigned long long));
  driver::check(driver::api().cuMemcpyDtoH(raw.data(), ptr, bytes), "cuMemcpyDtoH(timeline)");
  std::vector<CtaStamp> out;
  for (std::size_t b = 0; b + 3 < raw.size(); b += 4)
    if (raw[b] != 0) out.push_back({raw[b], raw[b + 1], raw[b + 2], static_cast<int>(raw[b + 3])});
  return out;
}

std::string timeline_summary(const std::vector<CtaStamp>& gate_up,
                             const std::vector<CtaStamp>& down) {
  if (gate_up.empty() || down.empty()) return "timeline: no stamps\n";
  unsigned long long t0 = gate_up.front().start;
  for (const auto& c : gate_up) t0 = std::min(t0, c.start);
  auto us = [t0](unsigned long long t) {
    return (static_cast<double>(t) - static_cast<double>(t0)) * 1e-3;
  };
  auto ranges = [&](const std::vector<CtaStamp>& cs, const char* name) {
    std::vector<double> start, waited, end, took;
    for (const auto& c : cs) {
      start.push_back(us(c.start));
      if (c.waited) waited.push_back(us(c.waited));
      end.push_back(us(c.end));
      took.push_back(us(c.end) - us(c.start));
    }
    return fmt::format("  {} {} CTAs: start {}, PDL wait returns {}, end {}; each CTA took {}\n",
                       name, cs.size(), show(range(start)),
                       waited.empty() ? "-" : show(range(waited)), show(range(end)),
                       show(range(took)));
  };
  // Per SM: the last gate_up CTA's end and the first down CTA's start there.
  std::map<int, unsigned long long> gu_end, down_start;
  for (const auto& c : gate_up) gu_end[c.sm] = std::max(gu_end[c.sm], c.end);
  for (const auto& c : down)
    down_start[c.sm] = down_start.count(c.sm) ? std::min(down_start[c.sm], c.start) : c.start;
  std::vector<double> gaps;
  for (const auto& [sm, start] : down_start)
    if (gu_end.count(sm))
      gaps.push_back((static_cast<double>(start) - static_cast<double>(gu_end[sm])) * 1e-3);
  unsigned long long gu_last = 0;
  for (const auto& c : gate_up) gu_last = std::max(gu_last, c.end);
  int early = 0;
  for (const auto& c : down) early += c.start < gu_last;
  // Each kernel's time once its PDL wait let it go: its CTAs' first wait return (a CTA without a
  // wait stamp counts from its start) to its last CTA's end.
  auto span = [](const std::vector<CtaStamp>& cs) {
    unsigned long long from = ~0ull, to = 0;
    for (const auto& c : cs) from = std::min(from, c.waited ? c.waited : c.start), to = std::max(to, c.end);
    return (static_cast<double>(to) - static_cast<double>(from)) * 1e-3;
  };
  // Per down CTA, its second stamp less its start: the PDL wait's return or a mark point's time
  // into the CTA; with dc_timeline=8..11 a wait's sum over the CTA's units (templates/timeline.cuh).
  std::vector<double> second;
  for (const auto& c : down)
    if (c.waited) second.push_back((static_cast<double>(c.waited) - static_cast<double>(c.start)) * 1e-3);
  return ranges(gate_up, "gate_up") + per_sm_counts(gate_up, down, us) +
         ranges(down, "down") +
         fmt::format("  down per CTA, second stamp - start: {} us\n", second.empty() ? "-" : show(range(second))) +
         fmt::format("  first PDL wait return to last end: gate_up {:.1f} us, down {:.1f} us\n",
                     span(gate_up), span(down)) +
         fmt::format(
             "  per SM, down's first start - gate_up's last end: {} us; {} down CTAs started "
             "before gate_up's last CTA ended\n",
             show(range(gaps)), early);
}

}  // namespace moegemv::harness
