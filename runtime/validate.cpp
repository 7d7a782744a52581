#include "runtime/validate.hpp"

#include <fmt/format.h>

#include <span>

namespace moegemv::detail {

namespace {

// Checks one tensor against an expected dtype set, shape and alignment.
class Expect {
 public:
  Expect(const Tensor& t, const char* name) : t_(t), name_(name) {
    for (int d = 0; d < t_.rank; ++d)
      if (t_.shape[d] < 0) fail("non-negative dimensions");
  }

  Expect& dtype(DType want) {
    if (t_.dtype != want) fail(dtype_name(want));
    return *this;
  }
  Expect& scale_bytes() {  // e4m3 scales may come as u8 storage or e4m3 views
    if (t_.dtype != DType::kU8 && t_.dtype != DType::kE4M3) fail("u8 or e4m3");
    return *this;
  }
  Expect& shape(std::initializer_list<std::int64_t> dims, const char* text) {
    bool ok = t_.rank == static_cast<int>(dims.size());
    int d = 0;
    for (auto v : dims) ok = ok && t_.shape[d++] == v;
    if (!ok) fail(fmt::format("{} {}", dtype_name(t_.dtype), text));
    return *this;
  }
  Expect& rank(int r, const char* text) {
    if (t_.rank != r) fail(text);
    return *this;
  }
  Expect& numel(std::int64_t n, const char* text) {
    if (t_.numel() != n) fail(fmt::format("{} = {} elements", text, n));
    return *this;
  }
  Expect& aligned(unsigned bytes) {
    if (t_.numel() > 0 && (t_.ptr == 0 || t_.ptr % bytes != 0))
      fail(fmt::format("a non-null device pointer aligned to {} bytes", bytes));
    return *this;
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    throw ArgumentError(name_, expected, t_.describe());
  }
  const Tensor& t_;
  const char* name_;
};

template <class T>
T* ptr(const Tensor& t) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(t.ptr));
}

bool empty(const Tensor& t) { return t.rank == 0 ? t.ptr == 0 : t.numel() == 0; }

// The tensor (and the dimension of it) each of a key's sizes is read from, for errors.
struct KeySources {
  const char *h, *i, *si, *k;
};

// The key's sizes checked one by one, each error naming the tensor the size came from.
Key make_key(Kind kind, std::int64_t h, std::int64_t i, std::int64_t si, std::int64_t k,
             const KeySources& from) {
  constexpr std::int64_t kMax = 1 << 20;
  auto check = [](std::int64_t v, bool ok, const char* name, const char* expected) {
    if (!ok) throw ArgumentError(name, expected, std::to_string(v));
  };
  check(h, h > 0 && h % 64 == 0 && h <= kMax, from.h, "H a positive multiple of 64, at most 2^20");
  check(i, i > 0 && i % 64 == 0 && i <= kMax, from.i, "I a positive multiple of 64, at most 2^20");
  check(si, si >= 0 && si % 64 == 0 && si <= kMax, from.si,
        "SI 0 (no shared expert) or a positive multiple of 64, at most 2^20");
  check(k, k >= 1 && k <= 32, from.k, "K with 1 <= K <= 32");
  Key key{kind, static_cast<int>(h), static_cast<int>(i), static_cast<int>(si),
          static_cast<int>(k)};
  key.validate();
  return key;
}

std::int64_t bytes_of(const Tensor& t) {
  const std::int64_t size = t.dtype == DType::kBF16                            ? 2
                            : t.dtype == DType::kF32 || t.dtype == DType::kI32 ? 4
                                                                               : 1;
  return t.numel() * size;
}

// An output must share no byte with any other argument: the kernels read their inputs while
// writing (and read weights before the PDL wait), so an overlap gives wrong results silently.
struct Named {
  const Tensor* t;
  const char* name;
};
void check_disjoint(const Tensor& out, const char* out_name, std::span<const Named> others) {
  if (empty(out)) return;
  const std::uint64_t lo = out.ptr, hi = out.ptr + static_cast<std::uint64_t>(bytes_of(out));
  for (const auto& [t, name] : others) {
    if (empty(*t)) continue;
    const std::uint64_t tlo = t->ptr, thi = t->ptr + static_cast<std::uint64_t>(bytes_of(*t));
    if (lo < thi && tlo < hi) {
      throw ArgumentError(out_name,
                          fmt::format("memory that overlaps no other argument (it overlaps {} = {})",
                                      name, t->describe()),
                          out.describe());
    }
  }
}

