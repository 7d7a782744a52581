#include "nvfp4/shard.hpp"

#include <fmt/format.h>

#include <cstring>

#include "moegemv/errors.hpp"

namespace moegemv::nvfp4 {

namespace {

// Rows [r0, r0 + n) of a [rows, cols] NVFP4 matrix (bytes and swizzled scales) appended to out.
void take_rows(const uint8_t* w, const uint8_t* sf, int rows, int cols, int r0, int n,
               std::vector<uint8_t>& w_out, std::vector<uint8_t>& lin_sf_out) {
  const std::size_t row_bytes = cols / 2;
  w_out.insert(w_out.end(), w + r0 * row_bytes, w + (r0 + n) * row_bytes);
  auto lin = unswizzle_scales({sf, swizzled_size(rows, cols / 16)}, rows, cols / 16);
  const std::size_t kb = cols / 16;
  lin_sf_out.insert(lin_sf_out.end(), lin.begin() + r0 * kb, lin.begin() + (r0 + n) * kb);
}

// Columns [c0, c0 + n) of a [rows, cols] NVFP4 matrix, as a [rows, n] matrix.
void take_cols(const uint8_t* w, const uint8_t* sf, int rows, int cols, int c0, int n,
               std::vector<uint8_t>& w_out, std::vector<uint8_t>& sf_out) {
  const std::size_t row_bytes = cols / 2;
  for (int r = 0; r < rows; ++r)
    w_out.insert(w_out.end(), w + r * row_bytes + c0 / 2, w + r * row_bytes + (c0 + n) / 2);
  auto lin = unswizzle_scales({sf, swizzled_size(rows, cols / 16)}, rows, cols / 16);
  std::vector<uint8_t> part;
  for (int r = 0; r < rows; ++r)
    part.insert(part.end(), lin.begin() + r * (cols / 16) + c0 / 16,
                lin.begin() + r * (cols / 16) + (c0 + n) / 16);
  auto swz = swizzle_scales(part, rows, n / 16);
  sf_out.insert(sf_out.end(), swz.begin(), swz.end());
}

void check_rank(int ranks, int rank) {
  if (ranks < 1) throw ArgumentError("ranks", ">= 1", std::to_string(ranks));
  if (rank < 0 || rank >= ranks)
    throw ArgumentError("rank", fmt::format("0 <= rank < {}", ranks), std::to_string(rank));
}

}  // namespace

SyntheticLayer shard_tp(const SyntheticLayer& layer, int ranks, int rank) {
  check_rank(ranks, rank);
  const auto& s = layer.shape;
  if (s.I % ranks != 0 || (s.I / ranks) % 64 != 0 || s.SI % ranks != 0 || (s.SI / ranks) % 64 != 0)
    throw ArgumentError("ranks", fmt::format("a divisor of I={} and SI={} leaving multiples of 64",
                                             s.I, s.SI),
                        std::to_string(ranks));
  SyntheticLayer out;
  out.shape = s;
  out.shape.I = s.I / ranks;
  out.shape.SI = s.SI / ranks;
  const int i = out.shape.I, si = out.shape.SI, h = s.H;
  RoutedLayout& R = out.routed;
  R.E = s.E;
  R.H = h;
  R.I = i;
  R.alpha = layer.routed.alpha;
  R.alpha2 = layer.routed.alpha2;
  for (int e = 0; e < s.E; ++e) {
    // w1: the rank's 64-row groups are physical rows [128*g0, 128*g1): contiguous.
    std::vector<uint8_t> lin;
    const uint8_t* w1 = layer.routed.w1.data() + std::size_t(e) * 2 * s.I * (h / 2);
    const uint8_t* sf1 = layer.routed.w1_sf.data() + e * layer.routed.w1_sf_expert_bytes();
    take_rows(w1, sf1, 2 * s.I, h, 2 * rank * i, 2 * i, R.w1, lin);
    auto swz = swizzle_scales(lin, 2 * i, h / 16);
    R.w1_sf.insert(R.w1_sf.end(), swz.begin(), swz.end());
    const uint8_t* w2 = layer.routed.w2.data() + std::size_t(e) * h * (s.I / 2);
    const uint8_t* sf2 = layer.routed.w2_sf.data() + e * layer.routed.w2_sf_expert_bytes();
    take_cols(w2, sf2, h, s.I, rank * i, i, R.w2, R.w2_sf);
  }
  if (s.SI > 0) {
    const SharedLayout& S0 = layer.shared;
    SharedLayout& S = out.shared;
    S.H = h;
    S.SI = si;
    S.gssh = S0.gssh;
    S.gssd = S0.gssd;
    std::vector<uint8_t> lin;
    take_rows(S0.wsh.data(), S0.ssh.data(), 2 * s.SI, h, rank * si, si, S.wsh, lin);  // gate
    take_rows(S0.wsh.data(), S0.ssh.data(), 2 * s.SI, h, s.SI + rank * si, si, S.wsh, lin);  // up
    S.ssh = swizzle_scales(lin, 2 * si, h / 16);
    take_cols(S0.wsd.data(), S0.ssd.data(), h, s.SI, rank * si, si, S.wsd, S.ssd);
  }
  return out;
}

SyntheticLayer shard_ep(const SyntheticLayer& layer, int ranks, int rank) {
  check_rank(ranks, rank);
  const auto& s = layer.shape;
  if (s.E % ranks != 0)
    throw ArgumentError("ranks", fmt::format("a divisor of E={}", s.E), std::to_string(ranks));
  const int per = s.E / ranks, e0 = rank * per;
  SyntheticLayer out;
  out.shape = s;
  out.shape.E = per;
  const RoutedLayout& R0 = layer.routed;
  RoutedLayout& R = out.routed;
  R.E = per;
  R.H = R0.H;
  R.I = R0.I;
  auto slice = [&](const std::vector<uint8_t>& v, std::size_t per_expert) {
    return std::vector<uint8_t>(v.begin() + e0 * per_expert, v.begin() + (e0 + per) * per_expert);
  };
  R.w1 = slice(R0.w1, std::size_t(2) * R0.I * (R0.H / 2));
  R.w1_sf = slice(R0.w1_sf, R0.w1_sf_expert_bytes());
  R.w2 = slice(R0.w2, std::size_t(R0.H) * (R0.I / 2));
  R.w2_sf = slice(R0.w2_sf, R0.w2_sf_expert_bytes());
  R.alpha.assign(R0.alpha.begin() + e0, R0.alpha.begin() + e0 + per);
  R.alpha2.assign(R0.alpha2.begin() + e0, R0.alpha2.begin() + e0 + per);
  if (rank == 0) {
    out.shared = layer.shared;
  } else {
    out.shape.SI = 0;
    out.shared = SharedLayout{};
    out.shared.H = s.H;
  }
  return out;
}

std::vector<int32_t> local_ids_ep(std::span<const int32_t> ids, int experts, int ranks, int rank) {
  check_rank(ranks, rank);
  const int per = experts / ranks, e0 = rank * per;
  std::vector<int32_t> out(ids.begin(), ids.end());
  for (auto& id : out) id = (id >= e0 && id < e0 + per) ? id - e0 : -1;
  return out;
}

}  // namespace moegemv::nvfp4
