#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
#include <map>

#include "cli/job_options.h"

using namespace gantry::cli;

namespace {

SubmitContext testContext() {
  return SubmitContext{.environment = {{"PATH", "/usr/bin"}, {"HOME", "/home/alice"}},
                       .workDir = "/home/alice/work",
                       .submitHost = "login1"};
}

// Submits with scripts held in memory.
gantry::Result<Submission> submit(const std::vector<std::string>& args,
                                  const std::map<std::string, std::string>& scripts = {}) {
  return prepareSubmission(args, testContext(), [&scripts](const std::string& path)
                                                    -> gantry::Result<std::string> {
    auto found = scripts.find(path);
    if (found == scripts.end()) return gantry::Error{"cannot read batch script '" + path + "'"};
    return found->second;
  });
}

std::string errorOf(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& scripts = {}) {
  auto result = submit(args, scripts);
  REQUIRE_FALSE(result.ok());
  return result.error();
}

}  // namespace

TEST_CASE("--wrap submits a shell script named wrap", "[cli][sbatch]") {
  auto result = submit({"--wrap", "hostname"});
  REQUIRE(result.ok());
  const auto& spec = result->spec;
  CHECK(spec.script() == "#!/bin/sh\nhostname\n");
  CHECK(spec.name() == "wrap");
  CHECK(spec.work_dir() == "/home/alice/work");
  CHECK(spec.submit_host() == "login1");
  CHECK(spec.environment().at("HOME") == "/home/alice");
  CHECK_FALSE(result->parsable);
}

TEST_CASE("every value option lands in the JobSpec", "[cli][sbatch]") {
  auto result = submit({"-N", "2-4", "-n", "8", "-c", "2", "--ntasks-per-node=4", "--ntasks-per-socket=2", "--mem=4G",
                        "-p", "gpu", "-J", "train", "-o", "out-%j.txt", "-e", "err.txt", "-i",
                        "in.txt", "-t", "1-00:00", "--hold", "--parsable", "-D", "sub",
                        "--exclusive", "--gres=gpu:a100:2,mps:100", "--gpus=a100:8",
                        "--gpus-per-node=2", "--gpus-per-socket=1", "--gpus-per-task=1",
                        "--cpus-per-gpu=4", "--gres-flags=enforce-binding,enforce-links",
                        "--core-spec=0", "--requeue", "--wrap", "true"});
  REQUIRE(result.ok());
  const auto& spec = result->spec;
  CHECK(spec.min_nodes() == 2);
  CHECK(spec.max_nodes() == 4);
  CHECK(spec.ntasks() == 8);
  CHECK(spec.cpus_per_task() == 2);
  CHECK(spec.ntasks_per_node() == 4);
  CHECK(spec.ntasks_per_socket() == 2);
  CHECK(spec.mem_per_node_mb() == 4096);
  CHECK(spec.partition() == "gpu");
  CHECK(spec.name() == "train");
  CHECK(spec.stdout_pattern() == "out-%j.txt");
  CHECK(spec.stderr_pattern() == "err.txt");
  CHECK(spec.stdin_path() == "in.txt");
  CHECK(spec.time_limit_minutes() == 1440);
  CHECK(spec.hold());
  CHECK(result->parsable);
  CHECK(spec.work_dir() == "/home/alice/work/sub");
  CHECK(spec.exclusive());
  REQUIRE(spec.gres_size() == 2);
  CHECK(spec.gres(0).name() == "gpu");
  CHECK(spec.gres(0).type() == "a100");
  CHECK(spec.gres(0).count() == 2);
  CHECK(spec.gres(1).name() == "mps");
  CHECK(spec.gres(1).count() == 100);
  CHECK(spec.gpus() == 8);
  CHECK(spec.gpu_type() == "a100");
  CHECK(spec.gpus_per_node() == 2);
  CHECK(spec.gpus_per_socket() == 1);
  CHECK(spec.gpus_per_task() == 1);
  CHECK(spec.cpus_per_gpu() == 4);
  REQUIRE(spec.gres_flags_size() == 2);
  CHECK(spec.gres_flags(1) == "enforce-links");
  CHECK(spec.core_spec() == 0);
  CHECK(spec.requeue());
  CHECK_FALSE(spec.no_requeue());
}

