// The command lines of squeue, sinfo, scancel, scontrol and sacctmgr: what
// each takes, declared once, so the command, its --help and the option
// tables of docs/compatibility.md never disagree (sacct has its own in
// sacct_options.h; the launchers in job_options.h and srun_options.h).
// Declaring is pure; what the values mean is the command's.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/help_flags.h"

namespace gantry::cli {

struct SqueueOptions {
  bool noHeader = false;
  bool json = false;
  bool me = false;
  bool longList = false;   // -l/--long: more columns and the date first
  bool start = false;      // --start: pending jobs and when they start
  bool arrays = false;     // -r/--array: one line per pending array task
  std::string jobs, users, states, partitions, format, longFormat, confDir;
  std::string names, accounts, nodes;
  std::string stepList;    // -s/--steps=<jobid.stepid,...>
  CLI::Option* steps = nullptr;  // -s/--steps itself
  bool showSteps = false;  // set by the command: -s given, with or without a list
  HelpRequest help;
};
void declareSqueueOptions(CLI::App& app, SqueueOptions& options);

struct SinfoOptions {
  bool nodeView = false, reasons = false, noHeader = false, json = false;
  bool responding = false, dead = false, exact = false, all = false;
  bool summarize = false, longList = false;
  std::string format, longFormat, partitions, confDir, states, nodeNames;
  HelpRequest help;
};
void declareSinfoOptions(CLI::App& app, SinfoOptions& options);

struct ScancelOptions {
  std::vector<std::string> jobIds;
  std::string user, signal, confDir;
  bool batch = false, full = false;
  int verbose = 0;
  HelpRequest help;
};
void declareScancelOptions(CLI::App& app, ScancelOptions& options);

struct ScontrolOptions {
  std::vector<std::string> args;   // the command line as given, for --json's "meta"
  std::vector<std::string> words;
  bool details = false;
  bool oneLiner = false;
  bool all = false;  // accepted: Gantry hides no partition, so there is nothing more to show
  bool json = false;
  std::string confDir;
  HelpRequest help;
};
void declareScontrolOptions(CLI::App& app, ScontrolOptions& options);

struct SacctmgrOptions {
  bool parsable = false, parsable2 = false, noHeader = false, json = false, immediate = false;
  std::string confDir;
  std::vector<std::string> command;
  HelpRequest help;
};
void declareSacctmgrOptions(CLI::App& app, SacctmgrOptions& options);

struct SprioOptions {
  bool noHeader = false, longList = false, normalized = false, weights = false;
  std::string jobs, users, partitions, format, confDir;
  HelpRequest help;
};
void declareSprioOptions(CLI::App& app, SprioOptions& options);

struct SshareOptions {
  bool all = false, noHeader = false, parsable = false, parsable2 = false;
  std::string users, confDir;
  HelpRequest help;
};
void declareSshareOptions(CLI::App& app, SshareOptions& options);

}  // namespace gantry::cli
