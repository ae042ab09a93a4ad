// The stored form of a node's drained-TRES record: JSON text, one object per
// node, kept in the controller's state database beside the node's admin state.
// Every field of DrainedTres is written; reading checks every field's type, so
// a damaged row is refused whole (the store then fails to open, naming the
// node) rather than restored in part.
//
// Pure: no I/O.
#pragma once

#include <string>

#include "common/util/result.h"
#include "controller/drain/drained_tres.h"

namespace gantry::drain {

std::string toStoredJson(const DrainedTres& record);
Result<DrainedTres> fromStoredJson(const std::string& text);

}  // namespace gantry::drain
