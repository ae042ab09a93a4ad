#include "cli/scontrol_job_ids.h"

#include <cctype>

namespace gantry::cli {
namespace {

bool startsWithNoCase(const std::string& text, const std::string& prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

std::optional<uint64_t> jobIdOf(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (value == 0) return std::nullopt;
  return value;
}

}  // namespace

std::vector<JobIdItem> parseJobIdWords(const std::vector<std::string>& words) {
  std::vector<JobIdItem> items;
  for (std::string word : words) {
    // Slurm takes the key forms too.
    for (const char* prefix : {"jobid=", "job="}) {
      if (startsWithNoCase(word, prefix)) {
        word.erase(0, std::string(prefix).size());
        break;
      }
    }
    size_t start = 0;
    for (;;) {
      size_t comma = word.find(',', start);
      std::string piece = word.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!piece.empty()) items.push_back(JobIdItem{.text = piece, .id = jobIdOf(piece)});
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return items;
}

std::string jobActionFailure(std::string why, const std::string& id) {
  std::string said = ": " + id;
  if (why.size() > said.size() && why.ends_with(said)) why.erase(why.size() - said.size());
  return why + " for job " + id;
}

}  // namespace gantry::cli
