// Entry points of the subcommands, each taking the words after its name
// and returning the process exit status. main.cpp dispatches to them.
#pragma once

#include <iostream>
#include <string>
#include <vector>

#include "cli/arg_parsing.h"
#include "common/util/result.h"

namespace gantry::cli {

int runSbatch(const std::vector<std::string>& args);
int runSqueue(const std::vector<std::string>& args);
int runSinfo(const std::vector<std::string>& args);
int runScancel(const std::vector<std::string>& args);
int runScontrol(const std::vector<std::string>& args);
int runSrun(const std::vector<std::string>& args);
int runSalloc(const std::vector<std::string>& args);
int runSacct(const std::vector<std::string>& args);
int runSprio(const std::vector<std::string>& args);
int runSshare(const std::vector<std::string>& args);
// Only `sacctmgr show event`; every other command is refused.
int runSacctmgr(const std::vector<std::string>& args);
// gantry api POST /tres/ (no Slurm command name; only as `gantry api`).
int runApi(const std::vector<std::string>& args);

// Prints "<command>: error: <message>" to stderr and returns exit status 1.
inline int reportError(const std::string& command, const std::string& message) {
  std::cerr << command << ": error: " << message << "\n";
  return 1;
}

// getopt's complaint about the command line, as Slurm's command prints it
// (usageErrorText); returns Slurm's exit status for it.
inline int reportUsageError(const std::string& command, const std::string& complaint) {
  std::cerr << usageErrorText(command, complaint);
  return usageExitCode(command);
}

// Warnings about options accepted and ignored, one "<command>: warning: " line each.
inline void reportWarnings(const std::string& command, const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) std::cerr << command << ": warning: " << warning << "\n";
}

// sacct's and sacctmgr's report of a failed call: accounting that is off
// (the controller's FAILED_PRECONDITION) is its plain line, as Slurm
// prints "...accounting storage is disabled"; anything else as
// reportError. Returns 1.
int reportAccountingError(const std::string& command, const Error& error);

}  // namespace gantry::cli
