// gantry sbatch: read the options and script, submit, print the job id.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/allocation.h"
#include "cli/controller_client.h"
#include "cli/job_options.h"
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

  if (!submission->verbosity.informs()) return 0;  // -Q: not even the job id, as in Slurm
  if (submission->testOnly) {
    std::cerr << "sbatch: " << response->test_only_result() << "\n";
  } else if (submission->parsable) {
    std::cout << response->job_id() << "\n";
  } else {
    std::cout << "Submitted batch job " << response->job_id() << "\n";
  }
  return 0;
}

}  // namespace gantry::cli
