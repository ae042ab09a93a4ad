// The layout, binding, signal, environment and waiting options of sbatch,
// srun and salloc: one row per rule.
#include <catch2/catch.hpp>

#include <map>

#include "cli/distribution.h"
#include "cli/job_options.h"
#include "cli/job_wait.h"
#include "cli/signal_option.h"
#include "cli/srun_options.h"

using namespace gantry::cli;

namespace {

SubmitContext testContext() {
  return SubmitContext{.environment = {{"PATH", "/usr/bin"}, {"LANG", "C"}},
                       .workDir = "/scratch/bob",
                       .submitHost = "login7"};
}

gantry::Result<Submission> submit(const std::vector<std::string>& args) {
  std::map<std::string, std::string> scripts = {{"train.sh", "#!/bin/sh\necho \"$@\"\n"},
                                                {"directives.sh", "#!/bin/sh\n#SBATCH --signal=B:USR2@45\ntrue\n"}};
  return prepareSubmission(args, testContext(), [scripts](const std::string& path) -> gantry::Result<std::string> {
    auto found = scripts.find(path);
    if (found == scripts.end()) return gantry::Error{"cannot read batch script '" + path + "'"};
    return found->second;
  });
}

}  // namespace

TEST_CASE("words after the batch script become its arguments", "[cli][sbatch][script-args]") {
  auto result = submit({"-n", "3", "train.sh", "--epochs", "7", "-v"});
  REQUIRE(result.ok());
  CHECK(result->spec.name() == "train.sh");
  REQUIRE(result->spec.script_args_size() == 3);
  CHECK(result->spec.script_args(0) == "--epochs");
  CHECK(result->spec.script_args(1) == "7");
  CHECK(result->spec.script_args(2) == "-v");
  CHECK(result->spec.ntasks() == 3);  // options before the script only
  CHECK(result->verbosity.verbose == 0);
}

TEST_CASE("--tres-bind is kept as given; --gpu-bind is recorded as gres/gpu tres-bind", "[cli][tres-bind]") {
  struct Row {
    const char* rule;
    std::vector<std::string> args;
    const char* tresBind;
  };
  const Row rows[] = {
      {"--tres-bind as given (the controller judges it)", {"--tres-bind=gres/gpu:map:3*2", "--wrap", "true"},
       "gres/gpu:map:3*2"},
      {"--gpu-bind becomes gres/gpu:<value>", {"--gpu-bind=closest", "--wrap", "true"}, "gres/gpu:closest"},
      {"an explicit --tres-bind wins", {"--gpu-bind=closest", "--tres-bind=gres/nic:none", "--wrap", "true"},
       "gres/nic:none"},
      {"neither: none", {"--wrap", "true"}, ""},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto result = submit(row.args);
      REQUIRE(result.ok());
      CHECK(result->spec.tres_bind() == row.tresBind);
    }
  }
}

TEST_CASE("-m/--distribution forms are read in Slurm's spelling", "[cli][distribution]") {
  struct Row {
    const char* rule;
    const char* text;
    const char* name;
    int plane;
  };
  const Row rows[] = {
      {"block", "block", "block", 0},
      {"words without case", "CYCLIC", "cyclic", 0},
      {"a socket layout", "cyclic:fcyclic", "cyclic:fcyclic", 0},
      {"node, socket and core", "block:cyclic:block", "block:cyclic:block", 0},
      {"* at each level is Slurm's default", "*:*:*", "block:cyclic:cyclic", 0},
      {"* for cores takes the socket layout", "cyclic:block:*", "cyclic:block:block", 0},
      {"hostfile is arbitrary", "hostfile", "arbitrary", 0},
      {"a Pack flag", "block:block,Pack", "block:block,pack", 0},
      {"NoPack alone", "NoPack", "nopack", 0},
      {"plane takes a size", "plane=6", "plane", 6},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto dist = parseDistribution(row.text);
      REQUIRE(dist.ok());
      CHECK(dist->name == row.name);
      CHECK(dist->planeSize == row.plane);
    }
  }
}

