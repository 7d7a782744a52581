#include <catch2/catch.hpp>

#include "moegemv/errors.hpp"
#include "moegemv/key.hpp"

using moegemv::ArgumentError;
using moegemv::Key;
using moegemv::Kind;

TEST_CASE("key canonical string round trips", "[key]") {
  Key key{Kind::kGateUp, 7168, 2048, 2048, 8};
  CHECK(key.str() == "gate_up:7168:2048:2048:8");
  CHECK(Key::parse("gate_up:7168:2048:2048:8") == key);
  Key down = Key::parse("down_combine:2048:768:0:8");
  CHECK(down.kind == Kind::kDownCombine);
  CHECK(down.si == 0);
  CHECK(down.str() == "down_combine:2048:768:0:8");
}

TEST_CASE("key validation names the bad field", "[key]") {
  auto message = [](const char* text) {
    try {
      Key::parse(text);
    } catch (const ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("gate_up:7100:2048:2048:8"), Catch::Contains("H of key"));
  CHECK_THAT(message("gate_up:7168:2000:2048:8"), Catch::Contains("I of key"));
  CHECK_THAT(message("gate_up:7168:2048:100:8"), Catch::Contains("SI of key"));
  CHECK_THAT(message("gate_up:7168:2048:2048:0"), Catch::Contains("K of key"));
  CHECK_THAT(message("gate_up:7168:2048:2048:33"), Catch::Contains("1 <= K <= 32"));
  CHECK_THAT(message("gateup:7168:2048:2048:8"), Catch::Contains("KIND:H:I:SI:K"));
  CHECK_THAT(message("gate_up:7168:2048:2048"), Catch::Contains("KIND:H:I:SI:K"));
  CHECK_THAT(message("gate_up:7168:2048:2048:8x"), Catch::Contains("decimal"));
  CHECK_THAT(message("gate_up:-64:2048:2048:8"), Catch::Contains("H of key"));
}
