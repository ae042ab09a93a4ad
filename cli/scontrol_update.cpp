#include "cli/scontrol_update.h"

#include <cctype>
#include <ctime>
#include <set>
#include <stdexcept>

#include "cli/array_ids.h"
#include "cli/parse_units.h"
#include "cli/sacct_time.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

bool startsWithKey(const std::string& word, const std::string& key) {
  if (word.size() <= key.size() || word[key.size()] != '=') return false;
  for (size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[i])) != key[i]) return false;
  }
  return true;
}

// Slurm's scontrol matches a key against a name case-insensitively by
// the key's length, at least `shortest` letters: "JobId", "jobid", "Job".
bool keyNames(const std::string& key, const std::string& name, size_t shortest) {
  if (key.size() < shortest || key.size() > name.size()) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(key[i])) != std::tolower(static_cast<unsigned char>(name[i]))) {
      return false;
    }
  }
  return true;
}

std::string keyOf(const std::string& word) { return word.substr(0, word.find('=')); }

// Gres=gpu:a100:2,nic:1 or TresPerNode=gres/gpu:a100:2,gres/nic:1 (the
// form scontrol show job prints); an empty value asks for none.
Result<gantry::v1::GresPerNode> parseGresPerNode(const std::string& key, const std::string& value) {
  gantry::v1::GresPerNode out;
  if (value.empty()) return out;
  std::string list;
  for (size_t at = 0; at <= value.size();) {
    size_t comma = value.find(',', at);
    std::string item = value.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (key == "TRESPERNODE") {
      if (item.rfind("gres/", 0) != 0) return Error{"Invalid TresPerNode value: " + value + " (each item gres/NAME[:TYPE]:COUNT)"};
      item = item.substr(5);
    }
    list += (list.empty() ? "" : ",") + item;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  auto items = parseGresList(list);
  if (!items) return Error{"Invalid generic resource (gres) specification: " + value + " (" + items.error() + ")"};
  for (const GresItem& item : *items) {
    auto* request = out.add_items();
    request->set_name(item.name);
    request->set_type(item.type);
    request->set_count(item.count);
  }
  return out;
}

}  // namespace

Result<gantry::v1::UpdateNodeRequest> parseNodeUpdate(const std::vector<std::string>& words) {
  static const std::set<std::string> kStates = {"DOWN", "DRAIN", "FAIL", "RESUME", "IDLE", "UNDRAIN",
                                                "RESUME_KEEP_TRES"};
  gantry::v1::UpdateNodeRequest request;
  for (const std::string& word : words) {
    size_t eq = word.find('=');
    if (eq == std::string::npos) {
      return Error{"update: '" + word + "' is not of the form Key=Value"};
    }
    std::string key = upper(word.substr(0, eq));
    std::string value = word.substr(eq + 1);
    if (key == "NODENAME" || key == "NODE") {
      request.set_node_names(value);
    } else if (key == "STATE") {
      std::string state = upper(value);
      if (!kStates.count(state)) {
        return Error{"update: State=" + value +
                     ": expected DOWN, DRAIN, FAIL, RESUME, RESUME_KEEP_TRES, IDLE or UNDRAIN"};
      }
      request.set_state(state);
    } else if (key == "REASON") {
      request.set_reason(value);
    } else {
      return Error{"update: unknown key '" + word.substr(0, eq) +
                   "': node updates take NodeName, State and Reason"};
    }
  }
  if (request.node_names().empty()) return Error{"update: NodeName=<nodes> is required"};
  if (request.state().empty() && request.reason().empty()) {
    return Error{"update: nothing to change; give State= and/or Reason="};
  }
  if ((request.state() == "DOWN" || request.state() == "DRAIN" || request.state() == "FAIL") &&
      request.reason().empty()) {
    return Error{"update: State=" + request.state() + " requires Reason=\"...\""};
  }
  return request;
}