TEST_CASE("memory per cpu and per gpu", "[cli][sbatch]") {
  auto perCpu = submit({"--mem-per-cpu=512", "--wrap", "x"});
  REQUIRE(perCpu.ok());
  CHECK(perCpu->spec.mem_per_cpu_mb() == 512);
  auto perGpu = submit({"--mem-per-gpu=2G", "--wrap", "x"});
  REQUIRE(perGpu.ok());
  CHECK(perGpu->spec.mem_per_gpu_mb() == 2048);
}

TEST_CASE("--no-requeue, --test-only and -D absolute", "[cli][sbatch]") {
  auto result = submit({"--no-requeue", "--test-only", "-D", "/scratch", "--wrap", "x"});
  REQUIRE(result.ok());
  CHECK(result->spec.no_requeue());
  CHECK_FALSE(result->spec.requeue());
  CHECK(result->testOnly);
  CHECK(result->spec.work_dir() == "/scratch");
}

TEST_CASE("--tres-per-task forms", "[cli][sbatch]") {
  for (const char* form : {"gres/gpu=2", "gres/gpu:2"}) {
    auto result = submit({std::string("--tres-per-task=") + form, "--wrap", "x"});
    REQUIRE(result.ok());
    CHECK(result->spec.gpus_per_task() == 2);
  }
  auto typed = submit({"--tres-per-task=gres/gpu:a100=1,cpu=3", "--wrap", "x"});
  REQUIRE(typed.ok());
  CHECK(typed->spec.gpus_per_task() == 1);
  CHECK(typed->spec.gpu_type() == "a100");
  CHECK(typed->spec.cpus_per_task() == 3);
}

TEST_CASE("--export chooses the environment", "[cli][sbatch]") {
  auto none = submit({"--export=NONE", "--wrap", "x"});
  REQUIRE(none.ok());
  CHECK(none->spec.environment().empty());
  auto some = submit({"--export=HOME,EXTRA=1", "--wrap", "x"});
  REQUIRE(some.ok());
  CHECK(some->spec.environment().size() == 2);
  CHECK(some->spec.environment().at("EXTRA") == "1");
  auto all = submit({"--export=ALL,EXTRA=1", "--wrap", "x"});
  REQUIRE(all.ok());
  CHECK(all->spec.environment().size() == 3);
}

TEST_CASE("#SBATCH directives apply and the command line overrides them", "[cli][sbatch]") {
  std::map<std::string, std::string> scripts = {
      {"jobs/train.sh",
       "#!/bin/bash\n#SBATCH -N 3\n#SBATCH --time=10 --partition=debug\n#SBATCH -J fromscript\n"
       "srun hostname\n#SBATCH -N 9\n"}};
  auto result = submit({"-p", "gpu", "jobs/train.sh"}, scripts);
  REQUIRE(result.ok());
  const auto& spec = result->spec;
  CHECK(spec.min_nodes() == 3);  // the later #SBATCH after the command is ignored
  CHECK(spec.time_limit_minutes() == 10);
  CHECK(spec.partition() == "gpu");
  CHECK(spec.name() == "fromscript");
  CHECK(spec.script() == scripts["jobs/train.sh"]);
}

TEST_CASE("the job name defaults to the script's file name", "[cli][sbatch]") {
  auto result = submit({"jobs/train.sh"}, {{"jobs/train.sh", "#!/bin/sh\ntrue\n"}});
  REQUIRE(result.ok());
  CHECK(result->spec.name() == "train.sh");
}

TEST_CASE("without a script file the script comes from standard input", "[cli][sbatch]") {
  auto result = submit({"-N", "1"}, {{"-", "#!/bin/sh\n#SBATCH -t 5\ntrue\n"}});
  REQUIRE(result.ok());
  CHECK(result->spec.name() == "sbatch");
  CHECK(result->spec.time_limit_minutes() == 5);
}

TEST_CASE("--help returns the help text", "[cli][sbatch]") {
  auto result = submit({"--help"});
  REQUIRE(result.ok());
  CHECK_THAT(result->helpText, Catch::Contains("--gres-flags"));
}

