#include "cli/sacctmgr_event.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <sstream>

#include "cli/sacct_time.h"
#include "cli/time_format.h"

namespace gantry::cli {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::vector<std::string> commaItems(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// `word` names `name` when it begins it and is at least `least` long (so
// "Start" and "TimeS" both name TimeStart, as in sacctmgr).
bool names(const std::string& word, const std::string& name, size_t least) {
  std::string w = lower(word);
  return w.size() >= least && w.size() <= name.size() && lower(name).compare(0, w.size(), w) == 0;
}

struct FieldName {
  const char* key;
  const char* alias;  // a shorter name sacctmgr also takes; "" for none
  size_t least;       // letters needed of the key
  size_t aliasLeast;
  TableColumn column;
};

const std::vector<FieldName>& fieldNames() {
  static const std::vector<FieldName> table = {
      {"Cluster", "", 2, 0, {"Cluster", 10, CellKind::Text}},
      {"NodeName", "", 5, 0, {"NodeName", -15, CellKind::Text}},
      {"TimeStart", "Start", 7, 3, {"TimeStart", 19, CellKind::Date}},
      {"TimeEnd", "End", 6, 2, {"TimeEnd", 19, CellKind::Date}},
      {"State", "", 1, 0, {"State", 6, CellKind::Text}},
      {"Reason", "", 1, 0, {"Reason", 30, CellKind::Text}},
      {"User", "", 1, 0, {"User", 10, CellKind::Text}},
      {"TRES", "", 2, 0, {"TRES", 20, CellKind::Text}},
      {"TresReference", "", 4, 0, {"TresReference", 20, CellKind::Text}},
      {"Duration", "", 2, 0, {"Duration", 13, CellKind::Text}},
  };
  return table;
}

Result<EventField> eventField(const std::string& item) {
  std::string name = item;
  std::optional<int> width;
  if (size_t percent = item.find('%'); percent != std::string::npos) {
    name = item.substr(0, percent);
    try {
      size_t used = 0;
      std::string digits = item.substr(percent + 1);
      width = std::stoi(digits, &used);
      if (used != digits.size() || *width == 0) throw std::invalid_argument(digits);
    } catch (const std::exception&) {
      return Error{"Format: invalid width in '" + item + "'"};
    }
  }
  for (const FieldName& field : fieldNames()) {
    bool matched = names(name, field.key, field.least) ||
                   (*field.alias != '\0' && names(name, field.alias, field.aliasLeast));
    if (!matched) continue;
    EventField out{.key = field.key, .column = field.column};
    if (width) out.column.width = *width;
    return out;
  }
  return Error{"Format: unknown field '" + name +
               "' (Cluster, NodeName, TimeStart, TimeEnd, State, Reason, User, TRES, TresReference, Duration)"};
}

// sacctmgr's node states, by name or the start of one.
std::optional<std::string> eventState(const std::string& word) {
  static const std::vector<std::string> kStates = {"DOWN", "DRAIN", "DEGRADED", "FAIL", "FUTURE", "REBOOT",
                                                    "MAINT", "UNKNOWN", "POWERED_DOWN"};
  std::string wanted = upper(word);
  if (wanted.empty()) return std::nullopt;
  for (const std::string& state : kStates) {
    if (state == wanted) return state;
  }
  for (const std::string& state : kStates) {
    if (wanted.size() >= 3 && state.compare(0, wanted.size(), wanted) == 0) return state;
  }
  return std::nullopt;
}

std::string cell(const std::string& key, const v1::AccountingNodeEvent& event, int64_t now) {
  if (key == "Cluster") return event.cluster();
  if (key == "NodeName") return event.node();
  if (key == "TimeStart") return formatTimestamp(event.start_time(), "Unknown");
  if (key == "TimeEnd") return formatTimestamp(event.end_time(), "Unknown");
  if (key == "State") return event.state();
  if (key == "Reason") return event.reason();
  if (key == "User") return event.user();
  if (key == "TRES") return event.tres();
  if (key == "TresReference") return event.tres_reference();
  if (key == "Duration") {
    int64_t end = event.end_time() != 0 ? event.end_time() : now;
    return formatElapsedLong(end - event.start_time());
  }
  return "";
}

}  // namespace

Result<EventPlan> planEventQuery(const std::vector<std::string>& words, int64_t now) {
  EventPlan plan;
  auto& request = plan.request;
  std::optional<int64_t> start, end;
  bool allTime = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (i == 0 && lower(word) == "where") continue;
    size_t equals = word.find('=');
    std::string key = word.substr(0, equals);
    std::string value = equals == std::string::npos ? "" : word.substr(equals + 1);
    if (equals == std::string::npos) {
      if (names(key, "All_Time", 5)) {
        allTime = true;
      } else if (names(key, "All_Clusters", 5)) {
        request.set_all_clusters(true);
      } else {
        return Error{"unknown condition '" + word + "' for show event"};
      }
      continue;
    }
    if (names(key, "Nodes", 1)) {
      request.set_nodes(value);
    } else if (names(key, "States", 4)) {
      for (const std::string& item : commaItems(value)) {
        auto state = eventState(item);
        if (!state) return Error{"States: invalid node state '" + item + "'"};
        request.add_states(*state);
      }
    } else if (names(key, "Start", 3) || names(key, "End", 1)) {
      bool isStart = names(key, "Start", 3);
      auto parsed = parseSacctTime(value, now);
      if (!parsed) return Error{(isStart ? "Start: " : "End: ") + parsed.error()};
      (isStart ? start : end) = *parsed;
    } else if (names(key, "Clusters", 2)) {
      for (const std::string& item : commaItems(value)) request.add_clusters(item);
    } else if (names(key, "CondFlags", 2)) {
      for (const std::string& item : commaItems(value)) {
        if (lower(item) != "open") return Error{"CondFlags: unknown flag '" + item + "' (Open)"};
        request.set_open_only(true);
      }
    } else if (names(key, "Format", 1)) {
      for (const std::string& item : commaItems(value)) {
        auto field = eventField(item);
        if (!field) return field.failure();
        plan.fields.push_back(std::move(*field));
      }
    } else {
      return Error{"unknown condition '" + word + "' for show event"};
    }
  }
  if (!allTime && !start) start = request.states_size() > 0 ? now : startOfYesterday(now);
  if (start || end) {
    int64_t from = start.value_or(0);
    int64_t to = end.value_or(std::numeric_limits<int64_t>::max());
    if (from > to) return Error{"Start is after End"};
    request.mutable_window()->set_start(from);
    request.mutable_window()->set_end(to);
  }
  if (plan.fields.empty()) {
    for (const char* name : {"Cluster", "NodeName", "TimeStart", "TimeEnd", "State", "Reason", "User"}) {
      plan.fields.push_back(*eventField(name));
    }
  }
  return plan;
}

std::vector<std::string> eventFieldNames() {
  std::vector<std::string> names;
  for (const FieldName& field : fieldNames()) {
    names.push_back(field.alias[0] == '\0' ? std::string(field.key)
                                             : std::string(field.key) + " (" + field.alias + ")");
  }
  return names;
}

std::string renderEvents(const std::vector<EventField>& fields, const std::vector<v1::AccountingNodeEvent>& events,
                         const TableStyle& style, int64_t now) {
  std::vector<TableColumn> columns;
  for (const EventField& field : fields) columns.push_back(field.column);
  std::vector<std::vector<std::string>> rows;
  for (const auto& event : events) {
    std::vector<std::string> row;
    for (const EventField& field : fields) row.push_back(cell(field.key, event, now));
    rows.push_back(std::move(row));
  }
  return renderAccountingTable(columns, rows, style);
}

}  // namespace gantry::cli
