// gantry srun: run a parallel step. Inside an allocation (SLURM_JOB_ID set,
// as in a batch script or a salloc shell) the step joins that job; outside
// one srun first allocates a job of its own and gives it back at the end.
// The tasks' output comes back over gantry.v1.StepIo (see step_io_server.h).
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/allocation.h"
#include "cli/allocation_lines.h"
#include "cli/controller_client.h"
#include "cli/local_address.h"
#include "cli/srun_options.h"
#include "cli/step_io_server.h"
#include "cli/step_retry.h"
#include "cli/step_token.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

// After the controller says the step ended, how long the nodes' streams
// may take to deliver their last output.
constexpr int kStreamGraceMs = 3000;
// Once our output is closed the tasks get SIGPIPE; those that survive it
// are killed after this long.
constexpr auto kBrokenPipeGrace = std::chrono::seconds(5);

// Ctrl-C and friends, taken by a thread with sigwait so that no handler
// runs inside gRPC: before the step exists they only ask srun to give up;
// once it runs, SIGINT is forwarded and a second one within a second kills
// the step, as users of srun expect.
class SignalForwarder {
 public:
  SignalForwarder() {
    sigemptyset(&set_);
    for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGWINCH}) sigaddset(&set_, sig);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    std::thread([this] { loop(); }).detach();
  }
  void attach(StepIoServer* server) { server_ = server; }
  static void sendWindowSize(StepIoServer& server) {
    winsize size{};
    if (::ioctl(STDIN_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0) server.setWindowSize(size.ws_row, size.ws_col);
  }
  const std::atomic<bool>* abortFlag() const { return &abort_; }

 private:
  void loop() {
    auto lastInterrupt = std::chrono::steady_clock::time_point{};
    for (;;) {
      int sig = 0;
      if (sigwait(&set_, &sig) != 0) continue;
      StepIoServer* server = server_.load();
      if (sig == SIGWINCH) {
        if (server != nullptr) sendWindowSize(*server);
        continue;
      }
      abort_ = true;
      if (server == nullptr) continue;
      auto now = std::chrono::steady_clock::now();
      if (sig == SIGINT && now - lastInterrupt < std::chrono::seconds(1)) {
        std::cerr << "srun: forcing job termination\n";
        server->forwardSignal(SIGKILL);
      } else if (sig == SIGINT) {
        std::cerr << "srun: interrupt (one more within 1 sec to abort)\n";
        server->forwardSignal(SIGINT);
        lastInterrupt = now;
      } else {
        server->forwardSignal(sig == SIGHUP ? SIGKILL : sig);
      }
    }
  }

  sigset_t set_{};
  std::atomic<StepIoServer*> server_{nullptr};
  std::atomic<bool> abort_{false};
};

// Creates the step, asking again once a second while the controller says
// "not now" (see step_retry.h).
Result<gantry::v1::CreateStepResponse> createStep(const ControllerClient& client,
                                                  const gantry::v1::CreateStepRequest& request,
                                                  const std::atomic<bool>* abort, bool informs) {
  int retries = 0;
  for (;;) {
    auto response = client.call<gantry::v1::CreateStepResponse>(
        [&request](auto& stub, grpc::ClientContext* context, auto* out) {
          return stub.CreateStep(context, request, out);
        });
    if (response) {
      if (retries > 0 && informs) std::cerr << "srun: Job step created\n";
      return response;
    }
    const Error& refusal = response.failure();
    if (!retryStepCreation(refusal)) return refusal;
    if (*abort) return Error{"Job step aborted before it was created"};
    if (informs) std::cerr << "srun: " << stepRetryNotice(refusal, retries) << "\n";
    ++retries;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

Result<gantry::v1::GetStepResponse> stepState(const ControllerClient& client, uint64_t jobId,
                                              const std::string& stepId) {
  gantry::v1::GetStepRequest request;
  request.set_job_id(jobId);
  request.set_step_id(stepId);
  return client.call<gantry::v1::GetStepResponse>(
      [&request](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.GetStep(context, request, out);
      });
}

// Waits for every node's stream to end. The controller is asked now and
// then, so a node whose gantrystepd never attached (launch failure) does
// not keep srun waiting for ever.
int awaitStep(const ControllerClient& client, StepIoServer& server, uint64_t jobId, const std::string& stepId) {
  std::optional<std::chrono::steady_clock::time_point> endedAt;
  std::optional<std::chrono::steady_clock::time_point> pipeClosedAt;
  std::string controllerMessage;
  int controllerExit = 0;
  while (!server.waitAllDone(1000)) {
    // `srun ... | head -1`: the reader left. The tasks get the SIGPIPE a
    // local writer would get, and the step ends so that its allocation is
    // given back instead of running on with nobody reading.
    if (server.outputClosed()) {
      auto now = std::chrono::steady_clock::now();
      if (!pipeClosedAt) {
        pipeClosedAt = now;
        server.forwardSignal(SIGPIPE);
      } else if (now - *pipeClosedAt > kBrokenPipeGrace) {
        server.forwardSignal(SIGKILL);
        *pipeClosedAt = now;
      }
    }
    if (endedAt) {
      if (std::chrono::steady_clock::now() - *endedAt > std::chrono::milliseconds(kStreamGraceMs)) break;
      continue;
    }
    auto state = stepState(client, jobId, stepId);
    if (state && !state->running()) {
      endedAt = std::chrono::steady_clock::now();
      controllerMessage = state->message();
      controllerExit = state->exit_code();
    }
  }
  int exitCode = server.exitCode();
  for (const auto& line : server.taskExitMessages()) std::cerr << "srun: error: " << line << "\n";
  for (const auto& message : server.failureMessages()) std::cerr << "srun: error: " << message << "\n";
  if (endedAt && !server.waitAllDone(0)) {
    if (!controllerMessage.empty()) std::cerr << "srun: error: " << controllerMessage << "\n";
    exitCode = std::max({exitCode, controllerExit, 1});
  }
  return exitCode;
}

// --pty on a terminal: keys go to the remote terminal as they are typed
// (^C included), so srun's own terminal is raw until srun ends.
class RawTerminal {
 public:
  void enter() {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    cfmakeraw(&raw);
    if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0) active_ = true;
  }
  void leave() {
    if (active_) tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_);
    active_ = false;
  }

 private:
  termios saved_{};
  bool active_ = false;
};

}  // namespace

