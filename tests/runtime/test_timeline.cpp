// The bench's CTA-timeline summary (tools/harness/timeline.hpp) on made-up stamps: no GPU.
#include <catch2/catch.hpp>

#include "tools/harness/timeline.hpp"

using moegemv::harness::CtaStamp;
using moegemv::harness::timeline_summary;

TEST_CASE("the timeline summary gives each kernel's ranges, CTA times and the per-SM hand-over",
          "[timeline]") {
  // ns; gate_up from 1000: SM 0 ends at 11000, SM 1 at 13000. down: SM 0 starts at 12000 (1 us
  // after gate_up's last CTA there), SM 1 at 13500 (0.5 us after); both wait until 14000.
  const std::vector<CtaStamp> gate_up = {
      {1000, 1500, 11000, 0}, {1200, 1600, 13000, 1}, {2000, 2100, 9000, 0}};
  const std::vector<CtaStamp> down = {{12000, 14000, 40000, 0}, {13500, 14000, 41000, 1}};
  const std::string s = timeline_summary(gate_up, down);
  INFO(s);
  CHECK(s.find("gate_up 3 CTAs: start 0.0-1.0 (median 0.2, p90 1.0)") != std::string::npos);
  CHECK(s.find("end 8.0-12.0 (median 10.0, p90 12.0); each CTA took 7.0-11.8 (median 10.0, p90 11.8)") !=
        std::string::npos);
  CHECK(s.find("down 2 CTAs: start 11.0-12.5") != std::string::npos);
  CHECK(s.find("PDL wait returns 13.0-13.0") != std::string::npos);
  CHECK(s.find("gate_up's last end: 0.5-1.0") != std::string::npos);
  CHECK(s.find("1 down CTAs started before gate_up's last CTA ended") != std::string::npos);
  // SM 0 holds two gate_up CTAs (last end 11000: 10.0 us), SM 1 one (12.0 us).
  CHECK(s.find("gate_up CTAs per SM: 2 x 1 SMs (last end median 10.0 us), 1 x 1 SMs (last end "
               "median 12.0 us)\n") != std::string::npos);
  // An SM with down CTAs only counts as one with no gate_up CTA.
  std::vector<CtaStamp> down3 = down;
  down3.push_back({12500, 14000, 39000, 2});
  CHECK(timeline_summary(gate_up, down3).find("1 x 1 SMs (last end median 12.0 us), 0 x 1 SMs\n") !=
        std::string::npos);
  // gate_up: first wait return 1500, last end 13000; down: 14000 to 41000.
  CHECK(s.find("first PDL wait return to last end: gate_up 11.5 us, down 27.0 us") !=
        std::string::npos);
  // A kernel without wait stamps spans from its first start.
  const std::string n = timeline_summary({{1000, 0, 5000, 0}, {3000, 0, 8000, 1}}, down);
  INFO(n);
  CHECK(n.find("first PDL wait return to last end: gate_up 7.0 us") != std::string::npos);
  CHECK(timeline_summary({}, down) == "timeline: no stamps\n");
}
