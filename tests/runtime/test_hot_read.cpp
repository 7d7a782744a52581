// The shared-lines diagnostic (`moegemv bench --hot`, tools/harness/hot_read.hpp): its table on
// made-up rows (no GPU), and on the GPU its kernels, the cluster launches included.
#include <catch2/catch.hpp>

#include <cmath>

#include "gpu_guard.hpp"
#include "runtime/device.hpp"
#include "runtime/memory.hpp"
#include "tools/harness/hot_read.hpp"

using moegemv::harness::HotReadCase;
using moegemv::harness::HotReadRow;

TEST_CASE("the shared-lines table gives each row against its shape's first", "[bench]") {
  const HotReadCase a{"a", 8, 64, 1024, 0}, b{"b", 4, 32, 512, 0};
  const std::string s = moegemv::harness::hot_read_table(
      {{a, 8, 1, 2.0}, {a, 1, 1, 2.5}, {a, 1, 4, 2.25}, {a, 8, 4, 2.1}, {b, 4, 1, 3.0},
       {b, 2, 1, 2.75}});
  INFO(s);
  CHECK(s.find("a (8 CTAs x 64 threads)\n  one copy per CTA") != std::string::npos);
  CHECK(s.find("  1 copy                                             2.50 us (+0.50)") !=
        std::string::npos);
  CHECK(s.find("1 copy, one read per cluster of 4") != std::string::npos);
  CHECK(s.find("2.25 us (+0.25)") != std::string::npos);
  CHECK(s.find("one copy per CTA, one read per cluster of 4") != std::string::npos);
  CHECK(s.find("b (4 CTAs x 32 threads)\n") != std::string::npos);
  CHECK(s.find("2 copies") != std::string::npos);
  CHECK(s.find("2.75 us (-0.25)") != std::string::npos);
}

TEST_CASE("the shared-lines diagnostic runs every row, the cluster launches too", "[bench][gpu]") {
  MOEGEMV_REQUIRE_GPU();
  moegemv::driver::PrimaryContext context(0);
  context.make_current();
  moegemv::driver::Stream stream;
  const auto rows = moegemv::harness::measure_hot_reads(stream.get());
  CHECK(rows.size() == 3 * 10);
  int clustered = 0;
  for (const auto& r : rows) {
    INFO(r.shape.what << " copies " << r.copies << " cluster " << r.cluster);
    CHECK(std::isfinite(r.us));
    CHECK(r.us > 0);
    clustered += r.cluster > 1;
  }
  CHECK(clustered == 3 * 4);
}
