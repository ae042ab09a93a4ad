#include <catch2/catch.hpp>

#include "cli/format_squeue.h"
#include "cli_fixtures.h"

using namespace gantry::cli;
using namespace cli_fixtures;

namespace {

std::string render(const std::string& format, bool header = false) {
  auto parsed = parseSqueueFormat(format);
  REQUIRE(parsed.ok());
  return renderSqueue(*parsed, {runningGpuJob(), pendingJob()},
                      SqueueRenderOptions{.header = header, .now = kNow});
}

}  // namespace

TEST_CASE("squeue default columns", "[cli][squeue]") {
  std::string out = renderSqueue(defaultSqueueFormat(), {runningGpuJob(), pendingJob()},
                                 SqueueRenderOptions{.header = true, .now = kNow});
  CHECK(out == golden("squeue_default.txt", out));
  CHECK_THAT(out, Catch::StartsWith("             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"));
}

TEST_CASE("each squeue format code", "[cli][squeue]") {
  CHECK(render("%i") == "12\n13\n");
  CHECK(render("%j") == "train\na-very-long-job-name\n");
  CHECK(render("%u") == "alice\nbob\n");
  CHECK(render("%T") == "RUNNING\nPENDING\n");
  CHECK(render("%t") == "R\nPD\n");
  CHECK(render("%M") == "2:05\n0:00\n");
  CHECK(render("%D") == "2\n1\n");
  CHECK(render("%N") == "gpu[1-2]\n\n");
  CHECK(render("%P") == "gpu\ncpu\n");
  CHECK(render("%R") == "gpu[1-2]\n(Resources)\n");
  CHECK(render("%l") == "1:30:00\nUNLIMITED\n");
  CHECK(render("%C") == "8\n16\n");
  CHECK(render("%b") == "gres/gpu:a100:2\ngres/gpu:1\n");
  CHECK(render("%r") == "None\nResources\n");
  CHECK(render("%E") == "(null)\n(null)\n");
}

TEST_CASE("squeue widths, justification and literal text", "[cli][squeue]") {
  CHECK(render("%.6i|%-8j|%5u") == "    12|train   |alice\n    13|a-very-l|bob  \n");
  CHECK(render("[%i]") == "[12]\n[13]\n");
  CHECK(render("%i %j", true) == "JOBID NAME\n12 train\n13 a-very-long-job-name\n");
}

TEST_CASE("squeue -O field names", "[cli][squeue]") {
  auto parsed = parseSqueueFieldList("JobID:6,Name:.8,UserName:6,StateCompact:3,tres-per-node:0");
  REQUIRE(parsed.ok());
  std::string out = renderSqueue(*parsed, {runningGpuJob()}, SqueueRenderOptions{.now = kNow});
  CHECK(out == "JOBID     NAMEUSER  ST TRES_PER_NODE\n12       trainalice R  gres/gpu:a100:2\n");
  auto more = parseSqueueFieldList("state,timeused,numnodes,nodelist,partition,reason,timelimit,"
                                   "numcpus,gres");
  REQUIRE(more.ok());
  CHECK(more->fields.size() == 9);
  CHECK(more->fields[0].width == 20);
}

TEST_CASE("squeue format errors name the option", "[cli][squeue]") {
  CHECK_THAT(parseSqueueFormat("%i %q").error(),
             Catch::Contains("-o/--format: unknown field code '%q'"));
  CHECK_THAT(parseSqueueFormat("%.18").error(), Catch::Contains("ends inside a field"));
  CHECK_THAT(parseSqueueFormat("plain").error(), Catch::Contains("has no fields"));
  CHECK_THAT(parseSqueueFieldList("JobID,Color").error(),
             Catch::Contains("-O/--Format: unknown field 'Color'"));
}

TEST_CASE("run time leaves out suspended time", "[cli][squeue]") {
  auto job = runningGpuJob();
  job.set_state(gantry::v1::SUSPENDED);
  job.set_pre_suspend_seconds(41);
  auto parsed = parseSqueueFormat("%t %M");
  REQUIRE(parsed.ok());
  CHECK(renderSqueue(*parsed, {job}, SqueueRenderOptions{.header = false, .now = kNow}) ==
        "S 0:41\n");
  job.set_state(gantry::v1::RUNNING);
  job.set_suspend_time(kNow - 9);  // resumed 9 seconds ago
  CHECK(renderSqueue(*parsed, {job}, SqueueRenderOptions{.header = false, .now = kNow}) ==
        "R 0:50\n");
}

TEST_CASE("squeue fields account, comment, priority, schednodes and tres-alloc", "[cli][squeue]") {
  gantry::v1::Job running = runningGpuJob();
  running.mutable_spec()->set_account("physics");
  running.mutable_spec()->set_priority(2147483647);
  running.set_req_tres("cpu=8,node=2,billing=8,gres/gpu=4");
  running.set_alloc_tres("cpu=16,node=2,billing=16,gres/gpu=4");
  gantry::v1::Job pending = pendingJob();
  pending.set_req_tres("cpu=16,node=1,billing=16");
  gantry::v1::Job bare = pendingJob();
  auto fields = parseSqueueFieldList("jobarrayid:4,account:8,priority:18,prioritylong:12,schednodes:8,tres-alloc:0");
  REQUIRE(fields.ok());
  std::string out = renderSqueue(*fields, {running, pending, bare}, SqueueRenderOptions{.header = false, .now = kNow});
  CHECK(out ==
        "12  physics 0.49999999988358  2147483647  (null)  cpu=16,node=2,billing=16,gres/gpu=4\n"
        "13  (null)  0.00000000000000  0           (null)  cpu=16,node=1,billing=16\n"
        "13  (null)  0.00000000000000  0           (null)  N/A\n");
  auto codes = parseSqueueFormat("%a|%k|%Q|%Y");
  REQUIRE(codes.ok());
  CHECK(renderSqueue(*codes, {running}, SqueueRenderOptions{.header = true, .now = kNow}) ==
        "ACCOUNT|COMMENT|PRIORITY|SCHEDNODES\nphysics|(null)|2147483647|(null)\n");
}