int runSrun(const std::vector<std::string>& args) {
  auto invocation = prepareInteractive("srun", args, currentSubmitContext());
  if (!invocation) return reportError("srun", invocation.error());
  if (!invocation->usageError.empty()) return reportUsageError("srun", invocation->usageError);
  if (!invocation->helpText.empty()) {
    std::cout << invocation->helpText;
    return 0;
  }
  reportWarnings("srun", invocation->warnings);
  for (const auto& line : invocation->definedOptions) std::cerr << "srun: " << line << "\n";
  const Verbosity& verbosity = invocation->verbosity;
  // Before any thread exists, so that every thread inherits the blocked
  // signals and only the forwarder's sigwait receives them. A closed output
  // must not kill srun before it gives its allocation back: with SIGPIPE
  // ignored it shows as EPIPE (StepIoServer::outputClosed).
  signal(SIGPIPE, SIG_IGN);
  SignalForwarder signals;
  auto client = ControllerClient::connect(invocation->confDir);
  if (!client) return reportError("srun", client.error());

  // Inside an allocation the step joins it; otherwise srun makes its own.
  uint64_t jobId = 0;
  bool ownAllocation = false;
  AllocationKeeper keeper(*client);
  if (invocation->jobId != 0) {
    jobId = invocation->jobId;
  } else if (const char* inside = std::getenv("SLURM_JOB_ID"); inside != nullptr && *inside != '\0') {
    try {
      jobId = std::stoull(inside);
    } catch (...) {
      return reportError("srun", std::string("SLURM_JOB_ID is not a job id: '") + inside + "'");
    }
  } else {
    auto job = allocate(*client, invocation->spec, "srun", signals.abortFlag(), &keeper, verbosity);
    if (!job) return reportError("srun", job.error());
    jobId = job->job_id();
    ownAllocation = true;
    if (verbosity.verbose > 0) std::cerr << "srun: " << jobNodesLine(*job) << "\n";
  }
  if (!ownAllocation && verbosity.verbose > 0) {
    // Inside an allocation Slurm's srun -v names the job's nodes too.
    if (auto job = fetchJob(*client, jobId)) std::cerr << "srun: " << jobNodesLine(*job) << "\n";
  }
  auto giveBack = [&](int exitCode) {
    if (!ownAllocation) return;
    if (auto released = releaseAllocation(*client, jobId, exitCode); !released) {
      std::cerr << "srun: error: cannot release job " << jobId << ": " << released.error() << "\n";
    }
  };

  // The nodes reach the controller, so they reach the address we reach
  // it from (loopback for a controller on loopback): listen there only.
  auto token = newStepToken();
  auto listenAt = localAddressToward(client->controllerHost(), client->controllerPort());
  if (!token || !listenAt) {
    giveBack(1);
    return reportError("srun", !token ? token.error() : listenAt.error());
  }
  StepIoServer server(*token, invocation->label);
  if (auto started = server.start(*listenAt); !started) {
    giveBack(1);
    return reportError("srun", started.error());
  }
  gantry::v1::CreateStepRequest request;
  request.set_job_id(jobId);
  *request.mutable_spec() = invocation->spec;
  for (const auto& word : invocation->command) request.add_argv(word);
  request.mutable_io()->set_addr(*listenAt);
  request.mutable_io()->set_port(server.port());
  request.mutable_io()->set_token(*token);
  request.mutable_io()->set_pty(invocation->pty);
  request.set_overlap(invocation->overlap);
  // --exclusive=allocation made the job exclusive, never the step.
  if (invocation->exclusiveAllocation) request.mutable_spec()->set_exclusive(false);
  request.set_whole(invocation->wholeStep);
  auto step = createStep(*client, request, signals.abortFlag(), verbosity.informs());
  if (!step) {
    giveBack(1);
    return reportError("srun", step.error());
  }
  if (verbosity.verbose > 0) {
    std::cerr << "srun: "
              << stepLaunchLine(jobId, step->step_id(), step->node_list(), step->num_nodes(), step->ntasks()) << "\n";
  }
  server.expectNodes(step->num_nodes());
  signals.attach(&server);
  RawTerminal terminal;
  if (invocation->pty) {
    SignalForwarder::sendWindowSize(server);
    terminal.enter();
  }
  std::thread([&server] { server.pumpStdin(STDIN_FILENO); }).detach();
  int exitCode = awaitStep(*client, server, jobId, step->step_id());
  terminal.leave();
  giveBack(exitCode);
  std::cout.flush();
  std::fflush(nullptr);
  // The stdin thread may still wait on the terminal: leave without joining it.
  std::_Exit(exitCode);
}

}  // namespace gantry::cli
