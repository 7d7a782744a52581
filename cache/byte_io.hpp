#pragma once
// Little-endian serialization shared by the entry and bundle formats and the content hash.
// Explicit byte order keeps files and hashes identical on every host.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace moegemv::cache {

class ByteWriter {
 public:
  void u32(std::uint32_t v) { le(v, 4); }
  void u64(std::uint64_t v) { le(v, 8); }
  void raw(std::span<const std::uint8_t> bytes) {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
  }
  void raw(std::string_view text) { out_.insert(out_.end(), text.begin(), text.end()); }
  /// u64 length, then the bytes: no two field sequences serialize alike.
  void str(std::string_view text) {
    u64(text.size());
    raw(text);
  }
  const std::vector<std::uint8_t>& bytes() const { return out_; }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  void le(std::uint64_t v, int n) {
    for (int b = 0; b < n; ++b) out_.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  }
  std::vector<std::uint8_t> out_;
};

/// Bounds-checked reader; every call returns false once the input is exhausted.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> data) : data_(data) {}

  bool u32(std::uint32_t& v) {
    std::uint64_t wide = 0;
    if (!le(wide, 4)) return false;
    v = static_cast<std::uint32_t>(wide);
    return true;
  }
  bool u64(std::uint64_t& v) { return le(v, 8); }
  bool raw(std::size_t n, std::string& out) {
    if (remaining() < n) return false;
    out.assign(reinterpret_cast<const char*>(data_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  /// A length-prefixed string of at most `max_len` bytes (guards against corrupt lengths).
  bool str(std::string& out, std::size_t max_len = 4096) {
    std::uint64_t n = 0;
    return u64(n) && n <= max_len && raw(static_cast<std::size_t>(n), out);
  }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return data_.size() - pos_; }

 private:
  bool le(std::uint64_t& v, int n) {
    if (remaining() < static_cast<std::size_t>(n)) return false;
    v = 0;
    for (int b = 0; b < n; ++b) v |= std::uint64_t{data_[pos_ + b]} << (8 * b);
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  std::span<const std::uint8_t> data_;
  std::size_t pos_ = 0;
};

/// XXH3-64 of a cubin, as stored in entry headers and bundle manifests.
std::uint64_t cubin_checksum(std::span<const std::uint8_t> bytes);

/// 16 lowercase hex digits.
std::string hex64(std::uint64_t v);

}  // namespace moegemv::cache
