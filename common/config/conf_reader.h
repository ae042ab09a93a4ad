// Reads files in slurm.conf syntax (gantry.conf, gres.conf, cgroup.conf)
// into logical lines of Key=Value pairs, each remembering where it came from.
//
// Syntax handled here, so every file format shares it:
//   - '#' starts a comment unless written "\#" or inside double quotes;
//   - a line ending in '\' continues on the next line;
//   - "Include PATH" reads another file in place (relative to the including
//     file's folder), up to ReadOptions::maxIncludeDepth deep, never in a cycle;
//   - pairs are separated by whitespace; spaces around '=' are allowed;
//   - a value in double quotes may contain spaces and '#'.
// Keys keep their spelling; callers compare them case-insensitively.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/diagnostic.h"

namespace gantry::config {

struct KeyValue {
  std::string key;
  std::string value;
};

struct ConfLine {
  std::string file;
  int line = 0;  // first physical line of the logical line
  std::vector<KeyValue> pairs;
};

struct ReadOptions {
  bool followIncludes = true;  // false: an Include line is an error (fuzzing, in-memory text)
  int maxIncludeDepth = 16;
  std::size_t maxFileBytes = 16u << 20;  // larger files are refused, not read
};

struct ReadResult {
  std::vector<ConfLine> lines;
  Diagnostics diagnostics;
};

// Reads `file`. A file that cannot be opened is an error naming it.
ReadResult readConfFile(const std::filesystem::path& file, const ReadOptions& options = {});

// Reads text already in memory; `fileName` is used in diagnostics and its
// folder resolves relative Include paths.
ReadResult readConfText(std::string_view text, const std::string& fileName, const ReadOptions& options = {});

}  // namespace gantry::config
