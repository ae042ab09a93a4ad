#include <catch2/catch.hpp>

#include <algorithm>

#include "cli/job_options.h"
#include "cli/output_labels.h"
#include "cli/srun_options.h"

using gantry::cli::OutputLabeler;
using gantry::cli::prepareInteractive;
using gantry::cli::SubmitContext;

namespace {
SubmitContext context() {
  return SubmitContext{.environment = {{"HOME", "/home/alice"}}, .workDir = "/home/alice", .submitHost = "login1"};
}
}  // namespace

TEST_CASE("srun options come before the command, which keeps its own options", "[cli][srun]") {
  auto run = prepareInteractive("srun", {"-n2", "-l", "--gres=gpu:1", "--exclusive", "sh", "-c", "echo -n x"},
                                context());
  REQUIRE(run.ok());
  CHECK(run->label);
  CHECK(run->spec.ntasks() == 2);
  CHECK(run->spec.exclusive());
  REQUIRE(run->spec.gres_size() == 1);
  CHECK(run->spec.gres(0).name() == "gpu");
  CHECK(run->spec.script().empty());
  CHECK(run->spec.name() == "sh");
  CHECK(run->spec.work_dir() == "/home/alice");
  CHECK(run->command == std::vector<std::string>{"sh", "-c", "echo -n x"});
}

TEST_CASE("srun -v lists the options the command line set, as Slurm's 'defined options'", "[cli][srun]") {
  auto quiet = prepareInteractive("srun", {"-n3", "true"}, context());
  REQUIRE(quiet.ok());
  CHECK(quiet->definedOptions.empty());
  auto run = prepareInteractive("srun", {"-N", "1", "--ntasks=3", "-O", "-vv", "--gres=gpu:2", "hostname", "-v"},
                                context());
  REQUIRE(run.ok());
  const std::vector<std::string> expected = {
      "defined options",
      "-------------------- --------------------",
  };
  REQUIRE(run->definedOptions.size() > 4);
  CHECK(std::vector<std::string>(run->definedOptions.begin(), run->definedOptions.begin() + 2) == expected);
  CHECK(run->definedOptions.back() == "end of defined options");
  auto has = [&](const std::string& line) {
    return std::find(run->definedOptions.begin(), run->definedOptions.end(), line) != run->definedOptions.end();
  };
  CHECK(has("nodes               : 1"));
  CHECK(has("ntasks              : 3"));
  CHECK(has("overcommit          : set"));
  CHECK(has("verbose             : 2"));  // the command's own -v is not srun's
  CHECK(has("gres                : gpu:2"));
  CHECK(run->definedOptions.size() == 2 + 5 + 2);
}

TEST_CASE("srun refuses a missing command and sbatch-only options", "[cli][srun]") {
  CHECK_FALSE(prepareInteractive("srun", {"-n2"}, context()).ok());
  auto wrap = prepareInteractive("srun", {"--wrap", "x", "true"}, context());
  REQUIRE_FALSE(wrap.ok());
  CHECK(wrap.error().find("--wrap") != std::string::npos);
  auto bad = prepareInteractive("srun", {"-n", "zero", "true"}, context());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("ntasks") != std::string::npos);
}

TEST_CASE("salloc may run without a command; --pty means one task", "[cli][srun]") {
  auto salloc = prepareInteractive("salloc", {"-N1", "--mem=100"}, context());
  REQUIRE(salloc.ok());
  CHECK(salloc->command.empty());
  CHECK(salloc->spec.name() == "salloc");
  auto pty = prepareInteractive("srun", {"--pty", "bash"}, context());
  REQUIRE(pty.ok());
  CHECK(pty->pty);
  CHECK(pty->spec.ntasks() == 1);
  CHECK_FALSE(prepareInteractive("srun", {"--pty", "-n2", "bash"}, context()).ok());
}

TEST_CASE("labels go on complete lines, per task and stream", "[cli][srun]") {
  OutputLabeler labeler;
  CHECK(labeler.feed(0, 1, "hel") == "");
  CHECK(labeler.feed(1, 1, "a\nb") == "1: a\n");
  CHECK(labeler.feed(0, 1, "lo\nworld\n") == "0: hello\n0: world\n");
  CHECK(labeler.feed(0, 2, "err") == "");
  CHECK(labeler.flush(1, 1) == "1: b\n");
  CHECK(labeler.flush(0, 2) == "0: err\n");
  CHECK(labeler.flush(0, 1) == "");
}

