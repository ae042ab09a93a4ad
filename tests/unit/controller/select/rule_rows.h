// Table rows for selection tests: one row per rule, each a named check run
// in a SECTION of its own, so a failure names the rule it broke.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <vector>

namespace select_test {

struct Row {
  const char* rule;
  std::function<void()> check;
};

inline void runRows(const std::vector<Row>& rows) {
  for (const auto& row : rows) {
    SECTION(row.rule) { row.check(); }
  }
}

}  // namespace select_test
