// Argument validation of the reference operations (reference.hpp).
#include <fmt/format.h>

#include <string>

#include "moegemv/errors.hpp"
#include "nvfp4/checks.hpp"
#include "nvfp4/reference.hpp"

namespace moegemv::nvfp4 {

namespace {

ProblemDims common_dims(std::span<const int32_t> ids, int K, const RoutedLayout& routed,
                        const SharedLayout& shared) {
  validate(routed);
  validate(shared);
  if (K < 1) throw ArgumentError("K", ">= 1", std::to_string(K));
  if (ids.size() % K != 0)
    throw ArgumentError("ids", fmt::format("M * K elements with K = {}", K),
                        fmt::format("{} elements", ids.size()));
  if (shared.SI > 0 && shared.H != routed.H)
    throw ArgumentError("shared.H", fmt::format("{} (= routed.H)", routed.H),
                        std::to_string(shared.H));
  for (std::size_t p = 0; p < ids.size(); ++p)
    if (ids[p] >= routed.E)
      throw ArgumentError("ids",
                          fmt::format("expert ids < E = {} (negative: pair skipped)", routed.E),
                          fmt::format("ids[{}] = {}", p, ids[p]));
  ProblemDims d;
  d.K = K;
  d.M = static_cast<int>(ids.size() / K);
  d.P = d.M * K;
  d.E = routed.E;
  d.H = routed.H;
  d.I = routed.I;
  d.SI = shared.SI;
  return d;
}

}  // namespace

ProblemDims check_gate_up_args(std::size_t x_size, std::span<const int32_t> ids, int K,
                               const RoutedLayout& routed, const SharedLayout& shared) {
  const ProblemDims d = common_dims(ids, K, routed, shared);
  detail::check_size(x_size, std::size_t{1} * d.M * d.H, "x");
  return d;
}

ProblemDims check_down_combine_args(std::size_t act_size, std::span<const int32_t> ids,
                                    std::size_t tw_size, std::size_t sact_size, int K,
                                    const RoutedLayout& routed, const SharedLayout& shared) {
  const ProblemDims d = common_dims(ids, K, routed, shared);
  detail::check_size(act_size, std::size_t{1} * d.P * d.I, "act");
  detail::check_size(tw_size, std::size_t{1} * d.M * d.K, "tw");
  detail::check_size(sact_size, std::size_t{1} * d.M * d.SI, "sact");
  return d;
}

}  // namespace moegemv::nvfp4