TEST_CASE("--exclusive=allocation: whole nodes for the job, srun's step whole unless --exact", "[cli][srun][exclusive]") {
  struct Row {
    const char* rule;
    const char* program;
    std::vector<std::string> args;
    bool wholeStep;
  };
  const Row rows[] = {
      {"srun's step takes the whole allocation", "srun", {"--exclusive=allocation", "-n2", "true"}, true},
      {"--exact after it keeps the step exact", "srun", {"--exclusive=allocation", "--exact", "-n2", "true"}, false},
      {"--exact before it keeps the step exact", "srun", {"--exact", "--exclusive=ALLOCATION", "-n2", "true"}, false},
      {"salloc has no step: nothing more than whole nodes", "salloc", {"--exclusive=allocation", "-n2", "true"}, false},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto run = prepareInteractive(row.program, row.args, context());
    REQUIRE(run.ok());
    CHECK(run->spec.exclusive());
    CHECK(run->spec.exclusive_mode().empty());
    CHECK(run->exclusiveAllocation);
    CHECK(run->wholeStep == row.wholeStep);
  }
  auto plain = prepareInteractive("srun", {"--exclusive", "-n2", "true"}, context());
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->exclusiveAllocation);
  CHECK_FALSE(plain->wholeStep);
  auto whole = prepareInteractive("srun", {"--whole", "-n2", "true"}, context());
  REQUIRE(whole.ok());
  CHECK(whole->wholeStep);
  CHECK_FALSE(whole->spec.exclusive());
  auto wholeExact = prepareInteractive("srun", {"--whole", "--exact", "-n2", "true"}, context());
  REQUIRE(wholeExact.ok());
  CHECK_FALSE(wholeExact->wholeStep);
}

TEST_CASE("srun and salloc accept --exclusive=user, =mcs and =topo", "[cli][srun][exclusive]") {
  for (const char* program : {"srun", "salloc"}) {
    for (const std::string mode : {"user", "mcs", "topo"}) {
      auto run = prepareInteractive(program, {"--exclusive=" + mode, "-n3", "hostname"}, context());
      REQUIRE(run.ok());
      CHECK(run->spec.exclusive_mode() == mode);
      CHECK(run->spec.exclusive() == (mode == "topo"));
      CHECK(run->command == std::vector<std::string>{"hostname"});
    }
  }
  auto bad = prepareInteractive("srun", {"--exclusive=someone", "hostname"}, context());
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error(), Catch::Contains("--exclusive: invalid value 'someone'"));
}

TEST_CASE("--gpu-bind is taken by srun and salloc as given, and malformed values are refused", "[cli][srun]") {
  auto run = prepareInteractive("srun", {"--gpus-per-node=2", "--gpu-bind=verbose,map_gpu:1*2,0", "true"}, context());
  REQUIRE(run.ok());
  CHECK(run->spec.gpu_bind() == "verbose,map_gpu:1*2,0");
  auto salloc = prepareInteractive("salloc", {"--gpu-bind", "single:2"}, context());
  REQUIRE(salloc.ok());
  CHECK(salloc->spec.gpu_bind() == "single:2");
  auto bad = prepareInteractive("srun", {"--gpu-bind=mask_gpu:0xz", "true"}, context());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "command line: --gpu-bind: mask_gpu: '0xz' is not a hexadecimal GPU mask");
}

TEST_CASE("--gpus-per-node=0 asks for no GPU per node on sbatch, srun and salloc", "[cli][srun][gpus]") {
  // As in Slurm: a step of a GPU job spreading --gpus without a per-node count.
  auto step = prepareInteractive("srun", {"-n3", "--gpus=3", "--gpus-per-node=0", "true"}, context());
  REQUIRE(step.ok());
  CHECK(step->spec.gpus() == 3);
  CHECK(step->spec.gpus_per_node() == 0);
  auto none = prepareInteractive("salloc", {"-N1", "--gpus-per-node=0"}, context());
  REQUIRE(none.ok());
  CHECK(none->spec.gpus_per_node() == 0);
  CHECK(none->spec.gpus() == 0);
  auto batch = gantry::cli::prepareSubmission({"--gpus-per-node=0", "--wrap", "true"}, context(),
                                              [](const std::string&) -> gantry::Result<std::string> {
                                                return gantry::Error{"no script files here"};
                                              });
  REQUIRE(batch.ok());
  CHECK(batch->spec.gpus_per_node() == 0);
  CHECK_FALSE(prepareInteractive("srun", {"--gpus-per-node=-1", "true"}, context()).ok());
}
