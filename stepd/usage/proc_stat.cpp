#include "stepd/usage/proc_stat.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gantry::stepd {
namespace {

std::optional<std::string> readText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<ProcStat> parseProcStat(const std::string& text, uint64_t ticks_per_sec, uint64_t page_bytes) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open || ticks_per_sec == 0)
    return std::nullopt;
  ProcStat stat;
  try {
    stat.pid = static_cast<pid_t>(std::stol(text.substr(0, open)));
  } catch (...) {
    return std::nullopt;
  }
  // After the name: field 3 (state) onwards; field n is at position n - 3.
  std::istringstream rest(text.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  if (fields.size() < 22) return std::nullopt;
  auto number = [&](int field_no) -> std::optional<uint64_t> {
    const std::string& f = fields[field_no - 3];
    if (f.empty() || f.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoull(f);
  };
  auto pgrp = number(5), majflt = number(12), utime = number(14), stime = number(15), vsize = number(23),
       rss = number(24);
  if (!pgrp || !majflt || !utime || !stime || !vsize || !rss) return std::nullopt;
  stat.pgrp = static_cast<pid_t>(*pgrp);
  stat.major_faults = *majflt;
  stat.cpu_usec = (*utime + *stime) * 1000000 / ticks_per_sec;
  stat.vmem_bytes = *vsize;
  stat.rss_bytes = *rss * page_bytes;
  return stat;
}

uint64_t parseProcReadBytes(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("read_bytes:", 0) != 0) continue;
    try {
      return std::stoull(line.substr(11));
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

std::vector<ProcStat> processesInGroups(const std::string& proc_root, const std::vector<pid_t>& groups) {
  static const uint64_t ticks = static_cast<uint64_t>(::sysconf(_SC_CLK_TCK));
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  std::vector<ProcStat> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto text = readText(entry.path().string() + "/stat");
    if (!text) continue;
    auto stat = parseProcStat(*text, ticks, page);
    if (!stat || std::find(groups.begin(), groups.end(), stat->pgrp) == groups.end()) continue;
    if (auto io = readText(entry.path().string() + "/io")) stat->read_bytes = parseProcReadBytes(*io);
    found.push_back(*stat);
  }
  return found;
}

}  // namespace gantry::stepd
