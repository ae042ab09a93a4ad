// scontrol update JobId=: who may change what, and when; one row per rule.
#include <catch2/catch.hpp>

#include "controller/core/job_update_rules.h"

using namespace gantry::core;

namespace {

gantry::v1::UpdateJobRequest request(void (*fill)(gantry::v1::UpdateJobRequest&)) {
  gantry::v1::UpdateJobRequest out;
  out.set_job_id(77);
  fill(out);
  return out;
}

}  // namespace

TEST_CASE("job update rules", "[core][job_update]") {
  struct Case {
    const char* rule;
    gantry::v1::UpdateJobRequest request;
    JobUpdateFacts facts;
    const char* refusal;  // nullptr: allowed
  };
  // A pending job of the caller with a 90-minute limit.
  const JobUpdateFacts mine{.owner = true, .pending = true, .timeLimitSeconds = 90 * 60};
  const JobUpdateFacts running{.owner = true, .timeLimitSeconds = 90 * 60};
  const JobUpdateFacts admin{.admin = true, .timeLimitSeconds = 90 * 60};
  const Case cases[] = {
      {"the owner renames and comments", request([](auto& r) { r.set_name("x"); r.set_comment("c"); }), mine, nullptr},
      {"someone else's job is refused", request([](auto& r) { r.set_name("x"); }),
       JobUpdateFacts{.pending = true}, "Access/permission denied"},
      {"an ended job changes no more", request([](auto& r) { r.set_comment("late"); }),
       JobUpdateFacts{.owner = true, .ended = true}, "Job has already finished"},
      {"priority is for administrators", request([](auto& r) { r.set_priority(500); }), mine,
       "Access/permission denied"},
      {"an administrator sets priority", request([](auto& r) { r.set_priority(500); }), admin, nullptr},
      {"the owner shortens the limit", request([](auto& r) { r.set_time_limit_minutes(45); }), running, nullptr},
      {"the owner may not lengthen it", request([](auto& r) { r.set_time_limit_minutes(91); }), mine,
       "Access/permission denied"},
      {"nor make it unlimited", request([](auto& r) { r.set_time_limit_minutes(-1); }), mine,
       "Access/permission denied"},
      {"an administrator lengthens it", request([](auto& r) { r.set_time_limit_minutes(600); }), admin, nullptr},
      {"a limit below UNLIMITED is invalid", request([](auto& r) { r.set_time_limit_minutes(-7); }), admin,
       "Requested time limit is invalid (missing or exceeds some limit)"},
      {"partition only while pending", request([](auto& r) { r.set_partition("big"); }), running,
       "Job is no longer pending execution"},
      {"node count only while pending", request([](auto& r) { r.set_num_nodes(3); }), running,
       "Job is no longer pending execution"},
      {"a pending job moves partition and node count",
       request([](auto& r) { r.set_partition("big"); r.set_num_nodes(3); }), mine, nullptr},
      {"no fewer than one node", request([](auto& r) { r.set_num_nodes(0); }), mine,
       "Node count specification invalid"},
      {"per-node GRES only while pending",
       request([](auto& r) { r.mutable_gres_per_node()->add_items()->set_name("gpu"); }), running,
       "Job is no longer pending execution"},
      {"a pending job changes its per-node GRES",
       request([](auto& r) { r.mutable_gres_per_node()->add_items()->set_name("gpu"); }), mine, nullptr},
      {"clearing the per-node GRES is an update too", request([](auto& r) { r.mutable_gres_per_node(); }), running,
       "Job is no longer pending execution"},
      {"dependency only while pending", request([](auto& r) { r.set_dependency("afterok:3"); }), running,
       "Job is no longer pending execution"},
      {"a pending job changes its dependency", request([](auto& r) { r.set_dependency(""); }), mine, nullptr},
      {"start time only while pending", request([](auto& r) { r.set_begin_time(5); }), running,
       "Job is no longer pending execution"},
      {"a pending job moves its start time", request([](auto& r) { r.set_begin_time(5); }), mine, nullptr},
      {"someone else's dependency is refused", request([](auto& r) { r.set_dependency("afterok:3"); }),
       JobUpdateFacts{.pending = true}, "Access/permission denied"},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      gantry::Status verdict = checkJobUpdate(c.request, c.facts);
      if (c.refusal == nullptr) {
        CHECK(verdict.ok());
      } else {
        REQUIRE_FALSE(verdict.ok());
        CHECK(verdict.error() == c.refusal);
      }
    }
  }
}