// M (tokens) and E (experts) are ints in the kernels' parameters and grid arithmetic.
constexpr std::int64_t kMaxTokens = 1 << 16, kMaxExperts = 1 << 20;

}  // namespace

std::int64_t swizzled_scale_bytes(std::int64_t rows, std::int64_t cols) {
  // (rows and cols are key sizes, checked to be <= 2^20 before any call)
  return swizzled_block_bytes(static_cast<int>(rows), static_cast<int>(cols));
}

namespace {

// The down's weights and block scales for (E, H, I, SI), as the down takes them and as
// gate_up's prefetch hint names them (`names`: w2, w2_sf, wsd, ssd; `from`: where each weight's
// sizes come from, for the errors). wsd and ssd are read only when SI > 0.
struct DownWeights {
  const Tensor &w2, &w2_sf, &wsd, &ssd;
  const char* names[4];
};
void check_down_weights(const DownWeights& d, std::int64_t e, std::int64_t h, std::int64_t i,
                        std::int64_t si, const char* w2_from, const char* wsd_from) {
  Expect(d.w2, d.names[0]).dtype(DType::kU8).shape({e, h, i / 2}, w2_from).aligned(16);
  Expect(d.w2_sf, d.names[1])
      .scale_bytes()
      .numel(e * swizzled_scale_bytes(h, i), "E * roundup(H,128) * roundup(I/16,4)")
      .aligned(16);
  if (si == 0) return;
  Expect(d.wsd, d.names[2]).dtype(DType::kU8).shape({h, si / 2}, wsd_from).aligned(16);
  Expect(d.ssd, d.names[3])
      .scale_bytes()
      .numel(swizzled_scale_bytes(h, si), "roundup(H,128) * roundup(SI/16,4)")
      .aligned(16);
}

// GateUpArgs' optional down weights (a prefetch hint): all empty, or the down's shapes for this
// gate_up's E, H, I, SI (the shared ones empty when SI = 0).
void check_down_hint(const GateUpArgs& a, std::int64_t e, std::int64_t h, std::int64_t i,
                     std::int64_t si, GateUpParams& p) {
  if (empty(a.down_w2)) {
    for (auto [t, name] : {std::pair{&a.down_w2_sf, "down_w2_sf"}, {&a.down_wsd, "down_wsd"},
                           {&a.down_ssd, "down_ssd"}})
      if (!empty(*t))
        throw ArgumentError(name, "an empty view when down_w2 is empty (no hint)", t->describe());
    return;
  }
  check_down_weights({a.down_w2, a.down_w2_sf, a.down_wsd, a.down_ssd,
                      {"down_w2", "down_w2_sf", "down_wsd", "down_ssd"}},
                     e, h, i, si, "[E, H, I/2] with w1's E, I and x's H",
                     "[H, SI/2] with wsh's SI");
  if (si == 0) {
    for (auto [t, name] : {std::pair{&a.down_wsd, "down_wsd"}, {&a.down_ssd, "down_ssd"}})
      if (!empty(*t))
        throw ArgumentError(name, "an empty view when wsh is empty (SI = 0)", t->describe());
  }
  p.dw2 = ptr<const unsigned char>(a.down_w2);
  p.dw2_sf = ptr<const unsigned char>(a.down_w2_sf);
  p.dwsd = ptr<const unsigned char>(a.down_wsd);
  p.dssd = ptr<const unsigned char>(a.down_ssd);
}

}  // namespace

