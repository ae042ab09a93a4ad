#include "cli/sacct_fields.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>

#include "cli/time_format.h"

namespace gantry::cli {
namespace {

using Job = v1::AccountingJob;
using CellOf = std::function<std::string(const Job&, const SacctCellContext&)>;

struct FieldDef {
  const char* name;
  int width;  // Slurm's default; negative: left-justified
  CellKind kind;
  CellOf cell;
};

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The job's own id, with its step.
std::string jobIdRaw(const Job& job) {
  return job.step_id().empty() ? std::to_string(job.job_id()) : std::to_string(job.job_id()) + "." + job.step_id();
}

// As users name it: an array task is 12_4 (12_4.batch), the array's record
// of tasks not yet started 12_[5-99].
std::string jobId(const Job& job) {
  std::string id;
  if (job.has_array_task()) {
    id = std::to_string(job.array_job_id()) + "_" + std::to_string(job.array_task_id());
  } else if (job.array_job_id() != 0) {
    id = std::to_string(job.array_job_id()) + "_[" + job.array_tasks() + "]";
  } else {
    id = std::to_string(job.job_id());
  }
  return job.step_id().empty() ? id : id + "." + job.step_id();
}

int64_t elapsedSeconds(const Job& job, int64_t now) {
  if (job.start_time() == 0) return 0;
  int64_t end = job.end_time() != 0 ? job.end_time() : now;
  return std::max<int64_t>(0, end - job.start_time());
}

std::string exitCode(const v1::AccountingExitCode& code) {
  return std::to_string(code.code()) + ":" + std::to_string(code.signal());
}

std::string state(const Job& job) {
  if (job.has_cancelled_by() && job.state() == "CANCELLED") {
    return job.state() + " by " + std::to_string(job.cancelled_by_uid());
  }
  return job.state();
}

std::string timeLimit(const Job& job) {
  // A step without a limit of its own shows none; a job without one is UNLIMITED.
  if (!job.has_time_limit()) return job.step_id().empty() ? "UNLIMITED" : "";
  return formatElapsedLong(static_cast<int64_t>(job.time_limit_minutes()) * 60);
}

// "00:00:11", "1-02:03:04" -> seconds.
std::optional<int64_t> cpuSeconds(const std::string& text) {
  int64_t days = 0, h = 0, m = 0, s = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%ld-%ld:%ld:%ld%c", &days, &h, &m, &s, &tail) == 4) {
    return ((days * 24 + h) * 60 + m) * 60 + s;
  }
  if (std::sscanf(text.c_str(), "%ld:%ld:%ld%c", &h, &m, &s, &tail) == 3) return (h * 60 + m) * 60 + s;
  return std::nullopt;
}

// "628748K" -> bytes; a bare number is bytes.
std::optional<double> memoryBytes(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string suffix = text.substr(used);
  const std::string units = "KMGTP";
  if (suffix.empty()) return value;
  if (suffix.size() != 1 || units.find(suffix[0]) == std::string::npos) return std::nullopt;
  return value * std::pow(1024.0, static_cast<double>(units.find(suffix[0]) + 1));
}

CellOf usageCpu(const std::string& (Job::*usage)() const) {
  return [usage](const Job& job, const SacctCellContext&) -> std::string {
    auto entry = tresEntry((job.*usage)(), "cpu");
    if (!entry) return "";
    auto seconds = cpuSeconds(*entry);
    return seconds ? formatElapsedLong(*seconds) : *entry;
  };
}

CellOf usageMemory(const std::string& (Job::*usage)() const) {
  return [usage](const Job& job, const SacctCellContext& context) -> std::string {
    auto entry = tresEntry((job.*usage)(), "mem");
    if (!entry) return "";
    auto bytes = memoryBytes(*entry);
    return bytes ? formatMemory(*bytes, context.units) : *entry;
  };
}

CellOf usageText(const std::string& (Job::*usage)() const, const char* tres) {
  return [usage, tres](const Job& job, const SacctCellContext&) -> std::string {
    return tresEntry((job.*usage)(), tres).value_or("");
  };
}

CellOf text(const std::string& (Job::*get)() const) {
  return [get](const Job& job, const SacctCellContext&) { return (job.*get)(); };
}

template <typename Number>
CellOf number(Number (Job::*get)() const) {
  return [get](const Job& job, const SacctCellContext&) { return std::to_string((job.*get)()); };
}

CellOf date(int64_t (Job::*get)() const) {
  return [get](const Job& job, const SacctCellContext&) { return formatTimestamp((job.*get)(), "Unknown"); };
}

const std::vector<FieldDef>& fieldTable() {
  using K = CellKind;
  using C = const SacctCellContext&;
  static const std::vector<FieldDef> table = {
      {"Account", 10, K::Text, text(&Job::account)},
      {"AllocCPUS", 10, K::Number, number(&Job::alloc_cpus)},
      {"AllocTRES", 10, K::Text, text(&Job::alloc_tres)},
      {"AveCPU", 10, K::Text, usageCpu(&Job::tres_usage_in_ave)},
      {"AveRSS", 10, K::Text, usageMemory(&Job::tres_usage_in_ave)},
      {"Cluster", 10, K::Text, text(&Job::cluster)},
      {"Comment", 14, K::Text, text(&Job::comment)},
      {"DerivedExitCode", 15, K::Text, [](const Job& j, C) { return exitCode(j.derived_exit_code()); }},
      {"Elapsed", 10, K::Text, [](const Job& j, C c) { return formatElapsedLong(elapsedSeconds(j, c.now)); }},
      {"ElapsedRaw", 10, K::Number, [](const Job& j, C c) { return std::to_string(elapsedSeconds(j, c.now)); }},
      {"Eligible", 19, K::Date, date(&Job::eligible_time)},
      {"End", 19, K::Date, date(&Job::end_time)},
      {"ExitCode", 8, K::Text, [](const Job& j, C) { return exitCode(j.exit_code()); }},
      {"GID", 6, K::Number, number(&Job::gid)},
      {"Group", 9, K::Text, text(&Job::group)},
      {"JobID", -12, K::Text, [](const Job& j, C) { return jobId(j); }},
      {"JobIDRaw", -12, K::Text, [](const Job& j, C) { return jobIdRaw(j); }},
      {"JobName", 10, K::Text, text(&Job::name)},
      {"MaxRSS", 10, K::Text, usageMemory(&Job::tres_usage_in_max)},
      {"MaxRSSNode", 10, K::Text, usageText(&Job::tres_usage_in_max_node, "mem")},
      {"MaxRSSTask", 10, K::Number, usageText(&Job::tres_usage_in_max_task, "mem")},
      {"MinCPU", 10, K::Text, usageCpu(&Job::tres_usage_in_min)},
      {"NCPUS", 10, K::Number, number(&Job::alloc_cpus)},
      {"NNodes", 8, K::Number, number(&Job::node_count)},
      {"NodeList", 15, K::Text,
       [](const Job& j, C) { return j.node_list().empty() ? std::string("None assigned") : j.node_list(); }},
      {"Partition", 10, K::Text, text(&Job::partition)},
      {"Reason", 22, K::Text, text(&Job::reason)},
      {"ReqTRES", 10, K::Text, text(&Job::req_tres)},
      {"Start", 19, K::Date, date(&Job::start_time)},
      {"State", 10, K::Text, [](const Job& j, C) { return state(j); }},
      {"Submit", 19, K::Date, date(&Job::submit_time)},
      {"Timelimit", 10, K::Text, [](const Job& j, C) { return timeLimit(j); }},
      {"TotalCPU", 10, K::Text, usageCpu(&Job::tres_usage_in_tot)},
      {"TRESUsageInAve", 14, K::Text, text(&Job::tres_usage_in_ave)},
      {"TRESUsageInMax", 14, K::Text, text(&Job::tres_usage_in_max)},
      {"TRESUsageInMaxNode", 18, K::Text, text(&Job::tres_usage_in_max_node)},
      {"TRESUsageInMaxTask", 18, K::Text, text(&Job::tres_usage_in_max_task)},
      {"TRESUsageInMin", 14, K::Text, text(&Job::tres_usage_in_min)},
      {"TRESUsageInMinNode", 18, K::Text, text(&Job::tres_usage_in_min_node)},
      {"TRESUsageInMinTask", 18, K::Text, text(&Job::tres_usage_in_min_task)},
      {"TRESUsageInTot", 14, K::Text, text(&Job::tres_usage_in_tot)},
      {"UID", 6, K::Number, number(&Job::uid)},
      {"User", 9, K::Text, text(&Job::user)},
      {"WorkDir", 20, K::Text, text(&Job::work_dir)},
  };
  return table;
}

// Exact name first, then the first field (in table order) the name begins.
const FieldDef* findField(const std::string& asked) {
  std::string wanted = lower(asked);
  if (wanted.empty()) return nullptr;
  for (const FieldDef& field : fieldTable()) {
    if (lower(field.name) == wanted) return &field;
  }
  for (const FieldDef& field : fieldTable()) {
    if (lower(field.name).compare(0, wanted.size(), wanted) == 0) return &field;
  }
  return nullptr;
}

SacctField fieldOf(const FieldDef& def) {
  return SacctField{.name = def.name, .column = TableColumn{.title = def.name, .width = def.width, .kind = def.kind}};
}

}  // namespace