TEST_CASE("bad -m/--distribution values are refused naming the part", "[cli][distribution]") {
  struct Row {
    const char* rule;
    const char* text;
    const char* message;
  };
  const Row rows[] = {
      {"an unknown node layout", "spread", "'spread' is not a layout there"},
      {"fcyclic is not a node layout", "fcyclic", "'fcyclic' is not a layout there"},
      {"arbitrary takes no socket layout", "arbitrary:block", "arbitrary takes no socket or core layout"},
      {"four levels", "block:block:block:block", "at most node, socket and core layouts"},
      {"an unknown flag", "cyclic,tight", "'tight' is neither Pack nor NoPack"},
      {"plane without a size", "plane", "plane needs a size"},
      {"plane of zero", "plane=0", "the plane size must be a whole number"},
      {"plane with trailing text", "plane=3x", "the plane size must be a whole number"},
      {"nothing before the flag", ",pack", "no layout given"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto dist = parseDistribution(row.text);
      REQUIRE_FALSE(dist.ok());
      CHECK_THAT(dist.error(), Catch::Contains(row.message));
    }
  }
}

TEST_CASE("--distribution reaches the steps as SLURM_DISTRIBUTION", "[cli][distribution]") {
  auto result = submit({"-m", "plane=5", "--wrap", "true"});
  REQUIRE(result.ok());
  CHECK(result->spec.distribution() == "plane");
  CHECK(result->spec.environment().at("SLURM_DISTRIBUTION") == "plane");
  CHECK(result->spec.environment().at("SLURM_DIST_PLANESIZE") == "5");
  auto none = submit({"--export=NONE", "--distribution=cyclic:cyclic", "--wrap", "true"});
  REQUIRE(none.ok());
  CHECK(none->spec.environment().size() == 1);  // set whatever --export keeps
  auto bad = submit({"-m", "diagonal", "--wrap", "true"});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error(), Catch::StartsWith("command line: --distribution: invalid distribution 'diagonal'"));
}

TEST_CASE("--signal forms", "[cli][signal]") {
  struct Row {
    const char* rule;
    const char* text;
    int signal;
    int seconds;
    const char* flags;
  };
  const Row rows[] = {
      {"a name; 60 seconds by default", "USR2", 12, 60, ""},
      {"a number and a time", "10@90", 10, 90, ""},
      {"SIG prefix and lower case", "sigterm@5", 15, 5, ""},
      {"B: the batch shell only", "B:HUP@120", 1, 120, "B"},
      {"flags without case, R then B", "rb:INT@30", 2, 30, "RB"},
      {"B then R reads the same", "BR:INT@30", 2, 30, "RB"},
      {"flags without a colon", "BUSR1", 10, 60, "B"},
      {"an empty time is zero, as strtol reads it", "QUIT@", 3, 0, ""},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto warn = parseWarnSignal(row.text);
      REQUIRE(warn.ok());
      CHECK(warn->signal == row.signal);
      CHECK(warn->seconds == row.seconds);
      CHECK(warn->flags == row.flags);
    }
  }
}

TEST_CASE("bad --signal values are refused", "[cli][signal]") {
  struct Row {
    const char* rule;
    const char* text;
    const char* message;
  };
  const Row rows[] = {
      {"an unknown name", "NOPE", "invalid signal specification 'NOPE'"},
      {"B eats the first letter of BUS, as in Slurm", "BUS", "invalid signal specification 'BUS'"},
      {"signal zero", "0@10", "invalid signal specification '0@10'"},
      {"a time past 65535", "USR1@70000", "bad time '70000'"},
      {"a negative time", "USR1@-4", "bad time '-4'"},
      {"text after the time", "USR1@9s", "bad time '9s'"},
      {"no signal", "B:", "invalid signal specification 'B:'"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto warn = parseWarnSignal(row.text);
      REQUIRE_FALSE(warn.ok());
      CHECK_THAT(warn.error(), Catch::Contains(row.message));
    }
  }
}

