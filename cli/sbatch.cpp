// gantry sbatch: read the options and script, submit, print the job id;
// with -W/--wait, wait for the job to end.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/allocation.h"
#include "cli/controller_client.h"
#include "cli/job_options.h"
#include "cli/job_wait.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

Result<std::string> readScriptFile(const std::string& path) {
  if (path == kStdinScript) {
    if (isatty(STDIN_FILENO)) {
      return Error{"no batch script given: name a script file, use --wrap, or pipe the script "
                   "to standard input"};
    }
    std::ostringstream text;
    text << std::cin.rdbuf();
    if (text.str().empty()) return Error{"the batch script read from standard input is empty"};
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot read batch script '" + path + "': " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// -W/--wait: asks for the job every second until it has ended (finished
// jobs included, which the controller keeps until MinJobAge). A job no
// longer known ends the wait with Slurm's error; a controller that does not
// answer is asked again, as Slurm's sbatch does.
int waitForJob(const ControllerClient& client, uint64_t jobId) {
  gantry::v1::ListJobsRequest request;
  request.add_job_ids(jobId);
  request.set_include_finished(true);
  for (;;) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto response = client.call<gantry::v1::ListJobsResponse>(
        [&request](auto& stub, grpc::ClientContext* context, auto* out) {
          return stub.ListJobs(context, request, out);
        });
    if (!response) continue;
    if (response->jobs_size() == 0) {
      std::cerr << "sbatch: error: Job " << jobId << " no longer found and exit code not found\n";
      return 0;
    }
    if (auto status = waitExitStatus(response->jobs(0))) return *status;
  }
}

}  // namespace

int runSbatch(const std::vector<std::string>& args) {
  auto submission = prepareSubmission(args, currentSubmitContext(), readScriptFile);
  if (!submission) return reportError("sbatch", submission.error());
  if (!submission->usageError.empty()) return reportUsageError("sbatch", submission->usageError);
  if (!submission->helpText.empty()) {
    std::cout << submission->helpText;
    return 0;
  }
  reportWarnings("sbatch", submission->warnings);
  for (const auto& line : submission->definedOptions) std::cerr << "sbatch: " << line << "\n";
  auto client = ControllerClient::connect(submission->confDir);
  if (!client) return reportError("sbatch", client.error());

  gantry::v1::SubmitJobRequest request;
  *request.mutable_spec() = submission->spec;
  request.set_test_only(submission->testOnly);
  auto response = client->call<gantry::v1::SubmitJobResponse>(
      [&request](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.SubmitJob(context, request, out);
      });
  if (!response) return reportError("sbatch", "Batch job submission failed: " + response.error());

  if (!submission->verbosity.informs()) {
    // -Q: not even the job id, as in Slurm
  } else if (submission->testOnly) {
    std::cerr << "sbatch: " << response->test_only_result() << "\n";
  } else if (submission->parsable) {
    std::cout << response->job_id() << "\n";
  } else {
    std::cout << "Submitted batch job " << response->job_id() << "\n";
  }
  if (submission->wait && !submission->testOnly) {
    std::cout.flush();
    return waitForJob(*client, response->job_id());
  }
  return 0;
}

}  // namespace gantry::cli