void fillGroupNames(std::vector<v1::AccountingJob>& jobs, const std::function<std::string(uint32_t)>& groupName) {
  // One lookup per gid: a query may return a million rows of a few groups.
  std::map<uint32_t, std::string> names;
  for (auto& job : jobs) {
    if (!job.group().empty()) continue;
    auto [at, added] = names.try_emplace(job.gid());
    if (added) at->second = groupName(job.gid());
    job.set_group(at->second);
  }
}

std::optional<std::string> tresEntry(const std::string& tres, const std::string& name) {
  std::stringstream in(tres);
  std::string pair;
  while (std::getline(in, pair, ',')) {
    size_t equals = pair.find('=');
    if (equals != std::string::npos && pair.compare(0, equals, name) == 0 && equals == name.size()) {
      return pair.substr(equals + 1);
    }
  }
  return std::nullopt;
}

std::string formatMemory(double bytes, std::optional<char> unit) {
  static const std::string kUnits = "KMGTP";
  if (static_cast<int64_t>(bytes) == 0) return "0";
  int level = 0;  // 0: bytes, 1: K, ...
  if (unit) {
    int wanted = static_cast<int>(kUnits.find(*unit)) + 1;
    for (; level < wanted; ++level) bytes /= 1024;
  } else {
    while (bytes >= 1024 && static_cast<uint64_t>(bytes) % 512 == 0) {
      bytes /= 1024;
      ++level;
    }
  }
  char buf[64];
  std::string suffix = level == 0 ? "" : std::string(1, kUnits[static_cast<size_t>(level - 1)]);
  if (static_cast<double>(static_cast<uint64_t>(bytes)) == bytes) {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f", bytes);
  }
  return buf + suffix;
}

