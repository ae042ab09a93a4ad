// scontrol's job action ids: one rule a row.
#include <catch2/catch.hpp>

#include "cli/scontrol_job_ids.h"

using namespace gantry::cli;

namespace {

// The ids as "text=id" words, "text=?" for a piece that is not an id.
std::vector<std::string> described(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const JobIdItem& item : parseJobIdWords(words)) {
    out.push_back(item.text + "=" + (item.id ? std::to_string(*item.id) : "?"));
  }
  return out;
}

}  // namespace

TEST_CASE("job action ids", "[cli][scontrol][job_ids]") {
  struct Row {
    const char* rule;
    std::vector<std::string> words;
    std::vector<std::string> ids;
  };
  const std::vector<Row> rows = {
      {"one id", {"31"}, {"31=31"}},
      {"a comma list", {"31,32,40"}, {"31=31", "32=32", "40=40"}},
      {"separate words", {"31", "32"}, {"31=31", "32=32"}},
      {"lists and words together", {"31,32", "40"}, {"31=31", "32=32", "40=40"}},
      {"JobId= in any case", {"jobid=31,32"}, {"31=31", "32=32"}},
      {"Job=", {"Job=31"}, {"31=31"}},
      {"empty pieces are skipped", {"31,,32,"}, {"31=31", "32=32"}},
      {"a word that is no number is kept to be reported", {"31,abc"}, {"31=31", "abc=?"}},
      {"zero is no job id", {"0"}, {"0=?"}},
      {"a sign is no job id", {"-5"}, {"-5=?"}},
      {"too long for a job id", {"123456789012345678901"}, {"123456789012345678901=?"}},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(described(row.words) == row.ids);
  }
}

TEST_CASE("job action failures read as Slurm's", "[cli][scontrol][job_ids]") {
  struct Row {
    const char* rule;
    const char* why;
    const char* id;
    const char* line;
  };
  const std::vector<Row> rows = {
      {"the reason, then the job", "Job is pending execution", "31", "Job is pending execution for job 31"},
      {"an id the reason already names is said once", "Invalid job id specified: 31", "31",
       "Invalid job id specified for job 31"},
      {"another id at the end stays", "Invalid job id specified: 7", "31", "Invalid job id specified: 7 for job 31"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(jobActionFailure(row.why, row.id) == row.line);
  }
}
