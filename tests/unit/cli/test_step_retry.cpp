// srun asks again for a step on the Error's kind, whatever its text says.
#include <catch2/catch.hpp>

#include "cli/step_retry.h"

using namespace gantry;
using namespace gantry::cli;

TEST_CASE("srun retries step creation on NotNow only", "[cli][srun][errors]") {
  struct Case {
    const char* name;
    Error refusal;
    bool retried;
  };
  const Case cases[] = {
      {"suspended job", Error{ErrorCode::NotNow, "Job step creation temporarily disabled, retrying"}, true},
      {"busy nodes", Error{ErrorCode::NotNow, "Requested nodes are busy"}, true},
      {"pending job", Error{ErrorCode::NotNow, "Job 7 is pending execution"}, true},
      {"not now, whatever the text", Error{ErrorCode::NotNow, "something unrelated"}, true},
      {"invalid that reads like a retry", Error{"Job step creation temporarily disabled, retrying"}, false},
      {"invalid saying busy", Error{ErrorCode::Invalid, "Requested nodes are busy"}, false},
      {"unknown job", Error{ErrorCode::NotFound, "Invalid job id specified: 7"}, false},
      {"permission", Error{ErrorCode::Denied, "Access/permission denied"}, false},
      {"never", Error{ErrorCode::Never, "Requested node configuration is not available"}, false},
      {"controller unreachable", Error{ErrorCode::Unavailable, "cannot reach controller at ctl:6817"}, false},
      {"internal", Error{ErrorCode::Internal, "sqlite: disk I/O error"}, false},
  };
  for (const Case& c : cases) {
    SECTION(c.name) { CHECK(retryStepCreation(c.refusal) == c.retried); }
  }
}

TEST_CASE("what srun prints while it retries", "[cli][srun]") {
  Error suspended{ErrorCode::NotNow, "Job step creation temporarily disabled, retrying"};
  CHECK(stepRetryNotice(suspended, 0) == "Job step creation temporarily disabled, retrying");
  CHECK(stepRetryNotice(suspended, 1) == "Job step creation still disabled, retrying");
  Error busy{ErrorCode::NotNow, "Requested nodes are busy"};
  CHECK(stepRetryNotice(busy, 0) == "Job step creation temporarily disabled, retrying (Requested nodes are busy)");
  CHECK(stepRetryNotice(busy, 3) == "Job step creation still disabled, retrying");
}
