// Shared-expert converters of layout.hpp: ModelOpt [gate; up] stays as is (vLLM's order, not
// interleaved), only the block scales are swizzled.
#include <fmt/format.h>

#include <bit>
#include <string>

#include "moegemv/errors.hpp"
#include "nvfp4/checks.hpp"
#include "nvfp4/layout.hpp"

namespace moegemv::nvfp4 {

namespace {

template <class T>
std::vector<T> concat(const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out(a);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

void check_shape(int H, int SI, const std::string& h_name, const std::string& si_name) {
  if (SI < 0 || SI % 16 != 0)
    throw ArgumentError(si_name, "0 or a positive multiple of 16 (SI)", std::to_string(SI));
  if (SI > 0) detail::check_multiple(H, 16, h_name, "H");
}

}  // namespace

SharedLayout to_shared_layout(const SharedWeights& shared) {
  const int SI = shared.gate.rows, H = shared.gate.cols;
  check_shape(H, SI, "shared.gate.cols", "shared.gate.rows");
  check_matrix(shared.gate, "shared.gate", SI, H);
  check_matrix(shared.up, "shared.up", SI, H);
  check_matrix(shared.down, "shared.down", H, SI);
  if (std::bit_cast<uint32_t>(shared.gate.weight_scale_2) !=
      std::bit_cast<uint32_t>(shared.up.weight_scale_2))
    throw ArgumentError(
        "shared.up.weight_scale_2",
        fmt::format("{} (= gate's; one gssh serves gate and up)", shared.gate.weight_scale_2),
        fmt::format("{}", shared.up.weight_scale_2));
  SharedLayout out;
  out.H = H;
  out.SI = SI;
  out.wsh = concat(shared.gate.weight, shared.up.weight);
  out.ssh = swizzle_scales(concat(shared.gate.scale, shared.up.scale), 2 * SI, H / 16);
  out.gssh = shared.gate.weight_scale_2;
  out.wsd = shared.down.weight;
  out.ssd = swizzle_scales(shared.down.scale, H, SI / 16);
  out.gssd = shared.down.weight_scale_2;
  return out;
}

SharedWeights from_shared_layout(const SharedLayout& shared) {
  validate(shared);
  const int H = shared.H, SI = shared.SI;
  const std::size_t half_w = std::size_t{1} * SI * H / 2, half_s = std::size_t{1} * SI * (H / 16);
  const std::vector<uint8_t> ssh = unswizzle_scales(shared.ssh, 2 * SI, H / 16);
  SharedWeights out;
  out.gate = {SI,
              H,
              {shared.wsh.begin(), shared.wsh.begin() + half_w},
              {ssh.begin(), ssh.begin() + half_s},
              shared.gssh};
  out.up = {SI,
            H,
            {shared.wsh.begin() + half_w, shared.wsh.end()},
            {ssh.begin() + half_s, ssh.end()},
            shared.gssh};
  out.down = {H, SI, shared.wsd, unswizzle_scales(shared.ssd, H, SI / 16), shared.gssd};
  return out;
}

void validate(const SharedLayout& shared) {
  check_shape(shared.H, shared.SI, "shared.H", "shared.SI");
  if (shared.H < 0) throw ArgumentError("shared.H", ">= 0", std::to_string(shared.H));
  const std::size_t H = shared.H, SI = shared.SI;
  detail::check_size(shared.wsh.size(), 2 * SI * H / 2, "shared.wsh");
  detail::check_size(shared.ssh.size(), swizzled_size(2 * shared.SI, shared.H / 16), "shared.ssh");
  detail::check_size(shared.wsd.size(), H * SI / 2, "shared.wsd");
  detail::check_size(shared.ssd.size(), swizzled_size(shared.H, shared.SI / 16), "shared.ssd");
}

}  // namespace moegemv::nvfp4
