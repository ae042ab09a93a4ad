// --json output: protobuf messages as JSON objects with the proto field
// names (snake_case, as Slurm's JSON uses), every field present, collected
// under a top-level key such as "jobs" or "nodes".
#pragma once

#include <google/protobuf/message.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gantry::cli {

// One message as a JSON object.
nlohmann::json messageToJson(const google::protobuf::Message& message);

// {"<key>": [ ...messages... ]}
template <typename Messages>
nlohmann::json listToJson(const std::string& key, const Messages& messages) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& message : messages) list.push_back(messageToJson(message));
  return nlohmann::json{{key, list}};
}

// 64-bit integers come out as JSON numbers (protobuf alone writes strings).

// Pretty-printed with two-space indentation and a final newline.
std::string dumpJson(const nlohmann::json& value);

}  // namespace gantry::cli
