#include "controller/core/accounting_codec.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/util/json_text.h"

namespace gantry::core {
namespace {

using nlohmann::json;

// The journal's rows are written on the state store's writer thread for
// every job persist, so they are appended straight into the text rather
// than built as a JSON tree first (which cost more than the SQLite work).
// Reading back, rare and off the hot path, still goes through the parser.
class ObjectWriter {
 public:
  ObjectWriter() = default;
  explicit ObjectWriter(std::string_view kind) { field("kind").string(kind); }

  ObjectWriter& field(std::string_view key) {
    out_ += first_ ? "{\"" : ",\"";
    first_ = false;
    out_ += key;
    out_ += "\":";
    return *this;
  }
  ObjectWriter& string(std::string_view text) {
    appendJsonString(out_, text);
    return *this;
  }
  template <typename Number>
  ObjectWriter& number(Number value) {
    char buffer[24];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out_.append(buffer, end);
    return *this;
  }
  ObjectWriter& exit(const accounting::ExitCode& exit) {
    out_ += '[';
    number(exit.code);
    out_ += ',';
    number(exit.signal);
    out_ += ']';
    return *this;
  }
  ObjectWriter& raw(std::string_view text) {
    out_ += text;
    return *this;
  }
  std::string finish() && {
    out_ += '}';
    return std::move(out_);
  }

 private:
  std::string out_;
  bool first_ = true;
};

std::string usageToJson(const accounting::TresUsageIn& u) {
  ObjectWriter out;
  out.field("min").string(u.min).field("min_node").string(u.minNode).field("min_task").string(u.minTask);
  out.field("max").string(u.max).field("max_node").string(u.maxNode).field("max_task").string(u.maxTask);
  out.field("ave").string(u.ave).field("tot").string(u.tot);
  return std::move(out).finish();
}

std::string jobToJson(const accounting::JobRecord& r) {
  ObjectWriter out("job");
  out.field("cluster").string(r.cluster).field("job_id").number(r.jobId).field("step_id").string(r.stepId);
  out.field("name").string(r.name).field("user").string(r.user).field("uid").number(r.uid);
  out.field("group").string(r.group).field("gid").number(r.gid).field("account").string(r.account);
  out.field("partition").string(r.partition).field("submit").number(r.submitTime);
  out.field("eligible").number(r.eligibleTime).field("start").number(r.startTime).field("end").number(r.endTime);
  out.field("state").string(r.state).field("exit").exit(r.exitCode).field("derived_exit").exit(r.derivedExitCode);
  out.field("nnodes").number(r.nodeCount).field("nodes").string(r.nodeList).field("alloc_cpus").number(r.allocCpus);
  out.field("req_tres").string(r.reqTres).field("alloc_tres").string(r.allocTres);
  out.field("usage_in").raw(usageToJson(r.usageIn));
  out.field("reason").string(r.reason).field("work_dir").string(r.workDir).field("comment").string(r.comment);
  if (r.timeLimitMinutes) out.field("time_limit").number(*r.timeLimitMinutes);
  if (r.cancelledByUid) out.field("cancelled_by").number(*r.cancelledByUid);
  if (r.arrayJobId != 0) out.field("array_job_id").number(r.arrayJobId).field("array_tasks").string(r.arrayTasks);
  if (r.arrayTaskId) out.field("array_task_id").number(*r.arrayTaskId);
  return std::move(out).finish();
}

std::string eventToJson(const accounting::NodeEvent& e) {
  ObjectWriter out("event");
  out.field("cluster").string(e.cluster).field("node").string(e.node).field("start").number(e.startTime);
  out.field("end").number(e.endTime).field("state").string(e.state).field("reason").string(e.reason);
  out.field("user").string(e.user).field("tres").string(e.tres).field("tres_reference").string(e.tresReference);
  return std::move(out).finish();
}

accounting::ExitCode exitFromJson(const json& value) {
  accounting::ExitCode exit;
  if (value.is_array() && value.size() == 2) {
    exit.code = value[0].get<int>();
    exit.signal = value[1].get<int>();
  }
  return exit;
}

accounting::JobRecord jobFromJson(const json& in) {
  accounting::JobRecord r;
  r.cluster = in.value("cluster", "");
  r.jobId = in.value("job_id", uint64_t{0});
  r.stepId = in.value("step_id", "");
  r.name = in.value("name", "");
  r.user = in.value("user", "");
  r.uid = in.value("uid", uint32_t{0});
  r.group = in.value("group", "");
  r.gid = in.value("gid", uint32_t{0});
  r.account = in.value("account", "");
  r.partition = in.value("partition", "");
  r.submitTime = in.value("submit", int64_t{0});
  r.eligibleTime = in.value("eligible", int64_t{0});
  r.startTime = in.value("start", int64_t{0});
  r.endTime = in.value("end", int64_t{0});
  if (in.contains("time_limit")) r.timeLimitMinutes = in["time_limit"].get<uint32_t>();
  r.state = in.value("state", "");
  if (in.contains("cancelled_by")) r.cancelledByUid = in["cancelled_by"].get<uint32_t>();
  if (in.contains("exit")) r.exitCode = exitFromJson(in["exit"]);
  if (in.contains("derived_exit")) r.derivedExitCode = exitFromJson(in["derived_exit"]);
  r.nodeCount = in.value("nnodes", uint32_t{0});
  r.nodeList = in.value("nodes", "");
  r.allocCpus = in.value("alloc_cpus", uint32_t{0});
  r.reqTres = in.value("req_tres", "");
  r.allocTres = in.value("alloc_tres", "");
  if (in.contains("usage_in") && in["usage_in"].is_object()) {
    const json& u = in["usage_in"];
    r.usageIn = {u.value("min", ""), u.value("min_node", ""), u.value("min_task", ""), u.value("max", ""),
                 u.value("max_node", ""), u.value("max_task", ""), u.value("ave", ""), u.value("tot", "")};
  }
  r.reason = in.value("reason", "");
  r.workDir = in.value("work_dir", "");
  r.comment = in.value("comment", "");
  r.arrayJobId = in.value("array_job_id", uint64_t{0});
  r.arrayTasks = in.value("array_tasks", "");
  if (in.contains("array_task_id")) r.arrayTaskId = in["array_task_id"].get<uint32_t>();
  return r;
}

accounting::NodeEvent eventFromJson(const json& in) {
  return {.cluster = in.value("cluster", ""),
          .node = in.value("node", ""),
          .startTime = in.value("start", int64_t{0}),
          .endTime = in.value("end", int64_t{0}),
          .state = in.value("state", ""),
          .reason = in.value("reason", ""),
          .user = in.value("user", ""),
          .tres = in.value("tres", ""),
          .tresReference = in.value("tres_reference", "")};
}

}  // namespace

std::string encodeAccountingEntry(const AccountingEntry& entry) {
  if (const auto* job = std::get_if<accounting::JobRecord>(&entry)) return jobToJson(*job);
  return eventToJson(std::get<accounting::NodeEvent>(entry));
}

Result<AccountingEntry> decodeAccountingEntry(const std::string& text) {
  try {
    json in = json::parse(text);
    if (!in.is_object()) return Error{ErrorCode::Invalid, "not a JSON object"};
    std::string kind = in.value("kind", "");
    if (kind == "job") return AccountingEntry{jobFromJson(in)};
    if (kind == "event") return AccountingEntry{eventFromJson(in)};
    return Error{ErrorCode::Invalid, "unknown record kind '" + kind + "'"};
  } catch (const json::exception& e) {
    return Error{ErrorCode::Invalid, std::string("not a record: ") + e.what()};
  }
}

}  // namespace gantry::core
