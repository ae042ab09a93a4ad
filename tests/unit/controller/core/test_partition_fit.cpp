// A job's size against its partition's, at submission: one row per rule.
#include <catch2/catch.hpp>

#include "controller/core/partition_fit.h"

using namespace gantry::core;

TEST_CASE("a job's size is checked against its partition with Slurm's texts", "[core][partition_fit]") {
  struct Case {
    const char* rule;
    JobSize job;
    const char* refusal;  // nullptr: accepted
  };
  // Three nodes of 12, 12 and 20 CPUs.
  const PartitionSize partition{.nodes = 3, .cpus = 44, .largestNodeCpus = 20};
  const Case cases[] = {
      {"a job within every limit", {.minNodes = 2, .maxNodes = 3, .minCpus = 30, .cpusPerTask = 5}, nullptr},
      {"every node and every CPU", {.minNodes = 3, .maxNodes = 3, .minCpus = 44}, nullptr},
      {"more nodes than the partition has",
       {.minNodes = 4, .minCpus = 4},
       "Node count specification invalid: 4 nodes requested, the partition has 3"},
      {"minimum above maximum",
       {.minNodes = 3, .maxNodes = 2, .minCpus = 3},
       "Node count specification invalid: minimum 3 nodes is above the maximum 2"},
      {"more CPUs than all nodes hold",
       {.minNodes = 1, .minCpus = 45},
       "More processors requested than permitted: 45 CPUs requested, the partition's nodes have 44"},
      {"more nodes than the partition has CPUs: the CPU refusal comes first",
       {.minNodes = 50, .minCpus = 1},
       "More processors requested than permitted: 50 CPUs requested, the partition's nodes have 44"},
      {"a task larger than any node is left to selection",
       {.minNodes = 1, .minCpus = 48, .cpusPerTask = 48}, nullptr},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      gantry::Status fits = checkPartitionFit(c.job, partition);
      if (c.refusal == nullptr) {
        CHECK(fits.ok());
      } else {
        REQUIRE_FALSE(fits.ok());
        CHECK(fits.error() == c.refusal);
      }
    }
  }
}
