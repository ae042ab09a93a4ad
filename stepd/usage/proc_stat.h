// What /proc says about one process, for usage sampling: its process group
// (a task is a process group: gantrystepd starts each task as a group
// leader), CPU time, memory and page faults from /proc/<pid>/stat, and the
// bytes it read from storage from /proc/<pid>/io. Parsing is pure.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gantry::stepd {

struct ProcStat {
  pid_t pid = 0;
  pid_t pgrp = 0;
  uint64_t cpu_usec = 0;    // utime + stime
  uint64_t rss_bytes = 0;   // resident memory now
  uint64_t vmem_bytes = 0;  // virtual memory now
  uint64_t major_faults = 0;
  uint64_t read_bytes = 0;  // /proc/<pid>/io read_bytes (0 when not readable)
};

// Parses the text of /proc/<pid>/stat. The command name may hold spaces
// and parentheses, so fields are counted from the last ')'. Nullopt when
// the text is not a stat line. `ticks_per_sec` is sysconf(_SC_CLK_TCK),
// `page_bytes` the page size.
std::optional<ProcStat> parseProcStat(const std::string& text, uint64_t ticks_per_sec, uint64_t page_bytes);

// The read_bytes figure of the text of /proc/<pid>/io; 0 when absent.
uint64_t parseProcReadBytes(const std::string& text);

// Every process under `proc_root` (normally "/proc") whose process group is
// one of `groups`. A process that ends while it is read is left out.
std::vector<ProcStat> processesInGroups(const std::string& proc_root, const std::vector<pid_t>& groups);

}  // namespace gantry::stepd
