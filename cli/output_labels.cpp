#include "cli/output_labels.h"

namespace gantry::cli {

std::string OutputLabeler::feed(int task, int stream, const std::string& data) {
  std::string& pending = partial_[{task, stream}];
  pending += data;
  std::string out;
  size_t start = 0;
  for (size_t newline = pending.find('\n'); newline != std::string::npos;
       newline = pending.find('\n', start)) {
    out += std::to_string(task) + ": " + pending.substr(start, newline + 1 - start);
    start = newline + 1;
  }
  pending.erase(0, start);
  return out;
}

std::string OutputLabeler::flush(int task, int stream) {
  auto found = partial_.find({task, stream});
  if (found == partial_.end() || found->second.empty()) return "";
  std::string out = std::to_string(task) + ": " + found->second + "\n";
  partial_.erase(found);
  return out;
}

}  // namespace gantry::cli
