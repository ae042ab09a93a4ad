#include "cli/api_request.h"

#include <cctype>

namespace gantry::cli {

Status checkApiRoute(const std::string& method, const std::string& path) {
  std::string upper = method;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper != "POST") {
    return Error{"method '" + method + "' is not served; only POST /tres/ is"};
  }
  if (path != "/tres/" && path != "/tres") {
    return Error{"path '" + path + "' is not served; only POST /tres/ is"};
  }
  return okStatus();
}

Result<std::string> apiBody(const std::optional<std::string>& data, const std::string& stdinText) {
  const std::string& body = data ? *data : stdinText;
  bool blank = true;
  for (char c : body) blank = blank && std::isspace(static_cast<unsigned char>(c));
  if (blank) {
    return Error{data ? "--data: the request body is empty; give the JSON request"
                      : "the request body on standard input is empty; give the JSON request there or with --data"};
  }
  return body;
}

nlohmann::json apiAccepted(const std::vector<std::string>& warnings) {
  return nlohmann::json{{"errors", nlohmann::json::array()}, {"warnings", warnings}};
}

nlohmann::json apiRefused(const std::string& message) {
  return nlohmann::json{{"errors", nlohmann::json::array({nlohmann::json{{"error", message}}})},
                        {"warnings", nlohmann::json::array()}};
}

}  // namespace gantry::cli
