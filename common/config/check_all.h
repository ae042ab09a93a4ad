// Reads every configuration file of a folder and reports every problem at
// once, for `gantryctld --check-config` and `gantryd --check-config`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/config/diagnostic.h"

namespace gantry::config {

struct CheckOptions {
  // Node whose gres.conf records are checked; "" checks every node named in
  // gantry.conf or in a gres.conf NodeName line.
  std::string nodeName;
};

struct CheckReport {
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;
  // Keys accepted but not yet acted on (inert_keys.h); never make ok() false.
  std::vector<Diagnostic> notes;
  bool ok() const { return errors.empty(); }
  // Errors, then warnings, then notes, one "file:line: message" per line,
  // warnings prefixed with "warning: " and notes with "note: ".
  std::string toString() const;
};

// Loads gantry.conf, gres.conf, cgroup.conf and resctrl.yaml from `confDir`.
// gantry.conf is required; the others are optional. Problems in one file do
// not stop the others from being checked (cgroup.conf is checked against
// whatever part of gantry.conf could be read).
CheckReport checkAll(const std::filesystem::path& confDir, const CheckOptions& options = {});

}  // namespace gantry::config
