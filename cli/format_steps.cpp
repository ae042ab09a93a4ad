#include "cli/format_steps.h"

#include <functional>

#include "cli/time_format.h"

namespace gantry::cli {
namespace {

using StepValue = std::function<std::string(const StepRow&, int64_t now)>;

struct StepField {
  const char* code;  // "-o" letter, or "" when the field has none
  const char* name;  // "-O" name, lowercase
  const char* header;
  StepValue value;
};

// Steps carry no time limit of their own yet; Slurm prints this for a step
// without one.
constexpr const char* kNoStepLimit = "UNLIMITED";

const std::vector<StepField>& stepFields() {
  static const std::vector<StepField> fields = {
      {"i", "stepid", "STEPID", [](const StepRow& s, int64_t) { return stepIdText(s); }},
      {"", "jobid", "JOBID", [](const StepRow& s, int64_t) { return std::to_string(s.jobId); }},
      {"j", "stepname", "NAME", [](const StepRow& s, int64_t) { return s.step.name(); }},
      {"P", "partition", "PARTITION", [](const StepRow& s, int64_t) { return s.partition; }},
      {"u", "username", "USER", [](const StepRow& s, int64_t) { return s.user; }},
      {"U", "userid", "UID", [](const StepRow& s, int64_t) { return std::to_string(s.uid); }},
      {"M", "timeused", "TIME",
       [](const StepRow& s, int64_t now) { return formatElapsedShort(stepRunSeconds(s.step, now)); }},
      {"N", "nodes", "NODELIST", [](const StepRow& s, int64_t) { return s.step.node_list(); }},
      {"A", "numtasks", "TASKS",
       [](const StepRow& s, int64_t) { return std::to_string(s.step.ntasks()); }},
      {"", "numcpus", "NUM_CPUS",
       [](const StepRow& s, int64_t) { return std::to_string(stepCpuCount(s.step)); }},
      {"S", "starttime", "START_TIME",
       [](const StepRow& s, int64_t) { return formatTimestamp(s.step.start_time(), "N/A"); }},
      {"l", "timelimit", "TIME_LIMIT", [](const StepRow&, int64_t) { return kNoStepLimit; }},
      {"", "stepstate", "STATE", [](const StepRow& s, int64_t) { return stepStateName(s.step); }},
  };
  return fields;
}

// Both "-o" codes and "-O" names resolve to the field.
const StepField* findField(const std::string& key) {
  for (const StepField& field : stepFields()) {
    if (key == field.name || (field.code[0] != '\0' && key == field.code)) return &field;
  }
  return nullptr;
}

}  // namespace

std::vector<ColumnName> stepColumns() {
  std::vector<ColumnName> columns;
  for (const StepField& field : stepFields()) columns.push_back({field.code, field.name, field.header});
  return columns;
}

LineFormat defaultStepFormat() { return parseStepFormat("%.15i %.8j %.9P %.8u %.9M %N").value(); }

Result<LineFormat> parseStepFormat(const std::string& format) {
  return parsePercentFormat(
      format, [](const std::string& code) { return code.size() == 1 && findField(code) != nullptr; },
      "-o/--format");
}

Result<LineFormat> parseStepFieldList(const std::string& list) {
  return parseFieldList(
      list,
      [](const std::string& name) {
        const StepField* field = findField(name);
        return field != nullptr && name == field->name;
      },
      "-O/--Format");
}

std::string renderSteps(const LineFormat& format, const std::vector<StepRow>& steps,
                        const StepRenderOptions& options) {
  return renderTable<StepRow>(
      format, steps, options.header,
      [](const std::string& key) { return std::string(findField(key)->header); },
      [&options](const std::string& key, const StepRow& row) {
        return findField(key)->value(row, options.now);
      });
}

}  // namespace gantry::cli
