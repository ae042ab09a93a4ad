// sbatch, srun and salloc read their command lines as Slurm's do: unknown
// options refused before anything happens, the first operand ending the
// options, -v/-Q/--exact, the accepted-and-ignored options, and --help /
// --usage drawn from the option tables.
#include <catch2/catch.hpp>


#include "cli/allocation_lines.h"
#include "cli/job_options.h"
#include "cli/srun_options.h"
#include "cli/usage_text.h"

using gantry::cli::prepareInteractive;
using gantry::cli::prepareSubmission;
using gantry::cli::SubmitContext;

namespace {

SubmitContext context() {
  return SubmitContext{.environment = {{"HOME", "/home/bea"}}, .workDir = "/home/bea", .submitHost = "front2"};
}

gantry::cli::ScriptReader scriptOf(const std::string& text) {
  return [text](const std::string&) -> gantry::Result<std::string> { return text; };
}

}  // namespace

TEST_CASE("srun and salloc refuse an unknown option instead of running it", "[cli][launcher]") {
  for (const char* program : {"srun", "salloc"}) {
    auto run = prepareInteractive(program, {"-N3", "--no-such-thing", "hostname"}, context());
    REQUIRE(run.ok());
    CHECK(run->usageError == "unrecognized option '--no-such-thing'");
    CHECK(run->command.empty());
    auto letter = prepareInteractive(program, {"-Y", "hostname"}, context());
    REQUIRE(letter.ok());
    CHECK(letter->usageError == "invalid option -- 'Y'");
  }
}

TEST_CASE("sbatch refuses an unknown option before reading any script", "[cli][launcher]") {
  bool read = false;
  auto reader = [&read](const std::string&) -> gantry::Result<std::string> {
    read = true;
    return std::string("#!/bin/sh\n");
  };
  auto submission = prepareSubmission({"--nodes=2", "--frobnicate", "job.sh"}, context(), reader);
  REQUIRE(submission.ok());
  CHECK(submission->usageError == "unrecognized option '--frobnicate'");
  CHECK_FALSE(read);
  auto missing = prepareSubmission({"-p"}, context(), reader);
  REQUIRE(missing.ok());
  CHECK(missing->usageError == "option requires an argument -- 'p'");
}

TEST_CASE("options after the program belong to the program", "[cli][launcher]") {
  auto run = prepareInteractive("srun", {"-v", "-N2", "ls", "-v", "--bogus", "-N1"}, context());
  REQUIRE(run.ok());
  CHECK(run->usageError.empty());
  CHECK(run->verbosity.verbose == 1);
  CHECK(run->spec.min_nodes() == 2);
  CHECK(run->command == std::vector<std::string>{"ls", "-v", "--bogus", "-N1"});
  auto dashed = prepareInteractive("srun", {"-n1", "--", "-odd-name", "-x"}, context());
  REQUIRE(dashed.ok());
  CHECK(dashed->command == std::vector<std::string>{"-odd-name", "-x"});
}

TEST_CASE("-v counts each time it is given; -Q quiets; salloc may have no command", "[cli][launcher]") {
  auto loud = prepareInteractive("srun", {"-vv", "--verbose", "-n1", "true"}, context());
  REQUIRE(loud.ok());
  CHECK(loud->verbosity.verbose == 3);
  CHECK(loud->verbosity.informs());
  auto salloc = prepareInteractive("salloc", {"--verbose", "-N1"}, context());
  REQUIRE(salloc.ok());
  CHECK(salloc->usageError.empty());
  CHECK(salloc->verbosity.verbose == 1);
  CHECK(salloc->command.empty());
  auto quiet = prepareInteractive("salloc", {"-Q", "-n1", "true"}, context());
  REQUIRE(quiet.ok());
  CHECK_FALSE(quiet->verbosity.informs());
  auto sbatch = prepareSubmission({"--quiet", "-v", "--wrap", "true"}, context(), scriptOf(""));
  REQUIRE(sbatch.ok());
  CHECK_FALSE(sbatch->verbosity.informs());
  CHECK(sbatch->verbosity.verbose == 1);
}

TEST_CASE("srun takes --exact; salloc, like Slurm's, does not", "[cli][launcher]") {
  auto run = prepareInteractive("srun", {"--exact", "-n2", "true"}, context());
  REQUIRE(run.ok());
  CHECK(run->usageError.empty());
  CHECK(run->exact);
  auto salloc = prepareInteractive("salloc", {"--exact", "true"}, context());
  REQUIRE(salloc.ok());
  CHECK(salloc->usageError == "unrecognized option '--exact'");
}