TEST_CASE("every sbatch error names the option and the rule", "[cli][sbatch]") {
  struct Case {
    std::vector<std::string> args;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {{"--wrap", "x", "-N", "0"}, "command line: --nodes: invalid node count '0'"},
      {{"--wrap", "x", "-N", "5-2"}, "--nodes: invalid node count '5-2': maximum is below minimum"},
      {{"--wrap", "x", "-n", "many"}, "--ntasks: invalid count 'many'"},
      {{"--wrap", "x", "-c", "0"}, "--cpus-per-task: invalid count '0': must be at least 1"},
      {{"--wrap", "x", "--ntasks-per-node=x"}, "--ntasks-per-node: invalid count"},
      {{"--wrap", "x", "--ntasks-per-socket=two"}, "--ntasks-per-socket: invalid count"},
      {{"--wrap", "x", "--cpus-per-gpu=-1"}, "--cpus-per-gpu: invalid count"},
      {{"--wrap", "x", "--core-spec=z"}, "--core-spec: invalid count"},
      {{"--wrap", "x", "--mem=4Q"}, "--mem: invalid size '4Q': unit must be K, M, G or T"},
      {{"--wrap", "x", "--mem-per-cpu=lots"}, "--mem-per-cpu: invalid size"},
      {{"--wrap", "x", "--mem-per-gpu=1x"}, "--mem-per-gpu: invalid size"},
      {{"--wrap", "x", "--mem=1G", "--mem-per-cpu=1G"}, "mutually exclusive"},
      {{"--wrap", "x", "-t", "soon"}, "--time: invalid time limit 'soon'"},
      {{"--wrap", "x", "--gres=gpu:a100:x"}, "--gres: Invalid generic resource (gres) specification"},
      {{"--wrap", "x", "--gpus=-2"}, "--gpus: invalid GPU count '-2'"},
      {{"--wrap", "x", "--gpus-per-node=a:"}, "--gpus-per-node: invalid GPU count"},
      {{"--wrap", "x", "--gpus-per-socket=x"}, "--gpus-per-socket: invalid GPU count"},
      {{"--wrap", "x", "--gpus-per-task=:1"}, "--gpus-per-task: invalid GPU count"},
      {{"--wrap", "x", "--gpus=a100:2", "--gpus-per-node=v100:1"},
       "--gpus-per-node: GPU type 'v100' conflicts with type 'a100' from --gpus"},
      {{"--wrap", "x", "--gres-flags=enforce-links,ignore-links"},
       "--gres-flags: enforce-links and ignore-links are mutually exclusive"},
      {{"--wrap", "x", "--gres-flags=sometimes"}, "--gres-flags: unknown flag 'sometimes'"},
      {{"--wrap", "x", "--tres-per-task=gres/gpu"}, "--tres-per-task: 'gres/gpu'"},
      {{"--wrap", "x", "--exclusive", "-s"}, "--exclusive and --oversubscribe are mutually exclusive"},
      {{"--wrap", "x", "--tres-per-task=license/x=1"}, "unsupported TRES"},
      {{"--wrap", "x", "--gpus-per-task=1", "--tres-per-task=gres/gpu=1"},
       "gres/gpu conflicts with --gpus-per-task"},
      {{"--wrap", "x", "-c", "2", "--tres-per-task=cpu=1"}, "cpu= conflicts with --cpus-per-task"},
      {{"--wrap", "x", "--export=,"}, "--export:"},
      {{"--wrap", "x", "--export==1"}, "--export: '=1': variable name is empty"},
      {{"--wrap", "x", "script.sh"}, "--wrap: cannot be combined with a script file"},
      {{}, "cannot read batch script '-'"},
      {{"missing.sh"}, "cannot read batch script 'missing.sh'"},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    INFO(joined);
    CHECK_THAT(errorOf(c.args, {{"job.sh", "#!/bin/sh\ntrue\n"}}), Catch::Contains(c.expected));
  }
  // An unknown option is getopt's complaint, printed by sbatch in Slurm's words.
  auto unknown = submit({"--bogus=3", "job.sh"}, {{"job.sh", "#!/bin/sh\ntrue\n"}});
  REQUIRE(unknown.ok());
  CHECK(unknown->usageError == "unrecognized option '--bogus=3'");
}

