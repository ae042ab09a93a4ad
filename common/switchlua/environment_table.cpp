#include "common/switchlua/environment_table.h"

namespace gantry::switchlua {
namespace {

// Why `name` cannot be an environment variable, or "" when it can.
std::string badName(const std::string& name) {
  if (name.empty()) return "the name is empty";
  if (name.find('=') != std::string::npos) return "the name contains '='";
  if (name.find('\0') != std::string::npos) return "the name contains a NUL byte";
  return "";
}

}  // namespace

EnvironmentChanges environmentChanges(const std::vector<TableEntry>& entries) {
  EnvironmentChanges changes;
  auto skip = [&](const TableEntry& entry, const std::string& why) {
    changes.skipped.push_back("environment entry " + entry.keyText + " skipped: " + why);
  };
  for (const auto& entry : entries) {
    if (!entry.name) {
      skip(entry, "the name is a " + entry.keyType + ", not a string");
      continue;
    }
    if (std::string why = badName(*entry.name); !why.empty()) {
      skip(entry, why);
      continue;
    }
    switch (entry.kind) {
      case EntryValueKind::String:
      case EntryValueKind::Number:
        if (entry.text.find('\0') != std::string::npos) {
          skip(entry, "the value contains a NUL byte");
          break;
        }
        changes.set.emplace_back(*entry.name, entry.text);
        break;
      case EntryValueKind::True: changes.set.emplace_back(*entry.name, "1"); break;
      case EntryValueKind::False: changes.unset.push_back(*entry.name); break;
      case EntryValueKind::Other: skip(entry, "the value is a " + entry.valueType); break;
    }
  }
  return changes;
}

}  // namespace gantry::switchlua