TEST_CASE("a long option may be shortened while it stays unique", "[cli][launcher]") {
  // "--nod" no longer is: --nodes and --nodelist share it, as in Slurm.
  auto run = prepareInteractive("srun", {"--ntasks-per-n=3", "--cpus-per-t", "2", "true"}, context());
  REQUIRE(run.ok());
  CHECK(run->usageError.empty());
  CHECK(run->spec.cpus_per_task() == 2);
  auto shared = prepareInteractive("srun", {"--nod", "2", "true"}, context());
  REQUIRE(shared.ok());
  CHECK_THAT(shared->usageError, Catch::StartsWith("option '--nod' is ambiguous; possibilities:"));
  auto ambiguous = prepareInteractive("srun", {"--mem-per", "10", "true"}, context());
  REQUIRE(ambiguous.ok());
  CHECK_THAT(ambiguous->usageError, Catch::StartsWith("option '--mem-per' is ambiguous; possibilities:"));
}

TEST_CASE("accepted-and-ignored options warn; --begin and --dependency are the job's", "[cli][launcher]") {
  auto run = prepareInteractive("srun", {"-q", "gold", "--mincpus=6", "--begin=now", "true"}, context());
  REQUIRE(run.ok());
  REQUIRE(run->warnings.size() == 2);
  CHECK_THAT(run->warnings[0], Catch::StartsWith("--mincpus is accepted and ignored"));
  CHECK_THAT(run->warnings[1], Catch::StartsWith("--qos is accepted and ignored"));
  auto later = prepareInteractive("salloc", {"-b", "18:30", "-d", "afterany:9"}, context());
  REQUIRE(later.ok());
  CHECK(later->spec.begin_time() > 0);
  CHECK(later->spec.dependency() == "afterany:9");
  auto unreadable = prepareInteractive("salloc", {"-b", "half past"}, context());
  REQUIRE_FALSE(unreadable.ok());
  CHECK_THAT(unreadable.error(), Catch::Contains("begin") && Catch::Contains("'half past'"));
  auto directive = prepareSubmission({"job.sh"}, context(), scriptOf("#!/bin/sh\n#SBATCH --qos=low\n"));
  REQUIRE(directive.ok());
  REQUIRE(directive->warnings.size() == 1);
}

TEST_CASE("--help is Slurm's layout drawn from the option table", "[cli][launcher][help]") {
  auto run = prepareInteractive("srun", {"--nodes=2", "--help"}, context());
  REQUIRE(run.ok());
  const std::string& help = run->helpText;
  CHECK_THAT(help, Catch::StartsWith("Usage: srun [OPTIONS(0)...] [ : [OPTIONS(N)...]] executable(0) [args(0)...]\n\n"
                                     "Parallel run options:\n"));
  CHECK_THAT(help, Catch::Contains("\n  -N, --nodes=N               "));
  CHECK_THAT(help, Catch::Contains("\n      --gres=list             "));
  CHECK_THAT(help, Catch::Contains("\n  -l, --label "));
  CHECK_THAT(help, Catch::Contains("\n      --exact "));
  CHECK_THAT(help, Catch::Contains("\nGPU scheduling options:\n"));
  CHECK_THAT(help, Catch::Contains("\n  -G, --gpus=n "));
  // The help block comes last, as in Slurm.
  CHECK_THAT(help, Catch::EndsWith("\nHelp options:\n"
                                   "  -h, --help                  print this help and stop\n"
                                   "      --usage                 print a short list of the options and stop\n"));
  for (size_t at = 0, end; at < help.size(); at = end + 1) {
    end = help.find('\n', at);
    INFO(help.substr(at, end - at));
    CHECK(end - at <= 80);
  }
  auto sbatch = prepareSubmission({"-h"}, context(), scriptOf(""));
  REQUIRE(sbatch.ok());
  CHECK_THAT(sbatch->helpText, Catch::StartsWith("Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0)"));
  CHECK_THAT(sbatch->helpText, Catch::Contains("      --wrap=command "));
  CHECK_THAT(sbatch->helpText, !Catch::Contains("--pty"));
  auto salloc = prepareInteractive("salloc", {"--help"}, context());
  REQUIRE(salloc.ok());
  CHECK_THAT(salloc->helpText, Catch::StartsWith("Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)...]] [command(0)"));
  CHECK_THAT(salloc->helpText, !Catch::Contains("--exact"));
}