TEST_CASE("errors in #SBATCH lines name the script and line", "[cli][sbatch]") {
  std::map<std::string, std::string> scripts = {
      {"bad_option.sh", "#!/bin/sh\n#SBATCH -N 1\n#SBATCH --frobnicate\ntrue\n"},
      {"bad_value.sh", "#!/bin/sh\n\n#SBATCH --time=later\ntrue\n"},
      {"bad_quote.sh", "#!/bin/sh\n#SBATCH -J \"open\ntrue\n"},
      {"stray_word.sh", "#!/bin/sh\n#SBATCH -N 1 extra\ntrue\n"}};
  CHECK_THAT(errorOf({"bad_option.sh"}, scripts),
             Catch::StartsWith("bad_option.sh:3: #SBATCH:") && Catch::Contains("--frobnicate"));
  CHECK_THAT(errorOf({"bad_value.sh"}, scripts),
             Catch::StartsWith("bad_value.sh:3: --time: invalid time limit 'later'"));
  CHECK_THAT(errorOf({"bad_quote.sh"}, scripts),
             Catch::Contains("bad_quote.sh: line 2") && Catch::Contains("unterminated"));
  CHECK_THAT(errorOf({"stray_word.sh"}, scripts),
             Catch::StartsWith("stray_word.sh:2: #SBATCH:") && Catch::Contains("extra"));
}

TEST_CASE("a value fixed on the command line hides a bad directive", "[cli][sbatch]") {
  auto result =
      submit({"-t", "5", "job.sh"}, {{"job.sh", "#!/bin/sh\n#SBATCH --time=later\ntrue\n"}});
  REQUIRE(result.ok());
  CHECK(result->spec.time_limit_minutes() == 5);
}

TEST_CASE("--exclusive takes an optional user, mcs or topo", "[cli][sbatch][exclusive]") {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    bool wholeNode;
    const char* mode;
  };
  const std::vector<Case> cases = {
      {"not given", {"--wrap", "x"}, false, ""},
      {"bare --exclusive takes whole nodes", {"--exclusive", "--wrap", "x"}, true, ""},
      {"=user shares nodes with the same user", {"--exclusive=user", "--wrap", "x"}, false, "user"},
      {"=mcs shares nodes with the same MCS label", {"--exclusive=mcs", "--wrap", "x"}, false, "mcs"},
      {"=topo takes whole nodes", {"--exclusive=topo", "--wrap", "x"}, true, "topo"},
      {"=allocation takes whole nodes for the job", {"--exclusive=allocation", "--wrap", "x"}, true, ""},
      {"the value is read in any case", {"--exclusive=USER", "--wrap", "x"}, false, "user"},
      {"the last one given wins", {"--exclusive=mcs", "--exclusive", "--wrap", "x"}, true, ""},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      auto result = submit(c.args);
      REQUIRE(result.ok());
      CHECK(result->spec.exclusive() == c.wholeNode);
      CHECK(result->spec.exclusive_mode() == c.mode);
    }
  }
}

TEST_CASE("-s and --oversubscribe let the job share CPUs; #SBATCH too", "[cli][sbatch][oversubscribe]") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"-s", "--wrap", "x"}, {"--oversubscribe", "--wrap", "x"}}) {
    auto result = submit(args);
    REQUIRE(result.ok());
    CHECK(result->spec.oversubscribe());
  }
  auto plain = submit({"--wrap", "x"});
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->spec.oversubscribe());
  auto scripted = submit({"job.sh"}, {{"job.sh", "#!/bin/sh\n#SBATCH --oversubscribe\ntrue\n"}});
  REQUIRE(scripted.ok());
  CHECK(scripted->spec.oversubscribe());
}

TEST_CASE("--network is kept as given", "[cli][sbatch][network]") {
  auto result = submit({"--network=sn_all,devtype=iba", "--wrap", "x"});
  REQUIRE(result.ok());
  CHECK(result->spec.network() == "sn_all,devtype=iba");
}

TEST_CASE("--exclusive never takes the next word as its value", "[cli][sbatch][exclusive]") {
  auto result = submit({"--exclusive", "job.sh"}, {{"job.sh", "#!/bin/sh\ntrue\n"}});
  REQUIRE(result.ok());
  CHECK(result->spec.exclusive());
  CHECK(result->spec.exclusive_mode().empty());
  CHECK(result->spec.name() == "job.sh");
}

TEST_CASE("#SBATCH --exclusive=user applies like the command line", "[cli][sbatch][exclusive]") {
  auto result = submit({"job.sh"}, {{"job.sh", "#!/bin/sh\n#SBATCH --exclusive=user\ntrue\n"}});
  REQUIRE(result.ok());
  CHECK_FALSE(result->spec.exclusive());
  CHECK(result->spec.exclusive_mode() == "user");
}

