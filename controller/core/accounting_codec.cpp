#include "controller/core/accounting_codec.h"

#include <nlohmann/json.hpp>

namespace gantry::core {
namespace {

using nlohmann::json;

json exitToJson(const accounting::ExitCode& exit) { return json::array({exit.code, exit.signal}); }

accounting::ExitCode exitFromJson(const json& value) {
  accounting::ExitCode exit;
  if (value.is_array() && value.size() == 2) {
    exit.code = value[0].get<int>();
    exit.signal = value[1].get<int>();
  }
  return exit;
}

json jobToJson(const accounting::JobRecord& r) {
  json usage = {{"min", r.usageIn.min}, {"min_node", r.usageIn.minNode}, {"min_task", r.usageIn.minTask},
                {"max", r.usageIn.max}, {"max_node", r.usageIn.maxNode}, {"max_task", r.usageIn.maxTask},
                {"ave", r.usageIn.ave}, {"tot", r.usageIn.tot}};
  json out = {{"kind", "job"},
              {"cluster", r.cluster},
              {"job_id", r.jobId},
              {"step_id", r.stepId},
              {"name", r.name},
              {"user", r.user},
              {"uid", r.uid},
              {"group", r.group},
              {"gid", r.gid},
              {"account", r.account},
              {"partition", r.partition},
              {"submit", r.submitTime},
              {"eligible", r.eligibleTime},
              {"start", r.startTime},
              {"end", r.endTime},
              {"state", r.state},
              {"exit", exitToJson(r.exitCode)},
              {"derived_exit", exitToJson(r.derivedExitCode)},
              {"nnodes", r.nodeCount},
              {"nodes", r.nodeList},
              {"alloc_cpus", r.allocCpus},
              {"req_tres", r.reqTres},
              {"alloc_tres", r.allocTres},
              {"usage_in", usage},
              {"reason", r.reason},
              {"work_dir", r.workDir},
              {"comment", r.comment}};
  if (r.timeLimitMinutes) out["time_limit"] = *r.timeLimitMinutes;
  if (r.cancelledByUid) out["cancelled_by"] = *r.cancelledByUid;
  return out;
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
  return r;
}

json eventToJson(const accounting::NodeEvent& e) {
  return {{"kind", "event"}, {"cluster", e.cluster}, {"node", e.node},     {"start", e.startTime},
          {"end", e.endTime}, {"state", e.state},     {"reason", e.reason}, {"user", e.user},
          {"tres", e.tres},   {"tres_reference", e.tresReference}};
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
  if (const auto* job = std::get_if<accounting::JobRecord>(&entry)) return jobToJson(*job).dump();
  return eventToJson(std::get<accounting::NodeEvent>(entry)).dump();
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
