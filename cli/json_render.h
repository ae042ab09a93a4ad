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

// What Slurm's data_parser writes under "meta" in every --json answer:
// who asked, with which words, of which release and cluster. Scripts
// check "command" to know which question an answer is for.
struct JsonMeta {
  std::vector<std::string> command;  // the command's name, then its words as given
  std::string source;                // the caller's terminal, "" when it has none
  std::string user;
  std::string group;
  std::string cluster;               // ClusterName
  std::string accountingStorage;     // AccountingStorageType
};

// The data_parser plugin whose output shape Gantry's --json follows.
inline constexpr const char* kDataParser = "data_parser/v0.0.44";

// `content` (an object such as {"jobs": [...]}) with Slurm's envelope
// beside its own keys: "meta", and empty "errors" and "warnings" lists.
nlohmann::json withEnvelope(nlohmann::json content, const JsonMeta& meta);

// Pretty-printed with two-space indentation and a final newline.
std::string dumpJson(const nlohmann::json& value);

}  // namespace gantry::cli
