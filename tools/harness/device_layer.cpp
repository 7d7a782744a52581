#include "tools/harness/device_layer.hpp"

namespace moegemv::harness {

namespace {

template <class T>
driver::DeviceBuffer upload(const std::vector<T>& host) {
  driver::DeviceBuffer buffer(host.size() * sizeof(T));
  if (!host.empty()) buffer.upload(host.data(), host.size() * sizeof(T));
  return buffer;
}

driver::DeviceBuffer upload_scalar(float v) { return upload(std::vector<float>{v}); }

}  // namespace

DeviceLayer::DeviceLayer(const nvfp4::SyntheticLayer& layer)
    : shape(layer.shape),
      w1(upload(layer.routed.w1)),
      w1_sf(upload(layer.routed.w1_sf)),
      alpha(upload(layer.routed.alpha)),
      w2(upload(layer.routed.w2)),
      w2_sf(upload(layer.routed.w2_sf)),
      alpha2(upload(layer.routed.alpha2)),
      wsh(upload(layer.shared.wsh)),
      ssh(upload(layer.shared.ssh)),
      gssh(upload_scalar(layer.shared.gssh)),
      wsd(upload(layer.shared.wsd)),
      ssd(upload(layer.shared.ssd)),
      gssd(upload_scalar(layer.shared.gssd)) {}

std::uint64_t DeviceLayer::bytes() const {
  return w1.bytes() + w1_sf.bytes() + w2.bytes() + w2_sf.bytes() + wsh.bytes() + ssh.bytes() +
         wsd.bytes() + ssd.bytes();
}

DeviceStep::DeviceStep(const nvfp4::ModelShape& shape, int m_)
    : m(m_),
      k(shape.K),
      x(std::size_t(m_) * shape.H * 2),
      ids(std::size_t(m_) * shape.K * 4),
      tw(std::size_t(m_) * shape.K * 4),
      act(std::size_t(m_) * shape.K * shape.I * 2),
      sact(std::size_t(m_) * shape.SI * 2),
      out(std::size_t(m_) * shape.H * 2) {}

void DeviceStep::upload(const nvfp4::SyntheticInputs& in) {
  x.upload(in.x.data(), in.x.size() * 2);
  ids.upload(in.ids.data(), in.ids.size() * 4);
  tw.upload(in.tw.data(), in.tw.size() * 4);
}

void DeviceStep::poison(CUstream stream) {
  act.fill_u16(0xFFFF, stream);
  if (sact.bytes()) sact.fill_u16(0xFFFF, stream);
  out.fill_u16(0xFFFF, stream);
}

GateUpArgs gate_up_args(const DeviceLayer& l, const DeviceStep& s) {
  const auto& sh = l.shape;
  const bool shared = sh.SI > 0;
  GateUpArgs a;
  a.x = Tensor(s.x.ptr(), DType::kBF16, {s.m, sh.H});
  a.ids = Tensor(s.ids.ptr(), DType::kI32, {s.m, sh.K});
  a.w1 = Tensor(l.w1.ptr(), DType::kU8, {sh.E, 2 * sh.I, sh.H / 2});
  a.w1_sf = Tensor(l.w1_sf.ptr(), DType::kE4M3, {std::int64_t(l.w1_sf.bytes())});
  a.alpha = Tensor(l.alpha.ptr(), DType::kF32, {sh.E});
  a.act = Tensor(s.act.ptr(), DType::kBF16, {std::int64_t(s.m) * sh.K, sh.I});
  if (shared) {
    a.wsh = Tensor(l.wsh.ptr(), DType::kU8, {2 * sh.SI, sh.H / 2});
    a.ssh = Tensor(l.ssh.ptr(), DType::kE4M3, {std::int64_t(l.ssh.bytes())});
    a.gssh = Tensor(l.gssh.ptr(), DType::kF32, {1});
    a.sact = Tensor(s.sact.ptr(), DType::kBF16, {s.m, sh.SI});
  }
  // The down's weights as the prefetch hint (used where gate_up's DPRE is on: v62's default on
  // the small presets at M = 1, or MOEGEMV_TUNE gu_dpre).
  const DownCombineArgs d = down_args(l, s);
  a.down_w2 = d.w2;
  a.down_w2_sf = d.w2_sf;
  a.down_wsd = d.wsd;
  a.down_ssd = d.ssd;
  return a;
}

DownCombineArgs down_args(const DeviceLayer& l, const DeviceStep& s) {
  const auto& sh = l.shape;
  const bool shared = sh.SI > 0;
  DownCombineArgs a;
  a.act = Tensor(s.act.ptr(), DType::kBF16, {std::int64_t(s.m) * sh.K, sh.I});
  a.ids = Tensor(s.ids.ptr(), DType::kI32, {s.m, sh.K});
  a.tw = Tensor(s.tw.ptr(), DType::kF32, {s.m, sh.K});
  a.w2 = Tensor(l.w2.ptr(), DType::kU8, {sh.E, sh.H, sh.I / 2});
  a.w2_sf = Tensor(l.w2_sf.ptr(), DType::kE4M3, {std::int64_t(l.w2_sf.bytes())});
  a.alpha2 = Tensor(l.alpha2.ptr(), DType::kF32, {sh.E});
  if (shared) {
    a.sact = Tensor(s.sact.ptr(), DType::kBF16, {s.m, sh.SI});
    a.wsd = Tensor(l.wsd.ptr(), DType::kU8, {sh.H, sh.SI / 2});
    a.ssd = Tensor(l.ssd.ptr(), DType::kE4M3, {std::int64_t(l.ssd.bytes())});
    a.gssd = Tensor(l.gssd.ptr(), DType::kF32, {1});
  }
  a.out = Tensor(s.out.ptr(), DType::kBF16, {s.m, sh.H});
  return a;
}

std::vector<std::uint16_t> download_u16(const driver::DeviceBuffer& buffer) {
  std::vector<std::uint16_t> host(buffer.bytes() / 2);
  if (!host.empty()) buffer.download(host.data(), buffer.bytes());
  return host;
}

}  // namespace moegemv::harness
