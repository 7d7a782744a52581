// Argument validation of the public API and the C ABI: runs before anything touches the driver,
// so it is tested on machines without a GPU.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "moegemv/moegemv.h"
#include "moegemv/moegemv.hpp"

using namespace moegemv;

namespace {

// Fake, well-aligned device addresses: validation never dereferences them.
constexpr CUdeviceptr kBase = 0x7f0000000000ull;
CUdeviceptr addr(int n) { return kBase + static_cast<CUdeviceptr>(n) * (1ull << 32); }

// DeepSeek-like small shape: H=256, I=128, SI=128, K=4, E=8, M=3.
GateUpArgs good_gate_up() {
  GateUpArgs a;
  a.x = Tensor(addr(1), DType::kBF16, {3, 256});
  a.ids = Tensor(addr(2), DType::kI32, {3, 4});
  a.w1 = Tensor(addr(3), DType::kU8, {8, 256, 128});
  a.w1_sf = Tensor(addr(4), DType::kE4M3, {8 * 256 * 16});
  a.alpha = Tensor(addr(5), DType::kF32, {8});
  a.act = Tensor(addr(6), DType::kBF16, {12, 128});
  a.wsh = Tensor(addr(7), DType::kU8, {256, 128});
  a.ssh = Tensor(addr(8), DType::kU8, {256 * 16});
  a.gssh = Tensor(addr(9), DType::kF32, {1});
  a.sact = Tensor(addr(10), DType::kBF16, {3, 128});
  return a;
}

DownCombineArgs good_down() {
  DownCombineArgs a;
  a.act = Tensor(addr(1), DType::kBF16, {12, 128});
  a.ids = Tensor(addr(2), DType::kI32, {3, 4});
  a.tw = Tensor(addr(3), DType::kF32, {3, 4});
  a.w2 = Tensor(addr(4), DType::kU8, {8, 256, 64});
  a.w2_sf = Tensor(addr(5), DType::kU8, {8 * 256 * 8});
  a.alpha2 = Tensor(addr(6), DType::kF32, {8});
  a.sact = Tensor(addr(7), DType::kBF16, {3, 128});
  a.wsd = Tensor(addr(8), DType::kU8, {256, 64});
  a.ssd = Tensor(addr(9), DType::kU8, {256 * 8});
  a.gssd = Tensor(addr(10), DType::kF32, {1});
  a.out = Tensor(addr(11), DType::kBF16, {3, 256});
  return a;
}

std::string error_of(const GateUpArgs& a) {
  try {
    gate_up_key(a);
  } catch (const ArgumentError& e) {
    return e.argument + " | " + e.what();
  }
  return "no error";
}

std::string error_of(const DownCombineArgs& a) {
  try {
    down_combine_key(a);
  } catch (const ArgumentError& e) {
    return e.argument + " | " + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("valid arguments give the key", "[key][api]") {
  CHECK(gate_up_key(good_gate_up()).str() == "gate_up:256:128:128:4");
  CHECK(down_combine_key(good_down()).str() == "down_combine:256:128:128:4");
  auto a = good_gate_up();
  a.wsh = a.ssh = a.gssh = a.sact = Tensor();  // no shared expert
  CHECK(gate_up_key(a).str() == "gate_up:256:128:0:4");
}

// gate_up's optional hint: the same layer's down weights (GateUpArgs::down_*, gu_dpre).
TEST_CASE("gate_up's down-weight hint: empty, or the down's shapes", "[key][api]") {
  const DownCombineArgs d = good_down();
  auto with_hint = [&] {
    auto a = good_gate_up();
    a.down_w2 = d.w2, a.down_w2_sf = d.w2_sf, a.down_wsd = d.wsd, a.down_ssd = d.ssd;
    return a;
  };
  CHECK(error_of(with_hint()) == "no error");
  auto a = with_hint();
  a.down_w2 = Tensor(d.w2.ptr, DType::kU8, {8, 256, 32});  // I = 64, not w1's 128
  CHECK_THAT(error_of(a), Catch::StartsWith("down_w2 |") && Catch::Contains("[E, H, I/2]"));
  a = with_hint();
  a.down_w2 = Tensor(d.w2.ptr + 8, DType::kU8, {8, 256, 64});
  CHECK_THAT(error_of(a), Catch::StartsWith("down_w2 |") && Catch::Contains("aligned to 16"));
  a = with_hint();
  a.down_w2_sf = Tensor(d.w2_sf.ptr, DType::kU8, {8 * 256 * 16});  // gate_up's scale size
  CHECK_THAT(error_of(a), Catch::StartsWith("down_w2_sf |") && Catch::Contains("roundup"));
  a = with_hint();
  a.down_wsd = Tensor(d.wsd.ptr, DType::kU8, {256, 32});
  CHECK_THAT(error_of(a), Catch::StartsWith("down_wsd |"));
  a = with_hint();
  a.down_ssd = Tensor();
  CHECK_THAT(error_of(a), Catch::StartsWith("down_ssd |"));
  a = with_hint();
  a.down_w2 = Tensor();  // the rest without the weights: a half-passed hint is an error
  CHECK_THAT(error_of(a), Catch::StartsWith("down_w2_sf |") && Catch::Contains("down_w2 is empty"));
  a = with_hint();  // no shared expert: the shared down's hint must be empty too
  a.wsh = a.ssh = a.gssh = a.sact = Tensor();
  CHECK_THAT(error_of(a), Catch::StartsWith("down_wsd |") && Catch::Contains("SI = 0"));
  a.down_wsd = a.down_ssd = Tensor();
  CHECK(error_of(a) == "no error");
}

TEST_CASE("gate_up validation names the bad argument", "[key][api]") {
  auto a = good_gate_up();
  a.x.dtype = DType::kF32;
  CHECK_THAT(error_of(a), Catch::StartsWith("x |"));
  a = good_gate_up();
  a.ids = Tensor(addr(2), DType::kI32, {2, 4});
  CHECK_THAT(error_of(a), Catch::StartsWith("ids |") && Catch::Contains("[M, K]"));
  a = good_gate_up();
  a.w1 = Tensor(addr(3), DType::kU8, {8, 256, 64});
  CHECK_THAT(error_of(a), Catch::StartsWith("w1 |"));
  a = good_gate_up();
  a.w1_sf = Tensor(addr(4), DType::kU8, {100});
  CHECK_THAT(error_of(a), Catch::StartsWith("w1_sf |") && Catch::Contains("roundup"));
  a = good_gate_up();
  a.act = Tensor(addr(6) + 2, DType::kBF16, {12, 128});
  CHECK_THAT(error_of(a), Catch::StartsWith("act |") && Catch::Contains("aligned to 16"));
  a = good_gate_up();
  a.alpha = Tensor(addr(5), DType::kF32, {7});
  CHECK_THAT(error_of(a), Catch::StartsWith("alpha |"));
  a = good_gate_up();
  a.sact = Tensor(addr(10), DType::kBF16, {3, 64});
  CHECK_THAT(error_of(a), Catch::StartsWith("sact |"));
  a = good_gate_up();
  a.w1 = Tensor(addr(3), DType::kU8, {8, 200, 128});  // I = 100
  CHECK_THAT(error_of(a), Catch::StartsWith("w1 (I = w1.shape[1] / 2) |"));
  a = good_gate_up();
  a.act = Tensor(a.x.ptr, DType::kBF16, {12, 128});  // written over x
  CHECK_THAT(error_of(a), Catch::StartsWith("act |") && Catch::Contains("overlaps x"));
  a = good_gate_up();
  a.sact = Tensor(a.act.ptr + 12 * 128 * 2 - 16, DType::kBF16,
                  {3, 128});  // its first bytes in act's last row
  CHECK_THAT(error_of(a), Catch::StartsWith("act |") && Catch::Contains("overlaps sact"));
  a = good_gate_up();
  a.x = Tensor(addr(1), DType::kBF16, {3, 100});  // H = 100
  CHECK_THAT(error_of(a), Catch::StartsWith("x (H = x.shape[1]) |"));
  a = good_gate_up();
  a.wsh = Tensor(addr(6), DType::kU8, {1, 128});  // 2SI = 1 row: not "no shared expert"
  CHECK_THAT(error_of(a), Catch::StartsWith("wsh |") && Catch::Contains("empty view"));
  a = good_gate_up();
  a.wsh = Tensor(addr(6), DType::kU8, {128 * 128});  // flattened
  CHECK_THAT(error_of(a), Catch::StartsWith("wsh |") && Catch::Contains("[2SI, H/2]"));
  a = good_gate_up();
  a.w1_sf = Tensor(addr(4), DType::kU8, {-1, -8});  // a positive element count from negative dims
  CHECK_THAT(error_of(a), Catch::StartsWith("w1_sf |") && Catch::Contains("non-negative"));
  a = good_gate_up();
  a.wsh = Tensor();
  CHECK_THAT(error_of(a), Catch::StartsWith("ssh |") && Catch::Contains("SI = 0"));
}

TEST_CASE("down_combine validation names the bad argument", "[key][api]") {
  auto a = good_down();
  a.tw = Tensor(addr(3), DType::kBF16, {3, 4});
  CHECK_THAT(error_of(a), Catch::StartsWith("tw |"));
  a = good_down();
  a.out = Tensor(addr(11), DType::kBF16, {3, 128});
  CHECK_THAT(error_of(a), Catch::StartsWith("out |"));
  a = good_down();
  a.act = Tensor(addr(1), DType::kBF16, {12, 64});
  CHECK_THAT(error_of(a), Catch::StartsWith("act |"));
  a = good_down();
  a.ssd = Tensor(addr(9), DType::kU8, {17});
  CHECK_THAT(error_of(a), Catch::StartsWith("ssd |"));
  a = good_down();
  a.ids = Tensor(addr(2), DType::kI32, {3, 40});
  CHECK_THAT(error_of(a), Catch::StartsWith("ids (K = ids.shape[1]) |"));
  a = good_down();
  a.out = Tensor(a.act.ptr + 64, DType::kBF16, {3, 256});  // inside act
  CHECK_THAT(error_of(a), Catch::StartsWith("out |") && Catch::Contains("overlaps act"));
  a = good_down();
  a.wsd = Tensor(addr(7), DType::kU8, {128 * 32});  // flattened: was read as "no shared expert"
  CHECK_THAT(error_of(a), Catch::StartsWith("wsd |") && Catch::Contains("[H, SI/2]"));
}

TEST_CASE("the C ABI returns status codes and the last error", "[key][api]") {
  CHECK(std::string(moegemv_version()) == "0.1.0");
  CHECK(moegemv_gate_up(nullptr, nullptr, 1) == MOEGEMV_ERROR_ARGUMENT);
  CHECK_THAT(std::string(moegemv_last_error()), Catch::Contains("args"));
  moegemv_gate_up_args args;
  std::memset(&args, 0, sizeof(args));
  args.x.rank = 7;
  CHECK(moegemv_gate_up(&args, nullptr, 1) == MOEGEMV_ERROR_ARGUMENT);
  CHECK_THAT(std::string(moegemv_last_error()), Catch::Contains("'x'"));
  CHECK(moegemv_prepare("gate_up:100:64:0:1") == MOEGEMV_ERROR_ARGUMENT);
  CHECK_THAT(std::string(moegemv_last_error()), Catch::Contains("H of key"));
  CHECK(moegemv_prepare(nullptr) == MOEGEMV_ERROR_ARGUMENT);
  moegemv_down_combine_args down;
  std::memset(&down, 0, sizeof(down));
  CHECK(moegemv_down_combine(&down, nullptr, 0) == MOEGEMV_ERROR_ARGUMENT);
  CHECK_THAT(std::string(moegemv_last_error()), Catch::Contains("ids"));
}

TEST_CASE("the C ABI's gate_up with the down-weight hint validates it", "[key][api]") {
  // A valid gate_up (good_gate_up's tensors in the C layout) and the down's weights as the hint.
  auto c_tensor = [](const Tensor& t) {
    moegemv_tensor c;
    std::memset(&c, 0, sizeof(c));
    c.ptr = t.ptr, c.dtype = static_cast<int32_t>(t.dtype), c.rank = t.rank;
    for (int d = 0; d < t.rank; ++d) c.shape[d] = t.shape[d];
    return c;
  };
  const GateUpArgs g = good_gate_up();
  const DownCombineArgs d = good_down();
  moegemv_gate_up_args args{c_tensor(g.x),   c_tensor(g.ids), c_tensor(g.w1),   c_tensor(g.w1_sf),
                            c_tensor(g.alpha), c_tensor(g.act), c_tensor(g.wsh), c_tensor(g.ssh),
                            c_tensor(g.gssh), c_tensor(g.sact)};
  moegemv_down_combine_args hint;
  std::memset(&hint, 0, sizeof(hint));
  hint.w2 = c_tensor(d.w2), hint.w2_sf = c_tensor(d.w2_sf), hint.wsd = c_tensor(d.wsd);
  hint.ssd = c_tensor(d.ssd);
  hint.w2.shape[2] = 32;  // I = 64, not w1's 128: named as the C++ API names it
  CHECK(moegemv_gate_up_hinted(&args, &hint, nullptr, 1) == MOEGEMV_ERROR_ARGUMENT);
  CHECK_THAT(std::string(moegemv_last_error()), Catch::Contains("down_w2"));
  hint.w2.shape[2] = 64;
  hint.ssd.rank = 9;
  CHECK(moegemv_gate_up_hinted(&args, &hint, nullptr, 1) == MOEGEMV_ERROR_ARGUMENT);
  CHECK_THAT(std::string(moegemv_last_error()), Catch::Contains("down_ssd"));
  // (No valid call here: on a GPU its fake pointers would reach a kernel. The C++ test above
  // passes the same hint through gate_up_key.)
  CHECK(moegemv_gate_up_hinted(nullptr, &hint, nullptr, 1) == MOEGEMV_ERROR_ARGUMENT);
  CHECK_THAT(std::string(moegemv_last_error()), Catch::Contains("args"));
}
