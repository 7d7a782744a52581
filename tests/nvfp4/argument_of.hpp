#pragma once
// The `argument` of the ArgumentError a call throws, for the [layout]/[reference] tests.
#include <string>

#include "moegemv/errors.hpp"

template <class F>
std::string argument_of(F&& f) {
  try {
    f();
  } catch (const moegemv::ArgumentError& e) {
    return e.argument;
  }
  return "<no ArgumentError>";
}
