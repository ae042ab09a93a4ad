#include "cli/node_state.h"

namespace gantry::cli {
namespace {

using gantry::v1::NodeBaseState;

bool hasFlag(uint32_t flags, gantry::v1::NodeStateFlag flag) { return (flags & static_cast<uint32_t>(flag)) != 0; }

// A draining node still has work on it (running or finishing); a drained
// one has none.
bool stillBusy(NodeBaseState base, uint32_t flags) {
  return base == gantry::v1::NODE_ALLOCATED || base == gantry::v1::NODE_MIXED ||
         base == gantry::v1::NODE_COMPLETING || hasFlag(flags, gantry::v1::NODE_FLAG_COMPLETING);
}

struct Words {
  const char* longName;
  const char* compact;
};

Words baseWords(NodeBaseState base) {
  switch (base) {
    case gantry::v1::NODE_IDLE: return {"idle", "idle"};
    case gantry::v1::NODE_MIXED: return {"mixed", "mix"};
    case gantry::v1::NODE_ALLOCATED: return {"allocated", "alloc"};
    case gantry::v1::NODE_DOWN: return {"down", "down"};
    case gantry::v1::NODE_COMPLETING: return {"completing", "comp"};
    default: return {"unknown", "unk"};
  }
}

Words drainWords(NodeBaseState base, uint32_t flags) {
  if (base == gantry::v1::NODE_DOWN) return {"down", "down"};
  if (stillBusy(base, flags)) return {"draining", "drng"};
  return {"drained", "drain"};
}

// A failing node still has work on it; a failed one has none. As in Slurm,
// this holds even when it no longer responds ("fail*").
Words failWords(NodeBaseState base, uint32_t flags) {
  if (stillBusy(base, flags)) return {"failing", "failg"};
  return {"fail", "fail"};
}

std::string render(NodeBaseState base, uint32_t flags, bool compact) {
  // As in Slurm, a drain is named before a failure, and a node still
  // completing a job says so before its base state.
  Words words = hasFlag(flags, gantry::v1::NODE_FLAG_DRAIN)                  ? drainWords(base, flags)
                : hasFlag(flags, gantry::v1::NODE_FLAG_FAIL)                 ? failWords(base, flags)
                : hasFlag(flags, gantry::v1::NODE_FLAG_COMPLETING) && base != gantry::v1::NODE_DOWN
                    ? baseWords(gantry::v1::NODE_COMPLETING)
                    : baseWords(base);
  std::string word = compact ? words.compact : words.longName;
  if (hasFlag(flags, gantry::v1::NODE_FLAG_NOT_RESPONDING)) word += "*";
  return word;
}

}  // namespace

std::string nodeStateLong(NodeBaseState base, uint32_t flags) { return render(base, flags, false); }

std::string nodeStateCompact(NodeBaseState base, uint32_t flags) { return render(base, flags, true); }

std::string nodeStateLong(const gantry::v1::Node& node) {
  return nodeStateLong(node.base_state(), node.state_flags());
}

std::string nodeStateCompact(const gantry::v1::Node& node) {
  return nodeStateCompact(node.base_state(), node.state_flags());
}

bool nodeUnusable(const gantry::v1::Node& node) {
  if (node.base_state() == gantry::v1::NODE_DOWN) return true;
  return hasFlag(node.state_flags(), gantry::v1::NODE_FLAG_DRAIN) &&
         !stillBusy(node.base_state(), node.state_flags());
}

}  // namespace gantry::cli
