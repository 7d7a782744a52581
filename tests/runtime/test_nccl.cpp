// NCCL is opened at run time; loading it and making a unique id need no GPU.
#include <catch2/catch.hpp>

#include "moegemv/errors.hpp"
#include "runtime/nccl.hpp"
#include "tools/harness/multi_gpu.hpp"

using namespace moegemv;

TEST_CASE("NCCL loads at run time and makes a unique id", "[nccl]") {
  if (!nccl::available()) {
    WARN("libnccl.so.2 not found: skipping");
    CHECK_THROWS_AS(nccl::api(), CudaError);
    return;
  }
  CHECK(nccl::api().version >= 20000);
  ncclUniqueId id{};
  CHECK_NOTHROW(nccl::check(nccl::api().GetUniqueId(&id), "ncclGetUniqueId"));
  CHECK_THROWS_WITH(nccl::check(ncclInvalidArgument, "ncclAllReduce"), Catch::Contains("ncclAllReduce"));
}

TEST_CASE("the multi-GPU bench rejects bad modes before forking", "[nccl]") {
  harness::MultiGpuConfig c;
  c.mode = "pp";
  CHECK_THROWS_AS(harness::run_multi_gpu_bench(c), ArgumentError);
  c.mode = "tp";
  c.ranks = 1;
  CHECK_THROWS_WITH(harness::run_multi_gpu_bench(c), Catch::Contains("N >= 2"));
}
