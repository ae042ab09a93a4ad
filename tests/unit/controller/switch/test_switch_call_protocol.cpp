// The runner's channel to its helper: what one side writes the other reads
// back unchanged, and what is not a message is refused with a reason.
#include <catch2/catch.hpp>

#include "controller/switch/runner/call_protocol.h"

using namespace gantry::interconnect;
using namespace gantry::switchlua;

TEST_CASE("an order reads back as it was written", "[switch][runner]") {
  CallOrder order{"/etc/site/switch.lua", "slurm_switch_job_complete", {R"({"job_id": 12})", std::nullopt}};
  auto back = decodeOrder(encodeOrder(order));
  REQUIRE(back);
  CHECK(back->script == order.script);
  CHECK(back->function == order.function);
  CHECK(back->arguments == order.arguments);
}

TEST_CASE("an order carries the identity the helper switches to, or none", "[switch][runner]") {
  CallOrder order{"/etc/gantry/switch.lua", "slurm_switch_job_start", {std::nullopt}, std::nullopt};
  auto plain = decodeOrder(encodeOrder(order));
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->runAs.has_value());
  order.runAs = CallIdentity{.uid = 4321, .gid = 987, .groups = {11, 12}};
  auto back = decodeOrder(encodeOrder(order));
  REQUIRE(back.ok());
  REQUIRE(back->runAs.has_value());
  CHECK(back->runAs->uid == 4321);
  CHECK(back->runAs->gid == 987);
  CHECK(back->runAs->groups == std::vector<uint32_t>{11, 12});
}

TEST_CASE("an order that is not one is refused with what is wrong", "[switch][runner]") {
  CHECK_THAT(decodeOrder("not json").error(), Catch::StartsWith("switch call order: "));
  CHECK_THAT(decodeOrder(R"({"script": "/x"})").error(), Catch::Contains("function"));
}

TEST_CASE("a result reads back with every field", "[switch][runner]") {
  CallResult result;
  result.outcome = CallOutcome::Returned;
  result.firstType = "number";
  result.number = -2.5;
  result.dictionary = DictionaryStatus::TooDeep;
  result.dictionaryProblem = "at a.b: deeper than 16 levels";
  result.secondEntries.push_back({.name = "ports", .keyText = "ports", .keyType = "string",
                                  .kind = EntryValueKind::Number, .text = "6", .valueType = "number"});
  std::string line = encodeResult(result);
  REQUIRE(line.back() == '\n');
  line.pop_back();
  auto back = decodeChannelLine(line);
  REQUIRE(back);
  auto* finished = std::get_if<channel::Finished>(&*back);
  REQUIRE(finished);
  CHECK(finished->result.outcome == CallOutcome::Returned);
  CHECK(finished->result.number == -2.5);
  CHECK_FALSE(finished->result.boolean);
  CHECK(finished->result.dictionary == DictionaryStatus::TooDeep);
  CHECK(finished->result.dictionaryProblem == result.dictionaryProblem);
  REQUIRE(finished->result.secondEntries.size() == 1);
  CHECK(finished->result.secondEntries[0].name == "ports");
  CHECK(finished->result.secondEntries[0].kind == EntryValueKind::Number);
}

TEST_CASE("a log line keeps its level and text, newlines included", "[switch][runner]") {
  std::string line = encodeLogLine(ScriptLogLevel::Debug3, "switch/lua: f: two\nlines");
  REQUIRE(line.find('\n') == line.size() - 1);
  line.pop_back();
  auto back = decodeChannelLine(line);
  REQUIRE(back);
  auto* log = std::get_if<channel::LogLine>(&*back);
  REQUIRE(log);
  CHECK(log->level == ScriptLogLevel::Debug3);
  CHECK(log->line == "switch/lua: f: two\nlines");
}

TEST_CASE("a channel line that is no message is refused", "[switch][runner]") {
  CHECK_FALSE(decodeChannelLine("{}"));
  CHECK_FALSE(decodeChannelLine("garbage"));
  CHECK_FALSE(decodeChannelLine(R"({"log": 99, "line": "x"})"));
}

TEST_CASE("bytes that are not UTF-8 in a log line come back replaced, not lost", "[switch][runner]") {
  std::string line = encodeLogLine(ScriptLogLevel::Info, "switch/lua: f: raw \xff byte");
  line.pop_back();
  auto back = decodeChannelLine(line);
  REQUIRE(back);
  CHECK(std::get<channel::LogLine>(*back).line == "switch/lua: f: raw \xEF\xBF\xBD byte");
}
