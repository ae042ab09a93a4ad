#include "stepd/launcher/step_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace gantry::stepd {

Result<std::string> readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

Status writeFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  // Root's alone: the step directory's files may hold srun's I/O token.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Error{"cannot create " + tmp + ": " + std::strerror(errno)};
  bool ok = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0)
    return Error{"cannot write " + path + ": " + std::strerror(errno)};
  return okStatus();
}

Status writeResultFile(const std::string& step_dir, const StepResult& result) {
  nlohmann::json doc = {{"exit_code", result.exit_code}, {"signal", result.signal},
                        {"start_time", result.start_time}, {"end_time", result.end_time},
                        {"message", result.message}};
  if (!result.dmem_peak_bytes.empty()) doc["dmem_peak_bytes"] = result.dmem_peak_bytes;
  if (!result.drain_reason.empty()) doc["drain_reason"] = result.drain_reason;
  if (result.task_usage) doc["task_usage"] = taskUsageToJson(*result.task_usage);
  return writeFileAtomically(step_dir + "/result.json", doc.dump() + "\n");
}

Status writeStateFile(const std::string& step_dir, const std::string& state) {
  return writeFileAtomically(step_dir + "/state", state + "\n");
}

void StepLog::write(const char* level, const std::string& text) const {
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  const std::string prefix = std::string(stamp) + " [" + std::to_string(::getpid()) + "] " + level + ": ";
  std::string out;
  size_t start = 0;
  do {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += prefix + text.substr(start, end - start) + "\n";
    start = end + 1;
  } while (start < text.size());
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  (void)!::write(fd, out.data(), out.size());
  ::close(fd);
}

}  // namespace gantry::stepd