Result<std::string> parseDrainedTresNodes(const std::vector<std::string>& rest) {
  if (rest.empty()) return std::string();
  if (rest.size() > 1) {
    return Error{"show drainedtres: give at most one host list, got " + std::to_string(rest.size()) + " words"};
  }
  std::string nodes = rest.front();
  if (startsWithKey(nodes, "nodename")) {
    nodes = nodes.substr(nodes.find('=') + 1);
  } else if (nodes.find('=') != std::string::npos) {
    return Error{"show drainedtres: unknown option '" + rest.front() +
                 "'; give a host list or NodeName=<hostlist>"};
  }
  if (nodes.empty()) return Error{"show drainedtres: NodeName= is empty"};
  if (auto names = hostlist::expand(nodes); !names) return Error{"show drainedtres: " + names.error()};
  return nodes;
}

bool isJobUpdate(const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    if (word.find('=') != std::string::npos && keyNames(keyOf(word), "JobId", 3)) return true;
  }
  return false;
}

Result<gantry::v1::UpdateJobRequest> parseJobUpdate(const std::vector<std::string>& words) {
  gantry::v1::UpdateJobRequest request;
  bool changes = false;
  for (const std::string& word : words) {
    size_t eq = word.find('=');
    if (eq == std::string::npos) return Error{"Invalid input: " + word};
    std::string key = upper(word.substr(0, eq));
    std::string value = word.substr(eq + 1);
    if (keyNames(key, "JobId", 3)) {
      // A job, a whole array, or some of its tasks ("12_4", "12_[1-3]").
      auto target = parseJobTarget(value);
      if (!target) return Error{"Invalid job id specified: " + value};
      request.set_job_id(target->id);
      request.set_array_tasks(target->tasks);
      continue;
    }
    changes = true;
    if (key == "TIMELIMIT") {
      auto minutes = parseTimeLimitMinutes(value);
      if (!minutes) return Error{"Invalid TimeLimit value"};
      request.set_time_limit_minutes(*minutes);
    } else if (key == "NAME" || key == "JOBNAME") {
      request.set_name(value);
    } else if (key == "COMMENT") {
      request.set_comment(value);
    } else if (key == "PRIORITY") {
      auto priority = parseCount(value, true);
      if (!priority) return Error{"Invalid Priority value: " + value};
      request.set_priority(*priority);
    } else if (key == "PARTITION") {
      if (value.empty()) return Error{"Invalid Partition value: (empty)"};
      request.set_partition(value);
    } else if (key == "NUMNODES" || key == "REQNODES") {
      auto range = parseNodeRange(value);
      // A job keeps one node count here (min = max), so a range must be one.
      if (!range || (range->max != 0 && range->max != range->min)) return Error{"Invalid NumNodes value: " + value};
      request.set_num_nodes(range->min);
    } else if (keyNames(key, "TresBind", 5)) {
      request.set_tres_bind(value);
    } else if (key == "DEPENDENCY") {
      request.set_dependency(value);  // the controller reads it; "" clears it
    } else if (key == "STARTTIME" || key == "BEGINTIME") {
      auto begin = parseSlurmTime(value, static_cast<int64_t>(std::time(nullptr)), TimeSense::Future);
      if (!begin) return Error{"Invalid StartTime value: " + begin.error()};
      request.set_begin_time(*begin);
    } else if (key == "NICE") {
      // As --nice: a bare Nice= is 100.
      auto nice = parseNice(value.empty() ? "100" : value);
      if (!nice) return Error{nice.failure()};
      request.set_nice(*nice);
    } else if (key == "ARRAYTASKTHROTTLE") {
      // How many of the array's tasks may run at once; 0: no limit.
      if (value.empty() || value.size() > 9 || value.find_first_not_of("0123456789") != std::string::npos) {
        return Error{"Invalid ArrayTaskThrottle value: " + value};
      }
      request.set_array_throttle(static_cast<uint32_t>(std::stoul(value)));
    } else if (key == "GRES" || key == "TRESPERNODE") {
      auto gres = parseGresPerNode(key, value);
      if (!gres) return Error{gres.failure()};
      *request.mutable_gres_per_node() = std::move(*gres);
    } else {
      return Error{"Update of this parameter is not supported: " + word};
    }
  }
  if (request.job_id() == 0) return Error{"update: JobId=<job id> is required"};
  if (!changes) return Error{"update: nothing to change for job " + std::to_string(request.job_id())};
  return request;
}

bool isTresUpdate(const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    if (upper(word.substr(0, word.find('='))) == "TRESNAME" && word.find('=') != std::string::npos) return true;
  }
  return false;
}

}  // namespace gantry::cli