GateUpLaunch validate(const GateUpArgs& a) {
  Expect(a.x, "x").dtype(DType::kBF16).rank(2, "bf16 [M, H]");
  Expect(a.ids, "ids").dtype(DType::kI32).rank(2, "i32 [M, K]");
  Expect(a.w1, "w1").dtype(DType::kU8).rank(3, "u8 [E, 2I, H/2]");
  const std::int64_t m = a.x.dim(0), h = a.x.dim(1), k = a.ids.dim(1), e = a.w1.dim(0);
  const std::int64_t i = a.w1.dim(1) / 2;
  if (!empty(a.wsh))
    Expect(a.wsh, "wsh")
        .dtype(DType::kU8)
        .rank(2, "u8 [2SI, H/2], or an empty view (no shared expert)");
  const std::int64_t si = empty(a.wsh) ? 0 : a.wsh.dim(0) / 2;
  if (m < 1 || m > kMaxTokens)
    throw ArgumentError("x", "bf16 [M, H] with 1 <= M <= 65536", a.x.describe());
  if (e < 1 || e > kMaxExperts)
    throw ArgumentError("w1", "u8 [E, 2I, H/2] with 1 <= E <= 2^20", a.w1.describe());
  if (!empty(a.wsh) && si == 0)
    throw ArgumentError("wsh", "u8 [2SI, H/2] with SI >= 64, or an empty view (no shared expert)",
                        a.wsh.describe());
  Key key = make_key(Kind::kGateUp, h, i, si, k,
                     {"x (H = x.shape[1])", "w1 (I = w1.shape[1] / 2)",
                      "wsh (SI = wsh.shape[0] / 2)", "ids (K = ids.shape[1])"});
  Expect(a.ids, "ids").shape({m, k}, "[M, K] with M = x.shape[0]").aligned(4);
  Expect(a.w1, "w1").shape({e, 2 * i, h / 2}, "[E, 2I, H/2] with H = x.shape[1]").aligned(16);
  Expect(a.w1_sf, "w1_sf")
      .scale_bytes()
      .numel(e * swizzled_scale_bytes(2 * i, h), "E * roundup(2I,128) * roundup(H/16,4)")
      .aligned(16);
  Expect(a.alpha, "alpha").dtype(DType::kF32).shape({e}, "[E]").aligned(4);
  Expect(a.act, "act").dtype(DType::kBF16).shape({m * k, i}, "[M*K, I]").aligned(16);
  Expect(a.x, "x").aligned(16);
  if (si > 0) {
    Expect(a.wsh, "wsh").dtype(DType::kU8).shape({2 * si, h / 2}, "[2SI, H/2]").aligned(16);
    Expect(a.ssh, "ssh")
        .scale_bytes()
        .numel(swizzled_scale_bytes(2 * si, h), "roundup(2SI,128) * roundup(H/16,4)")
        .aligned(16);
    Expect(a.gssh, "gssh").dtype(DType::kF32).numel(1, "one f32").aligned(4);
    Expect(a.sact, "sact").dtype(DType::kBF16).shape({m, si}, "[M, SI]").aligned(16);
  } else {
    for (auto [t, name] : {std::pair{&a.ssh, "ssh"}, {&a.sact, "sact"}})
      if (!empty(*t))
        throw ArgumentError(name, "an empty view when wsh is empty (SI = 0)", t->describe());
  }
  const Tensor none;  // gssh is read only with a shared expert
  // clang-format off
  const Named inputs[] = {{&a.x, "x"}, {&a.ids, "ids"}, {&a.w1, "w1"}, {&a.w1_sf, "w1_sf"},
                          {&a.alpha, "alpha"}, {&a.wsh, "wsh"}, {&a.ssh, "ssh"},
                          {si > 0 ? &a.gssh : &none, "gssh"}};
  // clang-format on
  const Named sact[] = {{&a.sact, "sact"}};
  check_disjoint(a.act, "act", inputs);
  check_disjoint(a.act, "act", sact);
  check_disjoint(a.sact, "sact", inputs);
  GateUpParams p{};
  p.x = ptr<const unsigned short>(a.x);
  p.ids = ptr<const int>(a.ids);
  p.w1 = ptr<const unsigned char>(a.w1);
  p.w1_sf = ptr<const unsigned char>(a.w1_sf);
  p.alpha = ptr<const float>(a.alpha);
  p.act = ptr<unsigned short>(a.act);
  p.wsh = ptr<const unsigned char>(a.wsh);
  p.ssh = ptr<const unsigned char>(a.ssh);
  p.gssh = ptr<const float>(a.gssh);
  p.sact = ptr<unsigned short>(a.sact);
  p.m = static_cast<int>(m);
  p.e = static_cast<int>(e);
  check_down_hint(a, e, h, i, si, p);
  return {key, p};
}

