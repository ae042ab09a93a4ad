#include "stepd/cgroup/control_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gantry::stepd {

namespace {

Status writeWithFlags(const std::string& path, const std::string& value, int flags) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0) return Error{"cgroup: cannot open " + path + " for writing: " + std::strerror(errno)};
  ssize_t written = ::write(fd, value.data(), value.size());
  int saved = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(value.size()))
    return Error{"cgroup: writing \"" + value + "\" to " + path + " was refused: " +
                 (written < 0 ? std::strerror(saved) : "short write")};
  return okStatus();
}

}  // namespace

Status writeControlFile(const std::string& path, const std::string& value) {
  return writeWithFlags(path, value, O_TRUNC);
}

Status appendControlEntry(const std::string& path, const std::string& entry) {
  return writeWithFlags(path, entry + "\n", O_APPEND);
}

Result<std::string> readControlFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{"cgroup: cannot read " + path + ": " + std::strerror(errno)};
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace gantry::stepd
