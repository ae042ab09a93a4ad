#include "nodeagent/launch/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gantry::agent {
namespace fs = std::filesystem;

Status makePrivateDirectory(const fs::path& path, mode_t mode) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return okStatus();
  if (path.has_parent_path() && path.parent_path() != path) {
    if (auto parent = makePrivateDirectory(path.parent_path(), mode); !parent) return parent;
  }
  // mkdir applies the umask; a umask can only take bits away from 0700.
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) {
    return Error{ErrorCode::Internal, "cannot create directory " + path.string() + ": " + std::strerror(errno)};
  }
  return okStatus();
}

Status writePrivateFile(const fs::path& path, const std::string& content) {
  const std::string temp = path.string() + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Error{ErrorCode::Internal, "cannot write " + temp + ": " + std::strerror(errno)};
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  const int saved = errno;
  ::close(fd);
  if (written != content.size()) {
    ::unlink(temp.c_str());
    return Error{ErrorCode::Internal, "cannot write " + temp + ": " + std::strerror(saved)};
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    return Error{ErrorCode::Internal, "cannot rename " + temp + ": " + std::strerror(errno)};
  }
  return okStatus();
}

}  // namespace gantry::agent
