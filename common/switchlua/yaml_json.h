// YAML text for slurm.to_yaml()/from_yaml(), through yaml-cpp (which
// gantry.conf's companion files already use) and the same JSON values as
// slurm.to_json()/from_json(), so the two pairs convert alike.
//
// Writing: block style; every string is double-quoted, so "true", "12" or
// "" read back as strings; null is ~; an empty table is {}.
// Reading (the YAML 1.2 core schema for plain scalars): ~, null and an empty
// value -> null; true/false -> booleans; decimal integers -> integers;
// decimal and exponent numbers -> numbers; anything quoted or else plain ->
// a string. Mapping keys must be scalars and are read as strings. Anchors
// and aliases are followed; tags other than the default are ignored. Only
// the first document of the text is read.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/util/result.h"

namespace gantry::switchlua {

std::string jsonToYaml(const nlohmann::json& value);

// An Error names what is wrong and where (line and column).
Result<nlohmann::json> yamlToJson(const std::string& text);

}  // namespace gantry::switchlua
