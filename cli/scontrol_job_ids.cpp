#include "cli/scontrol_job_ids.h"

#include <cctype>

#include "cli/array_ids.h"

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
    for (const std::string& piece : splitJobList(word)) {
      JobIdItem item{.text = piece, .id = jobIdOf(piece)};
      if (!item.id && piece.find('_') != std::string::npos) {
        if (auto target = parseJobTarget(piece)) {
          item.id = target->id;
          item.arrayTasks = target->tasks;
        }
      }
      items.push_back(std::move(item));
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
