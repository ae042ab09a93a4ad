#include "cli/node_state_filter.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace gantry::cli {
namespace {

using gantry::v1::NodeBaseState;

struct NameRow {
  const char* name;
  const char* shortName;  // nullptr: none
  StateName state;
};

// Slurm's order of trial: base states first, then the flag states.
constexpr NameRow kNames[] = {
    {"unknown", "unk", StateName::kUnknown},
    {"down", nullptr, StateName::kDown},
    {"idle", nullptr, StateName::kIdle},
    {"allocated", "alloc", StateName::kAllocated},
    {"error", "err", StateName::kError},
    {"mixed", "mix", StateName::kMixed},
    {"future", "futr", StateName::kFuture},
    {"blocked", "block", StateName::kBlocked},
    {"planned", "plnd", StateName::kPlanned},
    {"drain", nullptr, StateName::kDrain},
    {"drained", nullptr, StateName::kDrained},
    {"reserved", "resv", StateName::kReserved},
    {"draining", "drng", StateName::kDraining},
    {"completing", "comp", StateName::kCompleting},
    {"no_respond", nullptr, StateName::kNoRespond},
    {"powering_down", nullptr, StateName::kPower},
    {"powered_down", nullptr, StateName::kPower},
    {"power_down", nullptr, StateName::kPower},
    {"powering_up", nullptr, StateName::kPower},
    {"fail", nullptr, StateName::kFail},
    {"maint", nullptr, StateName::kMaint},
    {"reboot_requested", nullptr, StateName::kReboot},
    {"reboot_issued", nullptr, StateName::kReboot},
    {"cloud", nullptr, StateName::kCloud},
};

bool startsWithFolded(const char* name, std::string_view typed) {
  if (name == nullptr) return false;
  std::string_view full(name);
  if (typed.size() > full.size()) return false;
  for (size_t i = 0; i < typed.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(typed[i])) != full[i]) return false;
  }
  return true;
}

bool hasFlag(uint32_t flags, gantry::v1::NodeStateFlag flag) { return (flags & static_cast<uint32_t>(flag)) != 0; }

// Work on the node, running or finishing: what makes a drain "draining"
// (the same rule sinfo's state words use).
bool hasWork(NodeBaseState base, uint32_t flags) {
  return base == gantry::v1::NODE_ALLOCATED || base == gantry::v1::NODE_MIXED ||
         base == gantry::v1::NODE_COMPLETING || hasFlag(flags, gantry::v1::NODE_FLAG_COMPLETING);
}

}  // namespace

Result<NodeStateFilter> parseNodeStateFilter(const std::string& list) {
  NodeStateFilter filter;
  std::string folded = list;
  std::transform(folded.begin(), folded.end(), folded.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (folded == "all") return filter;
  filter.everyStateMustMatch = list.find_first_of("&+") != std::string::npos;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(",&+", start);
    if (end == std::string::npos) end = list.size();
    std::string_view token(list.data() + start, end - start);
    bool negated = !token.empty() && (token.front() == '~' || token.front() == '!');
    if (negated) token.remove_prefix(1);
    if (!token.empty()) {
      const NameRow* found = nullptr;
      for (const NameRow& row : kNames) {
        if (startsWithFolded(row.name, token) || startsWithFolded(row.shortName, token)) {
          found = &row;
          break;
        }
      }
      if (found == nullptr) return Error{"Bad state string: \"" + std::string(token) + "\""};
      filter.terms.push_back(StateTerm{found->state, negated});
    }
    start = end + 1;
  }
  if (filter.terms.empty()) return Error{"Bad state string: \"" + list + "\""};
  return filter;
}

std::string validNodeStateNames() {
  std::string out;
  for (const NameRow& row : kNames) out += (out.empty() ? "" : ",") + std::string(row.name);
  return out;
}

bool nodeMatchesState(StateName state, NodeBaseState base, uint32_t flags) {
  bool drain = hasFlag(flags, gantry::v1::NODE_FLAG_DRAIN);
  switch (state) {
    case StateName::kUnknown: return base == gantry::v1::NODE_UNKNOWN;
    case StateName::kDown: return base == gantry::v1::NODE_DOWN;
    // As in Slurm, a drained idle node is idle; one finishing a job is not.
    case StateName::kIdle: return base == gantry::v1::NODE_IDLE && !hasFlag(flags, gantry::v1::NODE_FLAG_COMPLETING);
    // Slurm's "alloc" is any node with CPUs in use, mixed ones included.
    case StateName::kAllocated: return base == gantry::v1::NODE_ALLOCATED || base == gantry::v1::NODE_MIXED;
    case StateName::kMixed: return base == gantry::v1::NODE_MIXED;
    case StateName::kDrain: return drain;
    case StateName::kDrained: return drain && !hasWork(base, flags);
    case StateName::kDraining: return drain && hasWork(base, flags);
    case StateName::kCompleting:
      return base == gantry::v1::NODE_COMPLETING || hasFlag(flags, gantry::v1::NODE_FLAG_COMPLETING);
    case StateName::kNoRespond: return hasFlag(flags, gantry::v1::NODE_FLAG_NOT_RESPONDING);
    case StateName::kFail: return hasFlag(flags, gantry::v1::NODE_FLAG_FAIL);
    default: return false;  // a state Gantry's nodes are never in
  }
}

bool nodeMatchesStates(const NodeStateFilter& filter, NodeBaseState base, uint32_t flags) {
  if (filter.terms.empty()) return true;
  auto matches = [&](const StateTerm& term) { return nodeMatchesState(term.state, base, flags) != term.negated; };
  if (filter.everyStateMustMatch) return std::all_of(filter.terms.begin(), filter.terms.end(), matches);
  return std::any_of(filter.terms.begin(), filter.terms.end(), matches);
}

bool nodeSelected(const NodeSelection& selection, const gantry::v1::Node& node) {
  bool responding = !hasFlag(node.state_flags(), gantry::v1::NODE_FLAG_NOT_RESPONDING);
  if (selection.respondingOnly && !responding) return false;
  if (selection.deadOnly && responding) return false;
  return nodeMatchesStates(selection.states, node.base_state(), node.state_flags());
}

std::string nodeStateComplete(NodeBaseState base, uint32_t flags) {
  std::string out;
  switch (base) {
    case gantry::v1::NODE_IDLE: out = "idle"; break;
    case gantry::v1::NODE_MIXED: out = "mixed"; break;
    case gantry::v1::NODE_ALLOCATED: out = "allocated"; break;
    case gantry::v1::NODE_DOWN: out = "down"; break;
    // Slurm has no completing base state: an idle node finishing a job.
    case gantry::v1::NODE_COMPLETING: out = "idle"; break;
    default: out = "unknown"; break;
  }
  if (hasFlag(flags, gantry::v1::NODE_FLAG_DRAIN)) out += "+drain";
  if (base == gantry::v1::NODE_COMPLETING || hasFlag(flags, gantry::v1::NODE_FLAG_COMPLETING)) out += "+completing";
  if (hasFlag(flags, gantry::v1::NODE_FLAG_NOT_RESPONDING)) out += "+not_responding";
  if (hasFlag(flags, gantry::v1::NODE_FLAG_FAIL)) out += "+fail";
  return out;
}

}  // namespace gantry::cli
