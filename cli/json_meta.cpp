#include "cli/json_meta.h"

#include <unistd.h>

#include <filesystem>

#include "cli/group_name.h"
#include "common/auth/identity.h"

namespace gantry::cli {
namespace {

// The terminal the command runs on, looked for on stdin, stdout, stderr in
// that order as Slurm does; "" when none of them is one.
std::string terminalPath() {
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::isatty(fd) == 0) continue;
    std::error_code ec;
    auto target = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
    if (!ec) return target.string();
    if (const char* name = ::ttyname(fd); name != nullptr) return name;
  }
  return "";
}

}  // namespace

JsonMeta localJsonMeta(const std::string& program, const std::vector<std::string>& args,
                       const ControllerClient& client) {
  JsonMeta meta;
  meta.command.push_back(program);
  meta.command.insert(meta.command.end(), args.begin(), args.end());
  meta.source = terminalPath();
  meta.user = auth::userName(::getuid());
  meta.group = groupName(::getgid());
  meta.cluster = client.clusterName();
  meta.accountingStorage = client.accountingStorageType();
  return meta;
}

}  // namespace gantry::cli
