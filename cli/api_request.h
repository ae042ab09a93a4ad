// `gantry api METHOD PATH`: stands in for the REST API's JSON endpoints.
// Only POST /tres/ (per-device drains) is served; the body goes to the
// controller as it is (UpdateTresRequest.json), which parses and judges
// it. Pure: the routing, the body check and the answer's shape.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/util/result.h"

namespace gantry::cli {

// Exit status of a command line the CLI refuses itself (nothing sent).
inline constexpr int kApiUsageStatus = 2;

// Ok for POST (any case) and /tres/ (the trailing slash optional); else an
// error naming the method or path and what is served.
Status checkApiRoute(const std::string& method, const std::string& path);

// The body: --data when given, else what stdin held. Refused when it is
// empty or only white space; otherwise kept as written.
Result<std::string> apiBody(const std::optional<std::string>& data, const std::string& stdinText);

// The answer printed on stdout: {"errors": [], "warnings": [<line>, ...]}
// on success, {"errors": [{"error": <message>}], "warnings": []} when the
// controller refused the request.
nlohmann::json apiAccepted(const std::vector<std::string>& warnings);
nlohmann::json apiRefused(const std::string& message);

}  // namespace gantry::cli