std::vector<SacctField> defaultSacctFields() {
  std::vector<SacctField> fields;
  for (const char* name : {"JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode"}) {
    fields.push_back(fieldOf(*findField(name)));
  }
  return fields;
}

Result<std::vector<SacctField>> parseSacctFields(const std::vector<std::string>& formats) {
  std::vector<SacctField> fields;
  for (const std::string& format : formats) {
    std::stringstream in(format);
    std::string item;
    while (std::getline(in, item, ',')) {
      if (item.empty()) continue;
      std::string name = item;
      std::optional<int> width;
      if (size_t percent = item.find('%'); percent != std::string::npos) {
        name = item.substr(0, percent);
        std::string digits = item.substr(percent + 1);
        try {
          size_t used = 0;
          width = std::stoi(digits, &used);
          if (used != digits.size() || *width == 0 || std::abs(*width) > 1000) throw std::invalid_argument(digits);
        } catch (const std::exception&) {
          return Error{"--format: invalid width '" + digits + "' in \"" + item + "\""};
        }
      }
      const FieldDef* def = findField(name);
      if (def == nullptr) return Error{"--format: invalid field requested: \"" + name + "\" (see --helpformat)"};
      SacctField field = fieldOf(*def);
      if (width) field.column.width = *width;
      fields.push_back(std::move(field));
    }
  }
  if (fields.empty()) return Error{"--format: no fields given"};
  return fields;
}

std::vector<std::string> sacctFieldNames() {
  std::vector<std::string> names;
  for (const FieldDef& field : fieldTable()) names.emplace_back(field.name);
  return names;
}

std::string sacctHelpFormat() {
  std::string out;
  int onLine = 0;
  for (const FieldDef& field : fieldTable()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%-20s", field.name);
    out += buf;
    if (++onLine == 4) {
      out.erase(out.find_last_not_of(' ') + 1);
      out += "\n";
      onLine = 0;
    }
  }
  if (onLine != 0) {
    out.erase(out.find_last_not_of(' ') + 1);
    out += "\n";
  }
  return out;
}

std::string sacctCell(const std::string& field, const v1::AccountingJob& job, const SacctCellContext& context) {
  const FieldDef* def = findField(field);
  return def == nullptr ? std::string() : def->cell(job, context);
}

std::string renderSacct(const std::vector<SacctField>& fields, const std::vector<v1::AccountingJob>& jobs,
                        const TableStyle& style, const SacctCellContext& context) {
  std::vector<TableColumn> columns;
  for (const SacctField& field : fields) columns.push_back(field.column);
  std::vector<std::vector<std::string>> rows;
  for (const auto& job : jobs) {
    std::vector<std::string> row;
    for (const SacctField& field : fields) row.push_back(sacctCell(field.name, job, context));
    rows.push_back(std::move(row));
  }
  return renderAccountingTable(columns, rows, style);
}

}  // namespace gantry::cli
