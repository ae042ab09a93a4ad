#include "common/config/billing_weights.h"

#include <catch2/catch.hpp>

using gantry::config::billingUnits;
using gantry::config::parseBillingWeights;

TEST_CASE("billing weights: CPUs, memory per GB or MB, and GRES add up", "[billing]") {
  auto weights = parseBillingWeights("CPU=0.5,Mem=2G,GRES/gpu=4,Node=1");
  REQUIRE(weights);
  std::map<std::string, uint64_t> held = {{"cpu", 6}, {"mem", 3072}, {"gres/gpu", 2}, {"node", 1}};
  CHECK(billingUnits(*weights, held) == Approx(3 + 6 + 8 + 1));
  auto perMb = parseBillingWeights("mem=0.001");
  REQUIRE(perMb);
  CHECK(billingUnits(*perMb, held) == Approx(3.072));
}

TEST_CASE("billing weights: none bill the CPUs", "[billing]") {
  auto weights = parseBillingWeights("");
  REQUIRE(weights);
  CHECK(billingUnits(*weights, {{"cpu", 12}, {"mem", 9000}}) == 12);
}

TEST_CASE("billing weights: malformed items are refused, naming them", "[billing]") {
  struct Row { const char* text; const char* why; };
  const Row rows[] = {{"CPU", "is not NAME=WEIGHT"},
                      {"CPU=1.5.2", "not a number"},
                      {"CPU=-1", "not a number of 0 or more"},
                      {"CPU=1G", "only Mem takes"},
                      {"Mem=1Q", "unknown unit"},
                      {"Disk=1", "names no TRES"}};
  for (const Row& row : rows) {
    INFO(row.text);
    auto weights = parseBillingWeights(row.text);
    REQUIRE_FALSE(weights);
    CHECK(weights.error().find(row.why) != std::string::npos);
    CHECK(weights.error().find(std::string("\"") + row.text) != std::string::npos);
  }
}
