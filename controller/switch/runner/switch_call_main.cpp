// gantryswitchcall: runs one switch.lua call for the controller's
// CallRunner, in the process the runner made for it (a process group of
// its own). It switches to SlurmUser's ids from its order before the
// script loads.
//
// Standard input holds the order (call_protocol.h); standard output is the
// result channel. Both are moved aside before the script runs, so that the
// script, and whatever it starts, finds /dev/null on all three.
#include <fcntl.h>
#include <signal.h>
#include <grp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>
#include <string>

#include "common/switchlua/script_call.h"
#include "controller/switch/runner/call_protocol.h"

namespace {

using namespace gantry;

void writeAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) _exit(3);  // the runner is gone: nobody to tell
    done += static_cast<size_t>(wrote);
  }
}

std::string readAll(int fd) {
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return text;
    text.append(buffer, static_cast<size_t>(got));
  }
}

// The call is over: everything it started goes with it, this process too.
// Killing the group from inside, while we are its leader and alive, cannot
// hit anything else; the runner reads our lines after our death.
[[noreturn]] void endCall() {
  kill(0, SIGKILL);
  _exit(0);
}

}  // namespace

int main() {
  int channel = fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (channel < 0) return 2;
  std::string orderText = readAll(0);
  int devNull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devNull < 0 || dup2(devNull, 0) < 0 || dup2(devNull, 1) < 0 || dup2(devNull, 2) < 0) {
    writeAll(channel, interconnect::encodeOrderError("cannot open /dev/null for the script"));
    endCall();
  }
  close(devNull);

  auto order = interconnect::decodeOrder(orderText);
  if (!order) {
    writeAll(channel, interconnect::encodeOrderError(order.error()));
    endCall();
  }
  if (order->runAs) {
    const interconnect::CallIdentity& id = *order->runAs;
    std::vector<gid_t> groups(id.groups.begin(), id.groups.end());
    if (setgroups(groups.size(), groups.empty() ? nullptr : groups.data()) != 0 || setgid(id.gid) != 0 ||
        setuid(id.uid) != 0 || getuid() != id.uid || geteuid() != id.uid || getgid() != id.gid) {
      writeAll(channel, interconnect::encodeOrderError("cannot run as uid " + std::to_string(id.uid) + " gid " +
                                                       std::to_string(id.gid) + ": " + std::strerror(errno)));
      endCall();
    }
  }
  auto sink = [channel](switchlua::ScriptLogLevel level, std::string line) {
    writeAll(channel, interconnect::encodeLogLine(level, line));
  };
  switchlua::CallResult result = switchlua::callFunction(order->script, order->function, order->arguments, sink);
  writeAll(channel, interconnect::encodeResult(result));
  endCall();
}