TEST_CASE("--signal, -O, --contiguous, --open-mode and --get-user-env land in the JobSpec", "[cli][sbatch]") {
  auto result = submit({"-O", "--contiguous", "--open-mode=Append", "--get-user-env", "--signal=R:USR1@15", "--wrap",
                        "true"});
  REQUIRE(result.ok());
  const auto& spec = result->spec;
  CHECK(spec.overcommit());
  CHECK(spec.contiguous());
  CHECK(result->warnings ==
        std::vector<std::string>{"--contiguous is accepted, but Gantry does not place the job on consecutive nodes"});
  CHECK(spec.open_mode() == "append");
  CHECK(spec.get_user_env());
  CHECK(spec.warn_signal() == 10);
  CHECK(spec.warn_time_seconds() == 15);
  CHECK(spec.warn_flags() == "R");
  auto directive = submit({"directives.sh"});
  REQUIRE(directive.ok());
  CHECK(directive->spec.warn_signal() == 12);
  CHECK(directive->spec.warn_time_seconds() == 45);
  CHECK(directive->spec.warn_flags() == "B");
  auto badMode = submit({"--open-mode=rewrite", "--wrap", "true"});
  REQUIRE_FALSE(badMode.ok());
  CHECK_THAT(badMode.error(), Catch::Contains("--open-mode: invalid value 'rewrite': expected append or truncate"));
  auto plain = submit({"train.sh"});
  REQUIRE(plain.ok());
  CHECK(plain->spec.warn_signal() == 0);
}

TEST_CASE("--export=NIL sends no variable at all", "[cli][sbatch][export]") {
  auto result = submit({"--export=NIL", "--wrap", "true"});
  REQUIRE(result.ok());
  CHECK(result->spec.environment().empty());
  auto inList = submit({"--export=NIL,A=1", "--wrap", "true"});
  REQUIRE_FALSE(inList.ok());
  CHECK_THAT(inList.error(), Catch::Contains("expected ALL, NONE, NIL, or a list"));
}

TEST_CASE("-W/--wait is sbatch's; srun and salloc refuse it", "[cli][sbatch][wait]") {
  auto result = submit({"-W", "--wrap", "true"});
  REQUIRE(result.ok());
  CHECK(result->wait);
  CHECK_FALSE(submit({"--wrap", "true"})->wait);
  for (const char* program : {"srun", "salloc"}) {
    auto refused = prepareInteractive(program, {"--wait", "true"}, testContext());
    REQUIRE(refused.ok());
    CHECK(refused->usageError == "unrecognized option '--wait'");
  }
  auto getUserEnv = prepareInteractive("srun", {"--get-user-env", "true"}, testContext());
  REQUIRE(getUserEnv.ok());
  CHECK(getUserEnv->usageError == "unrecognized option '--get-user-env'");
  auto openMode = prepareInteractive("salloc", {"--open-mode=append"}, testContext());
  REQUIRE(openMode.ok());
  CHECK(openMode->usageError == "unrecognized option '--open-mode=append'");
  auto overcommit = prepareInteractive("srun", {"-O", "-n", "5", "true"}, testContext());
  REQUIRE(overcommit.ok());
  CHECK(overcommit->spec.overcommit());
}

TEST_CASE("sbatch --wait ends with the job's exit status", "[cli][sbatch][wait]") {
  struct Row {
    const char* rule;
    gantry::v1::JobState state;
    int exitCode;
    int signal;
    std::optional<int> expected;
  };
  const Row rows[] = {
      {"a pending job: wait on", gantry::v1::PENDING, 0, 0, std::nullopt},
      {"a running job: wait on", gantry::v1::RUNNING, 0, 0, std::nullopt},
      {"a completing job: wait on", gantry::v1::COMPLETING, 3, 0, std::nullopt},
      {"completed: 0", gantry::v1::COMPLETED, 0, 0, 0},
      {"failed: its exit code", gantry::v1::FAILED, 42, 0, 42},
      {"a signal: 1", gantry::v1::FAILED, 0, 9, 1},
      {"cancelled while pending: 0", gantry::v1::CANCELLED, 0, 0, 0},
      {"timeout killed by a signal: 1", gantry::v1::TIMEOUT, 0, 15, 1},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      gantry::v1::Job job;
      job.set_state(row.state);
      job.set_exit_code(row.exitCode);
      job.set_term_signal(row.signal);
      CHECK(waitExitStatus(job) == row.expected);
    }
  }
}
