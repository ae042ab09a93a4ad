// A JobSpec's -w/-x names as selection's node lists, with Slurm's refusals
// (requested_nodes.h): one row per rule.
#include <catch2/catch.hpp>

#include <map>

#include "controller/core/requested_nodes.h"

using namespace gantry;
using namespace gantry::core;

namespace {

// Nodes rk1..rk6 at selection indexes 10..15 (not their name order's
// positions, so a test cannot pass by reading numbers off the names).
int lookup(const std::string& name) {
  static const std::map<std::string, int> kIndex = {{"rk1", 10}, {"rk2", 11}, {"rk3", 12},
                                                    {"rk4", 13}, {"rk5", 14}, {"rk6", 15}};
  auto found = kIndex.find(name);
  return found == kIndex.end() ? -1 : found->second;
}

v1::JobSpec specOf(const std::string& required, const std::string& excluded, int minNodes = 0, int maxNodes = 0) {
  v1::JobSpec spec;
  spec.set_required_nodes(required);
  spec.set_excluded_nodes(excluded);
  spec.set_min_nodes(minNodes);
  spec.set_max_nodes(maxNodes);
  return spec;
}

select::Request requestOf(const v1::JobSpec& spec) {
  select::Request request;
  request.minNodes = spec.min_nodes() > 0 ? spec.min_nodes() : 1;
  request.maxNodes = spec.max_nodes() > 0 ? spec.max_nodes() : spec.min_nodes();
  return request;
}

}  // namespace

TEST_CASE("-w/-x names become node indexes, one rule a row", "[core][nodelists]") {
  struct Case {
    const char* rule;
    v1::JobSpec spec;
    NodeListUse use;
    std::vector<int> required, candidates, excluded;
    int minNodes;
  };
  const std::vector<Case> cases = {
      {"required names become sorted indexes", specOf("rk3,rk1", ""), NodeListUse::Job, {10, 12}, {}, {}, 2},
      {"duplicates count once", specOf("rk2,rk2,rk[2-3]", ""), NodeListUse::Job, {11, 12}, {}, {}, 2},
      {"a list as long as -N is required", specOf("rk[1-2]", "", 2), NodeListUse::Job, {10, 11}, {}, {}, 2},
      {"a job's list longer than -N is a set to pick from", specOf("rk[1-4]", "", 2), NodeListUse::Job, {},
       {10, 11, 12, 13}, {}, 2},
      {"a step's list longer than its minimum is a set to pick from", specOf("rk[1-3]", "", 1, 3),
       NodeListUse::Step, {}, {10, 11, 12}, {}, 1},
      {"excluded names become indexes", specOf("", "rk6,rk4"), NodeListUse::Job, {}, {}, {13, 15}, 1},
      {"both lists at once", specOf("rk5", "rk1"), NodeListUse::Job, {14}, {}, {10}, 1},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      select::Request request = requestOf(c.spec);
      REQUIRE(applyRequestedNodes(c.spec, c.use, lookup, request).ok());
      CHECK(request.nodeLists.required == c.required);
      CHECK(request.nodeLists.candidates == c.candidates);
      CHECK(request.nodeLists.excluded == c.excluded);
      CHECK(request.minNodes == c.minNodes);
    }
  }
}

TEST_CASE("-w/-x refusals carry Slurm's words, one rule a row", "[core][nodelists]") {
  struct Case {
    const char* rule;
    v1::JobSpec spec;
    NodeListUse use;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a required name no node has", specOf("rk1,zz9", ""), NodeListUse::Job,
       "Invalid node name specified: --nodelist: no node is named 'zz9'"},
      {"an excluded name no node has", specOf("", "rk7"), NodeListUse::Job,
       "Invalid node name specified: --exclude: no node is named 'rk7'"},
      {"a malformed expression", specOf("rk[2-", ""), NodeListUse::Job, "Invalid node name specified: --nodelist: "},
      {"a node both required and excluded", specOf("rk[1-3]", "rk2"), NodeListUse::Job,
       "Invalid node name specified: node 'rk2' is both required (--nodelist) and excluded (--exclude)"},
      {"more required nodes than the maximum", specOf("rk[1-4]", "", 0, 3), NodeListUse::Job,
       "Node count specification invalid: --nodelist names 4 nodes, more than the maximum of 3"},
      {"a step's list longer than its maximum", specOf("rk[1-3]", "", 2), NodeListUse::Step,
       "Requested node configuration is not available: --nodelist names 3 nodes, the step may have at most 2"},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      select::Request request = requestOf(c.spec);
      select::Request before = request;
      auto status = applyRequestedNodes(c.spec, c.use, lookup, request);
      REQUIRE_FALSE(status.ok());
      CHECK(status.error().rfind(c.message, 0) == 0);
      CHECK(request.nodeLists.empty());  // nothing changed
      CHECK(request.minNodes == before.minNodes);
    }
  }
}
