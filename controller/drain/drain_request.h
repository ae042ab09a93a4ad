// One TRES drain request, as scontrol update TresName=... and the API's JSON
// form both parse into. Parsing checks only the form; the rules that need the
// node (which devices exist, which GRES are shared) are applyDrainCommand's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::drain {

enum class DrainAction { Drain, SetDrain, Resume };

// Which resources of the TRES a request names: exactly one per request.
enum class SelectorKind { None, Index, Uuid, Count, All };

struct DrainRequest {
  std::string tres;   // "gres/gpu", "gres/gpu:a100", "gres/bandwidth", "cpu", "mem"
  std::string nodes;  // host list expression, expanded by the caller
  SelectorKind selector = SelectorKind::None;
  std::vector<int> indexes;  // Index=: device indexes, or CPU ids for cpu
  std::string uuid;          // Uuid=
  uint64_t count = 0;        // Count=: an amount (megabytes for mem)
  DrainAction action = DrainAction::Drain;
  std::string reason;
  bool operator==(const DrainRequest&) const = default;
};

// scontrol's form: the words after "update", e.g. {"TresName=gres/gpu",
// "NodeName=n[1-2]", "Index=0,2-3", "Action=Drain", "Reason=fan"}. Keys and
// the Action value are case-insensitive; Index=ALL and Count=ALL select all.
// Fails, naming the word, on an unknown key, a repeated or missing one, two selectors, or a value that does not parse.
Result<DrainRequest> parseScontrolDrainRequest(const std::vector<std::string>& words);

// The API's JSON form, given as its text: keys name, nodes, index, uuid, count,
// reason, action (drain | resume | set_drain) and select_all. An index of ALL
// is refused (select_all says that). Fails, naming the key, on bad input.
Result<DrainRequest> parseJsonDrainRequest(const std::string& jsonText);

std::string toString(DrainAction action);  // "Drain", "SetDrain", "Resume"

}  // namespace gantry::drain
