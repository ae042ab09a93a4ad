// Going on from a damaged state database, for an administrator who asked
// for it (gantryctld --recover): what can still be read is carried into a
// new database and the damaged file is kept beside it for inspection.
// Not thread-safe; run it before the store is opened.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::store {

struct SalvageReport {
  // Where the damaged database lies now (its -wal and -shm beside it).
  std::string movedTo;
  // Rows carried into the new database.
  uint64_t jobs = 0;
  uint64_t nodes = 0;
  uint64_t nodeHardware = 0;
  // The new database's job id high-water mark.
  uint64_t maxJobId = 0;
  // Whether the old high-water mark could be read (else maxJobId is the
  // highest id read, and ids of lost jobs above it may be handed out again).
  bool maxJobIdRead = false;
  // What could not be read or did not parse, one line each.
  std::vector<std::string> losses;
};

// Moves the database at `path` and its -wal and -shm aside to
// `<path>.corrupt-<now>` (-wal, -shm), then writes a new database at `path`
// (mode 0600) holding every row that can still be read and whose record
// is whole, and a high-water mark no lower than the old one. A table is
// read in key order; where a page cannot be read, reading goes on from
// the first key after it that can, and the key range in between is
// reported lost.
// Fails Internal naming the file when there is no database at `path`, it
// cannot be moved, or the new one cannot be written (the damaged file is
// then already at `movedTo`, which the message names).
Result<SalvageReport> salvageDatabase(const std::string& path, int64_t now);

}  // namespace gantry::store
