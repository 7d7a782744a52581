#include "tools/harness/multi_gpu.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "moegemv/moegemv.hpp"
#include "nvfp4/format.hpp"
#include "nvfp4/reference.hpp"
#include "nvfp4/shard.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "runtime/memory.hpp"
#include "runtime/nccl.hpp"
#include "tools/harness/bench.hpp"
#include "tools/harness/device_layer.hpp"
#include "tools/harness/models.hpp"

namespace moegemv::harness {

namespace {

constexpr std::uint64_t kSeed = 0x5EED;  // every rank builds the same full layer and inputs

double time_graph_us(const driver::GraphExec& graph, CUstream stream, int batches, int replays) {
  return time_graph(graph, stream, batches, replays).median_ms * 1e3;
}

// One rank: its shard on GPU `rank`; rank 0 also times the unsharded layer and checks the sum.
std::string run_rank(const MultiGpuConfig& c, int rank, const ncclUniqueId& id) {
  driver::PrimaryContext context(rank);
  context.make_current();
  driver::Stream stream;
  const ModelPreset p = find_preset(c.model);
  const nvfp4::ModelShape shape{p.h, p.i, p.si, p.k, p.e};
  const auto layer = nvfp4::make_layer_fast(shape, kSeed);
  const auto shard = c.mode == "tp" ? nvfp4::shard_tp(layer, c.ranks, rank)
                                    : nvfp4::shard_ep(layer, c.ranks, rank);
  DeviceLayer device(shard);
  nccl::Comm comm(id, c.ranks, rank);
  std::ostringstream report;
  for (int m : c.ms) {
    auto in = nvfp4::make_inputs(shape, m, kSeed + m);
    auto local = in;
    if (c.mode == "ep") local.ids = nvfp4::local_ids_ep(in.ids, shape.E, c.ranks, rank);
    DeviceStep step(shard.shape, m);
    step.upload(local);
    auto body = [&] {
      gate_up(gate_up_args(device, step), stream.get());
      down_combine(down_args(device, step), stream.get());
      nccl::check(nccl::api().AllReduce(reinterpret_cast<void*>(step.out.ptr()),
                                        reinterpret_cast<void*>(step.out.ptr()),
                                        std::size_t(m) * shape.H, ncclBfloat16, ncclSum,
                                        comm.get(), stream.get()),
                  "ncclAllReduce");
    };
    body();  // loads the kernels before capture
    stream.synchronize();
    auto graph = driver::capture(stream.get(), body);
    const double sharded = time_graph_us(graph, stream.get(), c.batches, c.replays);
    // One more replay on every rank (the all-reduce needs all of them), then rank 0 checks it.
    graph.launch(stream.get());
    stream.synchronize();
    if (rank != 0) continue;
    auto got = download_u16(step.out);
    auto g = nvfp4::gate_up_ref(in.x, in.ids, shape.K, layer.routed, layer.shared);
    auto ref = nvfp4::down_combine_ref(g.act, in.ids, in.tw, g.sact, shape.K, layer.routed,
                                       layer.shared);
    std::vector<float> scale(ref.scale.size(), 0.0f);
    for (int r = 0; r < c.ranks; ++r) {  // the sum's terms: every rank's rounded terms
      auto s = c.mode == "tp" ? nvfp4::shard_tp(layer, c.ranks, r) : nvfp4::shard_ep(layer, c.ranks, r);
      auto ids = c.mode == "ep" ? nvfp4::local_ids_ep(in.ids, shape.E, c.ranks, r) : in.ids;
      auto gr = nvfp4::gate_up_ref(in.x, ids, shape.K, s.routed, s.shared);
      auto dr = nvfp4::down_combine_ref(gr.act, ids, in.tw, gr.sact, shape.K, s.routed, s.shared);
      for (std::size_t o = 0; o < scale.size(); ++o) scale[o] += dr.scale[o];
    }
    auto cmp = nvfp4::compare_bf16(got, ref.out, scale);
    // The unsharded layer on this GPU alone, for comparison.
    DeviceLayer whole(layer);
    DeviceStep step1(shape, m);
    step1.upload(in);
    auto body1 = [&] {
      gate_up(gate_up_args(whole, step1), stream.get());
      down_combine(down_args(whole, step1), stream.get());
    };
    body1();
    stream.synchronize();
    auto graph1 = driver::capture(stream.get(), body1);
    const double single = time_graph_us(graph1, stream.get(), c.batches, c.replays);
    report << m << '\t' << sharded << '\t' << single << '\t'
           << (cmp.over_bound == 0 && cmp.nan == 0 && cmp.unwritten == 0) << '\t' << cmp.summary()
           << '\n';
  }
  return report.str();
}

}  // namespace

std::vector<MultiGpuRow> run_multi_gpu_bench(const MultiGpuConfig& c) {
  if (c.mode != "tp" && c.mode != "ep") throw ArgumentError("mode", "tp or ep", c.mode);
  if (c.ranks < 2) throw ArgumentError("--tp/--ep", "N >= 2 GPUs", std::to_string(c.ranks));
  // Rank 0 makes the NCCL id and the parent relays it: the parent never touches CUDA.
  std::vector<int> to_child(c.ranks), from_child(c.ranks);
  std::vector<pid_t> pids;
  for (int r = 0; r < c.ranks; ++r) {
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) throw Error("pipe() failed");
    const pid_t pid = fork();
    if (pid == 0) {
      close(down[1]);
      close(up[0]);
      std::string out;
      int rc = 0;
      try {
        ncclUniqueId id{};
        if (r == 0) {
          nccl::check(nccl::api().GetUniqueId(&id), "ncclGetUniqueId");
          if (write(up[1], &id, sizeof(id)) != sizeof(id)) _exit(3);
        } else if (read(down[0], &id, sizeof(id)) != sizeof(id)) {
          _exit(3);
        }
        out = run_rank(c, r, id);
      } catch (const std::exception& e) {
        out = std::string("error\t") + e.what() + "\n";
        rc = 1;
      }
      if (write(up[1], out.data(), out.size()) < 0) rc = 3;
      _exit(rc);
    }
    close(down[0]);
    close(up[1]);
    to_child[r] = down[1];
    from_child[r] = up[0];
    pids.push_back(pid);
  }
  ncclUniqueId id{};
  if (read(from_child[0], &id, sizeof(id)) != sizeof(id)) throw Error("rank 0 sent no NCCL id");
  for (int r = 1; r < c.ranks; ++r)
    if (write(to_child[r], &id, sizeof(id)) != sizeof(id)) throw Error("could not reach a rank");
  std::vector<std::string> outputs(c.ranks);
  for (int r = 0; r < c.ranks; ++r) {
    char buf[4096];
    for (ssize_t n; (n = read(from_child[r], buf, sizeof(buf))) > 0;) outputs[r].append(buf, n);
    int status = 0;
    waitpid(pids[r], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw Error(fmt::format("rank {} failed: {}", r, outputs[r]));
  }
  std::vector<MultiGpuRow> rows;
  std::istringstream lines(outputs[0]);
  for (std::string line; std::getline(lines, line);) {
    MultiGpuRow row;
    int pass = 0;
    std::istringstream f(line);
    f >> row.m >> row.us_sharded >> row.us_single >> pass;
    std::getline(f >> std::ws, row.check);
    row.pass = pass != 0;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace moegemv::harness
