// Runs a CLI11 parser over a word list without letting CLI11's exceptions
// escape: the outcome is "parsed", "help was asked for" (with the text), or
// an error naming the option.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::cli {

struct ParseOutcome {
  bool helpRequested = false;
  std::string helpText;
};

// `words` excludes the program name. Options' callbacks run as CLI11 calls
// them; a callback may throw CLI::ValidationError to reject a value.
Result<ParseOutcome> parseWords(CLI::App& app, const std::vector<std::string>& words);

// The words after the program name.
std::vector<std::string> argsAfterProgram(int argc, char** argv, int skip);

}  // namespace gantry::cli
