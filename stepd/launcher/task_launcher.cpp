#include "stepd/launcher/task_launcher.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gantry::stepd {
namespace {

// Only async-signal-safe calls from here on in the child; no allocation.
void childFail(int fd, const char* what, int err) {
  const char* prefix = "gantrystepd: ";
  const char* reason = std::strerror(err);
  (void)!::write(fd, prefix, std::strlen(prefix));
  (void)!::write(fd, what, std::strlen(what));
  (void)!::write(fd, ": ", 2);
  (void)!::write(fd, reason, std::strlen(reason));
  (void)!::write(fd, "\n", 1);
  ::_exit(127);
}

void resetSignals() {
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  for (int sig : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGCHLD, SIGPIPE, SIGHUP, SIGQUIT})
    signal(sig, SIG_DFL);
}

int openAs(const std::string& path, int flags, const TaskIdentity& identity) {
  if (identity.switch_user) {
    setfsgid(identity.gid);
    setfsuid(identity.uid);
  }
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  int saved = errno;
  if (identity.switch_user) {
    setfsuid(::getuid());
    setfsgid(::getgid());
  }
  errno = saved;
  return fd;
}

}  // namespace

Result<int> openOutputAsUser(const std::string& path, const TaskIdentity& identity, bool append) {
  int fd = openAs(path, O_WRONLY | O_CREAT | (append ? 0 : O_TRUNC) | O_APPEND, identity);
  if (fd < 0) return Error{"cannot open output file " + path + ": " + std::strerror(errno)};
  return fd;
}

Result<int> openInputAsUser(const std::string& path, const TaskIdentity& identity) {
  int fd = openAs(path, O_RDONLY, identity);
  if (fd < 0) return Error{"cannot open input file " + path + ": " + std::strerror(errno)};
  return fd;
}

Result<pid_t> launchTask(const TaskLaunch& launch) {
  // Everything the child needs is prepared before fork.
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : launch.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = launch.argv;
  for (auto& s : argv_copy) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string fallback_note =
      "gantrystepd: cannot enter the work directory " + launch.work_dir + "; running in /tmp\n";
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  for (int cpu : launch.cpu_affinity) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &affinity);
  }
  const std::string affinity_note = "gantrystepd: warning: cannot bind the task to its CPUs; it runs unbound\n";

  const pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return Error{std::string("fork failed: ") + std::strerror(errno)};
  if (pid > 0) return pid;

  resetSignals();
  if (launch.controlling_terminal) {
    ::setsid();  // also a process group of its own, as below
  } else {
    ::setpgid(0, 0);
  }
  const int err_fd = launch.stderr_fd >= 0 ? launch.stderr_fd : 2;
  if (!launch.cgroup_procs_path.empty()) {
    char digits[24];
    int n = 0;
    for (pid_t self = ::getpid(); self > 0; self /= 10) digits[n++] = static_cast<char>('0' + self % 10);
    char text[24];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    // O_CREAT as for every other control file: cgroupfs always has the
    // file, and a host fixture tree of plain folders then works the same.
    int fd = ::open(launch.cgroup_procs_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, text, n) != n) childFail(err_fd, "cannot join the step cgroup", errno);
    ::close(fd);
  }
  if (!launch.cpu_affinity.empty() && ::sched_setaffinity(0, sizeof(affinity), &affinity) != 0) {
    (void)!::write(err_fd, affinity_note.data(), affinity_note.size());
  }
  if (launch.stdin_fd >= 0 && ::dup2(launch.stdin_fd, 0) < 0) childFail(err_fd, "stdin", errno);
  if (launch.stdout_fd >= 0 && ::dup2(launch.stdout_fd, 1) < 0) childFail(err_fd, "stdout", errno);
  if (launch.stderr_fd >= 0 && ::dup2(launch.stderr_fd, 2) < 0) childFail(err_fd, "stderr", errno);
  if (launch.controlling_terminal && ::ioctl(0, TIOCSCTTY, 0) != 0) childFail(err_fd, "controlling terminal", errno);
  if (launch.identity.switch_user) {
    int rc = launch.identity.user.empty() ? ::setgroups(0, nullptr)
                                          : ::initgroups(launch.identity.user.c_str(), launch.identity.gid);
    if (rc != 0) childFail(2, "setting the supplementary groups", errno);
    if (::setgid(launch.identity.gid) != 0) childFail(2, "setgid", errno);
    if (::setuid(launch.identity.uid) != 0) childFail(2, "setuid", errno);
  }
  // The task dies with its launcher, so no task outlives a gantrystepd
  // that was killed. Set after the identity switch, which clears it; a
  // launcher already gone by now is caught by the parent check.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) childFail(2, "PR_SET_PDEATHSIG", errno);
  if (::getppid() != launcher) ::_exit(127);
  if (::chdir(launch.work_dir.c_str()) != 0) {
    (void)!::write(2, fallback_note.data(), fallback_note.size());
    if (::chdir("/tmp") != 0) childFail(2, "chdir /tmp", errno);
  }
  // Through environ so the program is looked up in the task's own PATH.
  environ = envp.data();
  ::execvp(argv[0], argv.data());
  childFail(2, argv[0], errno);
  return pid;  // not reached
}

}  // namespace gantry::stepd
