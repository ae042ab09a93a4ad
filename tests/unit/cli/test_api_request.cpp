// gantry api: which requests the CLI sends, the body it takes, and the
// shape of its answer. One row per rule.
#include <catch2/catch.hpp>

#include "cli/api_request.h"

using namespace gantry::cli;

TEST_CASE("gantry api: only POST /tres/ is served", "[cli][api]") {
  struct Row {
    const char* rule;
    std::string method, path;
    bool served;
    std::string message;
  };
  const Row rows[] = {
      {"POST /tres/ is served", "POST", "/tres/", true, ""},
      {"the trailing slash is optional", "POST", "/tres", true, ""},
      {"the method in any case", "post", "/tres/", true, ""},
      {"GET is refused, naming the method", "GET", "/tres/", false, "method 'GET' is not served; only POST /tres/ is"},
      {"DELETE is refused", "DELETE", "/tres/", false, "method 'DELETE'"},
      {"another path is refused, naming it", "POST", "/nodes/", false, "path '/nodes/' is not served; only POST /tres/ is"},
      {"the REST prefix is not part of the path", "POST", "/slurm/v0.0.46/tres/", false, "path '/slurm/v0.0.46/tres/'"},
      {"a path below /tres/ is refused", "POST", "/tres/gpu", false, "path '/tres/gpu'"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    gantry::Status status = checkApiRoute(row.method, row.path);
    CHECK(status.ok() == row.served);
    if (!row.served) CHECK_THAT(status.error(), Catch::StartsWith(row.message));
  }
}

TEST_CASE("gantry api: the body", "[cli][api]") {
  struct Row {
    const char* rule;
    std::optional<std::string> data;
    std::string stdinText;
    bool taken;
    std::string expect;  // the body, or the start of the error
  };
  const Row rows[] = {
      {"--data wins over stdin", std::string(R"({"name":"cpu"})"), "ignored", true, R"({"name":"cpu"})"},
      {"stdin when --data is absent", std::nullopt, "{\"nodes\": \"fab1\"}\n", true, "{\"nodes\": \"fab1\"}\n"},
      {"bad JSON is sent as written (the controller judges it)", std::nullopt, "{name:", true, "{name:"},
      {"an empty stdin is refused", std::nullopt, "", false, "the request body on standard input is empty"},
      {"white space only is empty", std::nullopt, " \n\t\n", false, "the request body on standard input is empty"},
      {"an empty --data is refused", std::string(""), "{}", false, "--data: the request body is empty"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto body = apiBody(row.data, row.stdinText);
    REQUIRE(body.ok() == row.taken);
    if (row.taken) {
      CHECK(*body == row.expect);
    } else {
      CHECK_THAT(body.error(), Catch::StartsWith(row.expect));
    }
  }
}

TEST_CASE("gantry api: the answer's shape", "[cli][api]") {
  CHECK(apiAccepted({}) == nlohmann::json::parse(R"({"errors": [], "warnings": []})"));
  CHECK(apiAccepted({"gres/nic index 3 of fab1 stays drained: no device there"}) ==
        nlohmann::json::parse(R"({"errors": [], "warnings": ["gres/nic index 3 of fab1 stays drained: no device there"]})"));
  CHECK(apiRefused("Access/permission denied") ==
        nlohmann::json::parse(R"({"errors": [{"error": "Access/permission denied"}], "warnings": []})"));
}
