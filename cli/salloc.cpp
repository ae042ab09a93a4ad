// gantry salloc: get an allocation, run a command (the user's shell by
// default) with the allocation described in its environment, then give the
// allocation back with the command's exit status.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli/allocation.h"
#include "cli/allocation_lines.h"
#include "cli/controller_client.h"
#include "cli/srun_options.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

// Runs argv with `env` added to ours; returns its exit status (128 + signal
// when a signal ended it).
Result<int> runCommand(const std::vector<std::string>& command, const std::map<std::string, std::string>& env) {
  pid_t pid = fork();
  if (pid < 0) return Error{std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "salloc: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Error{std::string("waitpid: ") + std::strerror(errno)};
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

int runSalloc(const std::vector<std::string>& args) {
  auto invocation = prepareInteractive("salloc", args, currentSubmitContext());
  if (!invocation) return reportError("salloc", invocation.error());
  if (!invocation->usageError.empty()) return reportUsageError("salloc", invocation->usageError);
  if (!invocation->helpText.empty()) {
    std::cout << invocation->helpText;
    return 0;
  }
  reportWarnings("salloc", invocation->warnings);
  for (const auto& line : invocation->definedOptions) std::cerr << "salloc: " << line << "\n";
  const bool informs = invocation->verbosity.informs();
  auto client = ControllerClient::connect(invocation->confDir);
  if (!client) return reportError("salloc", client.error());
  // Ctrl-C belongs to the command (it shares the terminal); salloc itself
  // only gives up waiting for the allocation.
  static std::atomic<bool> interrupted{false};
  struct sigaction action {};
  action.sa_handler = [](int) { interrupted = true; };
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  AllocationKeeper keeper(*client);
  const bool noShell = invocation->noShell;
  auto job = allocate(*client, invocation->spec, "salloc", &interrupted, noShell ? nullptr : &keeper,
                      invocation->verbosity);
  if (!job) return reportError("salloc", job.error());
  // The job runs once granted: its nodes are ready as soon as it is.
  if (informs) std::cerr << "salloc: " << nodesReadyLine(*job) << "\n";
  // --no-shell: the allocation stays the job's, until its time limit or scancel.
  if (noShell) return 0;

  std::vector<std::string> command = invocation->command;
  if (command.empty()) {
    const char* shell = std::getenv("SHELL");
    command.push_back(shell != nullptr && *shell != '\0' ? shell : "/bin/sh");
  }
  auto status = runCommand(command, allocationEnvironment(*job));
  int exitCode = status ? *status : 1;
  if (!status) std::cerr << "salloc: error: " << status.error() << "\n";
  if (informs) std::cerr << "salloc: Relinquishing job allocation " << job->job_id() << "\n";
  if (auto released = releaseAllocation(*client, job->job_id(), exitCode); !released) {
    std::cerr << "salloc: error: cannot release job " << job->job_id() << ": " << released.error() << "\n";
  }
  return exitCode;
}

}  // namespace gantry::cli