TEST_CASE("an unknown --exclusive value is refused where it was given", "[cli][sbatch][exclusive]") {
  CHECK_THAT(errorOf({"--exclusive=nodes", "--wrap", "x"}),
             Catch::Matches("command line: --exclusive: invalid value 'nodes'.*user.*mcs.*topo.*"));
  CHECK_THAT(errorOf({"job.sh"}, {{"job.sh", "#!/bin/sh\n#SBATCH --exclusive=group\ntrue\n"}}),
             Catch::StartsWith("job.sh:2: --exclusive: invalid value 'group'"));
}

TEST_CASE("sbatch takes --gpu-bind from the command line or a directive and checks it", "[cli][sbatch]") {
  auto given = submit({"--gpu-bind=closest", "--wrap", "true"});
  REQUIRE(given.ok());
  CHECK(given->spec.gpu_bind() == "closest");
  auto directive = submit({"job.sh"}, {{"job.sh", "#!/bin/sh\n#SBATCH --gpu-bind=per_task:3\ntrue\n"}});
  REQUIRE(directive.ok());
  CHECK(directive->spec.gpu_bind() == "per_task:3");
  CHECK_THAT(errorOf({"job.sh"}, {{"job.sh", "#!/bin/sh\n#SBATCH --gpu-bind=nearest\ntrue\n"}}),
             Catch::StartsWith("job.sh:2: --gpu-bind: 'nearest' is not a GPU binding"));
}

TEST_CASE("-d/--dependency is passed on as typed and -b/--begin is read ahead", "[cli][sbatch][dependency]") {
  auto result = submit({"-d", "afterok:5?afternotok:6", "--begin", "now+1hour", "--wrap", "true"});
  REQUIRE(result.ok());
  CHECK(result->spec.dependency() == "afterok:5?afternotok:6");
  int64_t inAnHour = static_cast<int64_t>(std::time(nullptr)) + 3600;
  CHECK(result->spec.begin_time() >= inAnHour - 60);
  CHECK(result->spec.begin_time() <= inAnHour + 60);

  auto directives = submit({"job.sh"}, {{"job.sh", "#!/bin/sh\n#SBATCH --dependency=singleton\n#SBATCH -b now\ntrue\n"}});
  REQUIRE(directives.ok());
  CHECK(directives->spec.dependency() == "singleton");
  CHECK(directives->spec.begin_time() > 0);

  auto none = submit({"--wrap", "true"});
  REQUIRE(none.ok());
  CHECK(none->spec.dependency().empty());
  CHECK(none->spec.begin_time() == 0);
}

TEST_CASE("a --begin that is not a time is refused by name", "[cli][sbatch][dependency]") {
  std::string error = errorOf({"--begin", "someday", "--wrap", "true"});
  CHECK_THAT(error, Catch::Contains("begin"));
  CHECK_THAT(error, Catch::Contains("'someday'"));
}

TEST_CASE("sbatch -v lists the options set by #SBATCH lines and the command line, as Slurm's 'defined options'",
          "[cli][sbatch]") {
  const std::map<std::string, std::string> scripts = {
      {"job.sh", "#!/bin/sh\n#SBATCH -N 2\n#SBATCH --job-name=from-script\n#SBATCH -t 30\nhostname\n"}};
  auto quiet = submit({"job.sh"}, scripts);
  REQUIRE(quiet.ok());
  CHECK(quiet->definedOptions.empty());
  auto verbose = submit({"-v", "-J", "from-line", "--gres=gpu:1", "job.sh"}, scripts);
  REQUIRE(verbose.ok());
  const std::vector<std::string> expected = {
      "defined options",
      "-------------------- --------------------",
      "job-name            : from-line",  // the command line wins over the script
      "nodes               : 2",
      "time                : 30",
      "verbose             : 1",
      "gres                : gpu:1",
      "-------------------- --------------------",
      "end of defined options",
  };
  std::vector<std::string> sorted = verbose->definedOptions;
  CHECK(sorted.size() == expected.size());
  CHECK(sorted.front() == expected.front());
  CHECK(sorted.back() == expected.back());
  for (const auto& line : expected) {
    INFO(line);
    CHECK(std::find(sorted.begin(), sorted.end(), line) != sorted.end());
  }
}
