// The batch script side of sbatch: #SBATCH directives and --wrap.
// Pure text handling, no file access.
#pragma once

#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::cli {

// One "#SBATCH ..." line, split into words the way a shell would.
struct Directive {
  int line = 0;  // 1-based line number in the script
  std::vector<std::string> words;
};

// Directives are read from the top of the script: after the optional "#!"
// line, blank lines and comments are skipped and "#SBATCH" lines collected;
// the first other line (the first command) ends the scan, so "#SBATCH" text
// further down is ordinary shell comment. On each line a word starting with
// '#' begins a trailing comment. Fails on an unterminated quote, naming the
// line.
Result<std::vector<Directive>> readDirectives(const std::string& scriptText);

// Splits text into words: whitespace separates, single and double quotes
// group, backslash escapes the next character, inside quotes too (Slurm's
// sbatch reads '#SBATCH -o 'a\ b'' as the name "a b", unlike a shell).
Result<std::vector<std::string>> splitShellWords(const std::string& text);

// The script --wrap submits: "#!/bin/sh\n<command>\n".
std::string wrapCommand(const std::string& command);

}  // namespace gantry::cli
