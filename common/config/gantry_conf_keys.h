// Internal to gantry_conf.cpp: the table of global gantry.conf keys.
#pragma once

#include <string_view>

#include "common/config/conf_reader.h"
#include "common/config/diagnostic.h"

namespace gantry::config {

struct GantryConf;

// One Key=Value being applied, with where it came from for diagnostics.
struct KeyContext {
  GantryConf& conf;
  Diagnostics& diagnostics;
  const ConfLine& line;
  const KeyValue& pair;

  // Reports "Key=Value: <rule>" at this line.
  void error(const std::string& rule) const {
    diagnostics.error(line.file, line.line, pair.key + "=" + pair.value + ": " + rule);
  }
  void warn(const std::string& rule) const {
    diagnostics.warn(line.file, line.line, pair.key + "=" + pair.value + ": " + rule);
  }
};

// Applies one global key. Returns false when the key is not one gantry
// knows (the caller warns).
bool applyGlobalKey(KeyContext& context);

// The accounting keys (accounting_keys.cpp).
void setAccountingStorageType(KeyContext& c);
void setAccountingStorageTres(KeyContext& c);
void setAccountingStoragePort(KeyContext& c);
void setJobAcctGatherType(KeyContext& c);
void setJobAcctGatherFrequency(KeyContext& c);

// Keys taken from existing slurm.conf files that gantry accepts without
// acting on them; listed in docs/configuration.md.
bool isIgnoredGlobalKey(std::string_view lowerKey);

}  // namespace gantry::config
