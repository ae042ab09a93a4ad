// Keys that gantry parses and checks but whose feature is not built yet.
//
// Such a key loads without an error or a warning (a site's slurm.conf must
// keep loading), but a value that changes nothing would mislead the
// administrator who wrote it. So every occurrence becomes a note,
// "file:line: Key=Value is accepted but not yet acted on (feature)", which
// --check-config prints and the controller logs once at start.
//
// This table is the one place that says which keys those are; a key leaves
// it in the change that makes code read it. docs/configuration.md lists the
// same keys ("Accepted, not yet acted on"); a unit test keeps both in step.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/conf_reader.h"
#include "common/config/diagnostic.h"

namespace gantry::config {

// Where a key is written.
enum class KeyPlace {
  Global,         // gantry.conf, a line of global keys
  NodeLine,       // gantry.conf, a NodeName= line
  PartitionLine,  // gantry.conf, a PartitionName= line
  CgroupConf,     // cgroup.conf
  GresConf,       // gres.conf
};
std::string_view toString(KeyPlace place);

// The part of a value that is not acted on, as it will be shown in the note
// ("" when every part is). `occurrence` counts earlier lines with the same
// key in the same file (0 for the first).
using InertPart = std::string (*)(std::string_view value, int occurrence);

struct InertKey {
  KeyPlace place = KeyPlace::Global;
  std::string_view key;      // as documented, e.g. "SchedulerTimeSlice"
  std::string_view alias;    // another spelling that parses the same, or ""
  std::string_view feature;  // the missing feature, shown in the note
  std::string_view willDo;   // what the key will do once the feature exists
  std::string_view tracking; // the component or issue that brings the feature
  std::string_view example;  // a value that loads cleanly and is not acted on (tests, docs)
  // nullptr: the whole key is not acted on, whatever its value.
  InertPart inertPart = nullptr;
};

// Every inert key, in the order docs/configuration.md lists them.
const std::vector<InertKey>& inertKeys();

// The entry for `key` (any case, either spelling) written at `place`, or
// nullptr when code acts on that key.
const InertKey* findInertKey(KeyPlace place, std::string_view key);

// The note's message for `key`=`value` ("Key=Value is accepted but not yet
// acted on (feature)", or "Key=Value: part is ..." when only part of the
// value is inert), or nullopt when all of this value is acted on.
std::optional<std::string> inertNote(const InertKey& entry, const KeyValue& pair, int occurrence);

// Counts occurrences per key of one file and adds a note to `diagnostics`
// for each inert pair. One per file being read.
class InertKeyNotes {
 public:
  explicit InertKeyNotes(Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

  // Call for a pair that was accepted (neither an error nor unknown).
  void check(KeyPlace place, const ConfLine& line, const KeyValue& pair);

 private:
  Diagnostics& diagnostics_;
  std::vector<std::pair<const InertKey*, int>> seen_;
};

}  // namespace gantry::config
