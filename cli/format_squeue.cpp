#include "cli/format_squeue.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>

#include "cli/array_ids.h"
#include "cli/job_fields.h"
#include "cli/time_format.h"

namespace gantry::cli {
namespace {

using gantry::v1::Job;
using JobValue = std::function<std::string(const Job&, int64_t now)>;

struct JobField {
  const char* code;  // "-o" letter, or "" when the field has none
  const char* name;  // "-O" name, lowercase
  const char* header;
  JobValue value;
};

std::string timeLimit(const Job& job) {
  if (job.time_limit_minutes() < 0) return "UNLIMITED";
  if (job.time_limit_minutes() == 0) return "NOT_SET";
  return formatLimitMinutes(job.time_limit_minutes(), "UNLIMITED");
}

std::string orNull(const std::string& text) { return text.empty() ? "(null)" : text; }

// The priority the scheduler orders by (priority/multifactor's), else the
// one an administrator set.
uint32_t shownPriority(const Job& job) {
  return job.priority() != 0 ? job.priority() : static_cast<uint32_t>(job.spec().priority());
}

std::string priorityFraction(uint32_t priority) {
  char text[32];
  std::snprintf(text, sizeof text, "%16.14f",
                static_cast<double>(static_cast<uint32_t>(priority)) / static_cast<double>(UINT32_MAX));
  return text;
}

const std::vector<JobField>& jobFields() {
  static const std::vector<JobField> fields = {
      // %i is the id as users name the record ("12_4", "12_[5-9]"); %A the
      // record's own job id, different for each task of an array.
      {"i", "jobarrayid", "JOBID", [](const Job& j, int64_t) { return arrayJobIdText(j); }},
      {"A", "jobid", "JOBID", [](const Job& j, int64_t) { return std::to_string(j.job_id()); }},
      {"F", "arrayjobid", "ARRAY_JOB_ID", [](const Job& j, int64_t) { return std::to_string(arrayJobIdOf(j)); }},
      {"K", "arraytaskid", "ARRAY_TASK_ID", [](const Job& j, int64_t) { return arrayTaskText(j); }},
      {"j", "name", "NAME", [](const Job& j, int64_t) { return j.spec().name(); }},
      {"u", "username", "USER", [](const Job& j, int64_t) { return j.user(); }},
      {"T", "state", "STATE", [](const Job& j, int64_t) { return jobStateName(j); }},
      {"t", "statecompact", "ST", [](const Job& j, int64_t) { return jobStateCompact(j); }},
      {"M", "timeused", "TIME",
       [](const Job& j, int64_t now) { return formatElapsedShort(jobRunSeconds(j, now)); }},
      {"D", "numnodes", "NODES", [](const Job& j, int64_t) { return std::to_string(jobNodeCount(j)); }},
      {"N", "nodelist", "NODELIST", [](const Job& j, int64_t) { return j.node_list(); }},
      {"n", "reqnodes", "REQ_NODES", [](const Job& j, int64_t) { return j.spec().required_nodes(); }},
      {"x", "excnodes", "EXC_NODES", [](const Job& j, int64_t) { return j.spec().excluded_nodes(); }},
      {"P", "partition", "PARTITION", [](const Job& j, int64_t) { return j.spec().partition(); }},
      {"R", "reasonlist", "NODELIST(REASON)",
       [](const Job& j, int64_t) { return jobNodeListOrReason(j); }},
      {"r", "reason", "REASON", [](const Job& j, int64_t) { return jobReason(j); }},
      {"l", "timelimit", "TIME_LIMIT", [](const Job& j, int64_t) { return timeLimit(j); }},
      {"C", "numcpus", "CPUS", [](const Job& j, int64_t) { return std::to_string(jobCpuCount(j)); }},
      {"b", "tres-per-node", "TRES_PER_NODE",
       [](const Job& j, int64_t) {
         std::string tres = jobTresPerNode(j);
         return tres.empty() ? std::string("N/A") : tres;
       }},
      {"V", "submittime", "SUBMIT_TIME",
       [](const Job& j, int64_t) { return formatTimestamp(j.submit_time(), "N/A"); }},
      // A pending job's expected start, when the backfill planned one.
      {"S", "starttime", "START_TIME",
       [](const Job& j, int64_t) {
         bool planned = j.state() == gantry::v1::PENDING && j.planned_start() > 0;
         return formatTimestamp(planned ? j.planned_start() : j.start_time(), "N/A");
       }},
      {"e", "endtime", "END_TIME",
       [](const Job& j, int64_t) { return formatTimestamp(j.end_time(), "N/A"); }},
      {"Z", "workdir", "WORK_DIR", [](const Job& j, int64_t) { return j.spec().work_dir(); }},
      {"U", "userid", "UID", [](const Job& j, int64_t) { return std::to_string(j.uid()); }},
      {"", "exitcode", "EXIT_CODE",
       [](const Job& j, int64_t) {
         return std::to_string(j.exit_code()) + ":" + std::to_string(j.term_signal());
       }},
      {"B", "batchhost", "EXEC_HOST",
       [](const Job& j, int64_t) { return j.batch_host().empty() ? "n/a" : j.batch_host(); }},
      {"a", "account", "ACCOUNT", [](const Job& j, int64_t) { return orNull(j.spec().account()); }},
      {"k", "comment", "COMMENT", [](const Job& j, int64_t) { return orNull(j.spec().comment()); }},
      // What is left of the job's --dependency, as the controller judges it.
      {"E", "dependency", "DEPENDENCY", [](const Job& j, int64_t) { return orNull(j.dependency()); }},
      // Slurm writes the priority as a fraction of the largest uint32 in
      // "-O priority" and as the number itself in "%Q" / prioritylong.
      {"p", "priority", "PRIORITY", [](const Job& j, int64_t) { return priorityFraction(shownPriority(j)); }},
      {"Q", "prioritylong", "PRIORITY", [](const Job& j, int64_t) { return std::to_string(shownPriority(j)); }},
      {"y", "nice", "NICE", [](const Job& j, int64_t) { return std::to_string(j.spec().nice()); }},
      // The nodes the backfill plans to start a pending job on (squeue --start).
      {"Y", "schednodes", "SCHEDNODES", [](const Job& j, int64_t) { return orNull(j.planned_nodes()); }},
      {"", "tres-alloc", "TRES_ALLOC",
       [](const Job& j, int64_t) {
         if (!j.alloc_tres().empty()) return j.alloc_tres();
         return j.req_tres().empty() ? std::string("N/A") : j.req_tres();
       }},
  };
  return fields;
}

// Both "-o" codes and "-O" names resolve to the field's "-O" name.
const JobField* findField(const std::string& key) {
  for (const JobField& field : jobFields()) {
    if (key == field.name || (field.code[0] != '\0' && key == field.code)) return &field;
  }
  if (key == "gres") return findField("tres-per-node");  // Slurm's older name
  return nullptr;
}

LineFormat builtInFormat(const std::string& format) { return parseSqueueFormat(format).value(); }

}  // namespace

std::vector<ColumnName> squeueColumns() {
  std::vector<ColumnName> columns;
  for (const JobField& field : jobFields()) columns.push_back({field.code, field.name, field.header});
  columns.push_back({"", "gres", findField("gres")->header});
  return columns;
}

LineFormat defaultSqueueFormat() { return builtInFormat("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"); }

LineFormat longSqueueFormat() { return builtInFormat("%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"); }

LineFormat startSqueueFormat() { return builtInFormat("%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"); }

bool squeueFormatNeedsTres(const LineFormat& format) {
  return std::any_of(format.fields.begin(), format.fields.end(), [](const FieldSpec& field) {
    const JobField* found = findField(field.key);
    return found != nullptr && std::string(found->name) == "tres-alloc";
  });
}

Result<LineFormat> parseSqueueFormat(const std::string& format) {
  return parsePercentFormat(
      format, [](const std::string& code) { return findField(code) != nullptr; },
      "-o/--format");
}

Result<LineFormat> parseSqueueFieldList(const std::string& list) {
  return parseFieldList(
      list,
      [](const std::string& name) {
        const JobField* field = findField(name);
        return field != nullptr && (name == field->name || name == "gres");
      },
      "-O/--Format");
}

std::string renderSqueue(const LineFormat& format, const std::vector<Job>& jobs,
                         const SqueueRenderOptions& options) {
  return renderTable<Job>(
      format, jobs, options.header,
      [](const std::string& key) { return std::string(findField(key)->header); },
      [&options](const std::string& key, const Job& job) {
        return findField(key)->value(job, options.now);
      });
}

}  // namespace gantry::cli
