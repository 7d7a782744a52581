#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "moegemv/moegemv.hpp"

namespace moegemv {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBF16:
      return "bf16";
    case DType::kF32:
      return "f32";
    case DType::kI32:
      return "i32";
    case DType::kU8:
      return "u8";
    case DType::kE4M3:
      return "e4m3";
  }
  return "?";
}

Tensor::Tensor(CUdeviceptr p, DType t, std::initializer_list<std::int64_t> dims)
    : ptr(p), dtype(t), rank(static_cast<int>(dims.size())) {
  if (dims.size() > shape.size())
    throw ArgumentError("Tensor", "rank <= 4", std::to_string(dims.size()));
  int d = 0;
  for (auto v : dims) shape[d++] = v;
}

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

std::string Tensor::describe() const {
  std::vector<std::int64_t> dims(shape.begin(), shape.begin() + rank);
  return fmt::format("{}[{}] @0x{:x}", dtype_name(dtype), fmt::join(dims, ", "), ptr);
}

}  // namespace moegemv