DownLaunch validate(const DownCombineArgs& a) {
  Expect(a.ids, "ids").dtype(DType::kI32).rank(2, "i32 [M, K]");
  Expect(a.w2, "w2").dtype(DType::kU8).rank(3, "u8 [E, H, I/2]");
  Expect(a.out, "out").dtype(DType::kBF16).rank(2, "bf16 [M, H]");
  const std::int64_t m = a.ids.dim(0), k = a.ids.dim(1), e = a.w2.dim(0), h = a.w2.dim(1);
  const std::int64_t i = a.w2.dim(2) * 2;
  if (!empty(a.wsd))
    Expect(a.wsd, "wsd")
        .dtype(DType::kU8)
        .rank(2, "u8 [H, SI/2], or an empty view (no shared expert)");
  const std::int64_t si = empty(a.wsd) ? 0 : a.wsd.dim(1) * 2;
  if (m < 1 || m > kMaxTokens)
    throw ArgumentError("ids", "i32 [M, K] with 1 <= M <= 65536", a.ids.describe());
  if (e < 1 || e > kMaxExperts)
    throw ArgumentError("w2", "u8 [E, H, I/2] with 1 <= E <= 2^20", a.w2.describe());
  Key key = make_key(Kind::kDownCombine, h, i, si, k,
                     {"w2 (H = w2.shape[1])", "w2 (I = 2 * w2.shape[2])",
                      "wsd (SI = 2 * wsd.shape[1])", "ids (K = ids.shape[1])"});
  Expect(a.ids, "ids").aligned(4);
  Expect(a.act, "act")
      .dtype(DType::kBF16)
      .shape({m * k, i}, "[M*K, I] with I = 2 * w2.shape[2]")
      .aligned(16);
  Expect(a.tw, "tw").dtype(DType::kF32).shape({m, k}, "[M, K]").aligned(4);
  check_down_weights({a.w2, a.w2_sf, a.wsd, a.ssd, {"w2", "w2_sf", "wsd", "ssd"}}, e, h, i, si,
                     "[E, H, I/2]", "[H, SI/2]");
  Expect(a.alpha2, "alpha2").dtype(DType::kF32).shape({e}, "[E]").aligned(4);
  Expect(a.out, "out").shape({m, h}, "[M, H] with H = w2.shape[1]").aligned(16);
  if (si > 0) {
    Expect(a.gssd, "gssd").dtype(DType::kF32).numel(1, "one f32").aligned(4);
    Expect(a.sact, "sact").dtype(DType::kBF16).shape({m, si}, "[M, SI]").aligned(16);
  } else {
    for (auto [t, name] : {std::pair{&a.ssd, "ssd"}, {&a.sact, "sact"}})
      if (!empty(*t))
        throw ArgumentError(name, "an empty view when wsd is empty (SI = 0)", t->describe());
  }
  const Tensor none;  // gssd is read only with a shared expert
  // clang-format off
  const Named inputs[] = {{&a.act, "act"}, {&a.ids, "ids"}, {&a.tw, "tw"}, {&a.w2, "w2"},
                          {&a.w2_sf, "w2_sf"}, {&a.alpha2, "alpha2"}, {&a.sact, "sact"},
                          {&a.wsd, "wsd"}, {&a.ssd, "ssd"}, {si > 0 ? &a.gssd : &none, "gssd"}};
  // clang-format on
  check_disjoint(a.out, "out", inputs);
  DownParams p{};
  p.act = ptr<const unsigned short>(a.act);
  p.ids = ptr<const int>(a.ids);
  p.tw = ptr<const float>(a.tw);
  p.w2 = ptr<const unsigned char>(a.w2);
  p.w2_sf = ptr<const unsigned char>(a.w2_sf);
  p.alpha2 = ptr<const float>(a.alpha2);
  p.sact = ptr<const unsigned short>(a.sact);
  p.wsd = ptr<const unsigned char>(a.wsd);
  p.ssd = ptr<const unsigned char>(a.ssd);
  p.gssd = ptr<const float>(a.gssd);
  p.out = ptr<unsigned short>(a.out);
  p.m = static_cast<int>(m);
  p.e = static_cast<int>(e);
  return {key, p};
}

}  // namespace moegemv::detail
