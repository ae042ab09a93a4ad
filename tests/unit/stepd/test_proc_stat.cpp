#include <catch2/catch.hpp>

#include <unistd.h>

#include "stepd/usage/proc_stat.h"

using namespace gantry::stepd;

namespace {
// Fields 3-24 of a stat line: state ppid pgrp session tty tpgid flags minflt
// cminflt majflt cmajflt utime stime cutime cstime priority nice threads
// itrealvalue starttime vsize rss.
std::string statLine(const std::string& name) {
  return "4711 (" + name + ") S 4700 4705 4700 0 -1 4194560 120 0 9 0 250 75 0 0 20 0 1 0 100 52428800 300 18446744073709551615";
}
}  // namespace

TEST_CASE("a stat line gives group, CPU time, memory and faults", "[stepd][usage]") {
  auto stat = parseProcStat(statLine("python3"), 100, 4096);
  REQUIRE(stat);
  CHECK(stat->pid == 4711);
  CHECK(stat->pgrp == 4705);
  CHECK(stat->cpu_usec == 3250000);  // (250 + 75) ticks at 100 per second
  CHECK(stat->major_faults == 9);
  CHECK(stat->vmem_bytes == 52428800);
  CHECK(stat->rss_bytes == 300 * 4096);
}

TEST_CASE("a command name with spaces and parentheses does not shift the fields", "[stepd][usage]") {
  auto stat = parseProcStat(statLine("a) b (c"), 100, 4096);
  REQUIRE(stat);
  CHECK(stat->pgrp == 4705);
  CHECK(stat->rss_bytes == 300 * 4096);
}

TEST_CASE("text that is not a stat line is refused", "[stepd][usage]") {
  CHECK_FALSE(parseProcStat("", 100, 4096));
  CHECK_FALSE(parseProcStat("12 (x) S 1 2", 100, 4096));
  CHECK_FALSE(parseProcStat("12 (x) S 1 two 3 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 1 1 1", 100, 4096));
}

TEST_CASE("read_bytes comes from /proc/<pid>/io", "[stepd][usage]") {
  CHECK(parseProcReadBytes("rchar: 10\nwchar: 4\nread_bytes: 81920\nwrite_bytes: 0\n") == 81920);
  CHECK(parseProcReadBytes("rchar: 10\n") == 0);
}

TEST_CASE("only the processes of the named groups are found", "[stepd][usage]") {
  auto mine = processesInGroups("/proc", {::getpgrp()});
  bool found_self = false;
  for (const auto& p : mine) found_self = found_self || p.pid == ::getpid();
  CHECK(found_self);
  CHECK(processesInGroups("/proc", {}).empty());
}