TEST_CASE("--usage lists every option briefly, wrapped, operands last", "[cli][launcher][help]") {
  auto salloc = prepareInteractive("salloc", {"--usage"}, context());
  REQUIRE(salloc.ok());
  const std::string& usage = salloc->helpText;
  CHECK_THAT(usage, Catch::StartsWith("Usage: salloc ["));
  CHECK_THAT(usage, Catch::EndsWith("[command [args...]]\n"));
  CHECK_THAT(usage, Catch::Contains("[-N N]"));
  CHECK_THAT(usage, Catch::Contains("[--exclusive[=user|mcs|topo]]"));
  CHECK_THAT(usage, !Catch::Contains("--help"));
  for (size_t at = 0, end; at < usage.size(); at = end + 1) {
    end = usage.find('\n', at);
    CHECK(end - at <= 80);
    if (at > 0) CHECK(usage.substr(at, 14) == std::string(14, ' '));
  }
  auto srun = prepareInteractive("srun", {"--usage"}, context());
  REQUIRE(srun.ok());
  CHECK_THAT(srun->helpText, Catch::EndsWith("executable [args...]\n"));
  auto sbatch = prepareSubmission({"--usage"}, context(), scriptOf(""));
  REQUIRE(sbatch.ok());
  CHECK_THAT(sbatch->helpText, Catch::EndsWith("script [args...]\n"));
}

TEST_CASE("srun -v names the job's nodes and CPU counts as Slurm does", "[cli][launcher]") {
  gantry::v1::Job job;
  job.set_job_id(4021);
  job.set_node_list("gpu[3-5]");
  for (int cpus : {6, 6, 3}) {
    auto* grant = job.add_allocation();
    for (int cpu = 0; cpu < cpus; ++cpu) grant->add_cpus(cpu);
  }
  CHECK(gantry::cli::jobNodesLine(job) == "jobid 4021: nodes(3):`gpu[3-5]', cpu counts: 6(x2),3(x1)");
  CHECK(gantry::cli::nodesReadyLine(job) == "Nodes gpu[3-5] are ready for job");
  CHECK(gantry::cli::stepLaunchLine(4021, "3", "gpu4", 1, 2) == "launching StepId=4021.3 on host gpu4, 2 tasks: 0-1");
  CHECK(gantry::cli::stepLaunchLine(9, "0", "gpu[3-5]", 3, 3) == "launching StepId=9.0 on hosts gpu[3-5], 3 tasks: 0-2");
}

TEST_CASE("salloc --no-shell runs nothing, even a command it is given", "[cli][launcher]") {
  auto bare = prepareInteractive("salloc", {"--no-shell", "-N2"}, context());
  REQUIRE(bare.ok());
  CHECK(bare->noShell);
  CHECK(bare->spec.name() == "no-shell");
  CHECK(bare->warnings.empty());
  auto named = prepareInteractive("salloc", {"--no-shell", "sleep", "5"}, context());
  REQUIRE(named.ok());
  CHECK(named->command.empty());
  REQUIRE(named->warnings.size() == 1);
  CHECK(named->warnings[0] == "--no-shell: the command 'sleep' is not run");
  auto srun = prepareInteractive("srun", {"--no-shell", "true"}, context());
  REQUIRE(srun.ok());
  CHECK(srun->usageError == "unrecognized option '--no-shell'");
}

TEST_CASE("srun --jobid names the allocation to run in", "[cli][launcher]") {
  auto run = prepareInteractive("srun", {"--jobid=8123", "-n1", "true"}, context());
  REQUIRE(run.ok());
  CHECK(run->jobId == 8123);
  for (const char* bad : {"--jobid=12x", "--jobid=-4", "--jobid=0"}) {
    auto refused = prepareInteractive("srun", {bad, "true"}, context());
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error(), Catch::Contains("--jobid") && Catch::Contains("invalid job id"));
  }
  auto salloc = prepareInteractive("salloc", {"--jobid=5"}, context());
  REQUIRE(salloc.ok());
  CHECK(salloc->usageError == "unrecognized option '--jobid=5'");
}
