// The two forms of a TRES drain request: scontrol update's words and the API's JSON. One row per rule of the form.
#include <catch2/catch.hpp>

#include "controller/drain/drain_request.h"

using gantry::drain::DrainAction;
using gantry::drain::DrainRequest;
using gantry::drain::parseJsonDrainRequest;
using gantry::drain::parseScontrolDrainRequest;
using gantry::drain::SelectorKind;

namespace {

struct WordsRow {
  const char* rule;
  std::vector<std::string> words;
  const char* error;  // nullptr: it parses
};

}  // namespace

TEST_CASE("scontrol's TRES drain words", "[drain][request]") {
  std::vector<WordsRow> rows = {
      {"keys are case-insensitive",
       {"tresname=gres/nic", "NODENAME=rk[3-4]", "index=1,5-6", "ACTION=drain", "reason=crc"},
       nullptr},
      {"Reason is required for Drain",
       {"TresName=gres/nic", "NodeName=rk3", "Index=1", "Action=Drain"},
       "Reason= is required for Action=Drain"},
      {"Reason is required for SetDrain",
       {"TresName=gres/nic", "NodeName=rk3", "Index=1", "Action=SetDrain"},
       "Reason= is required for Action=SetDrain"},
      {"Resume needs no Reason", {"TresName=gres/nic", "NodeName=rk3", "Index=1", "Action=Resume"}, nullptr},
      {"one selector per command",
       {"TresName=gres/nic", "NodeName=rk3", "Index=1", "Uuid=NIC-9", "Action=Resume"},
       "Uuid= is a second selector"},
      {"a selector is required",
       {"TresName=gres/nic", "NodeName=rk3", "Action=Resume"},
       "one of Index=, Uuid= and Count= is required"},
      {"TresName is required", {"NodeName=rk3", "Index=1", "Action=Resume"}, "TresName= is required"},
      {"NodeName is required", {"TresName=cpu", "Index=1", "Action=Resume"}, "NodeName= is required"},
      {"Action is required", {"TresName=cpu", "NodeName=rk3", "Index=1"}, "Action= is required"},
      {"Action is Drain, SetDrain or Resume",
       {"TresName=cpu", "NodeName=rk3", "Index=1", "Action=Offline"},
       "Action=Offline is not Drain, SetDrain or Resume"},
      {"an unknown key is named",
       {"TresName=cpu", "NodeName=rk3", "Index=1", "Action=Resume", "Weight=2"},
       "unknown key Weight="},
      {"a key is given once",
       {"TresName=cpu", "NodeName=rk3", "Index=1", "Action=Resume", "action=Drain"},
       "action= is given twice"},
      {"Index is an index list", {"TresName=cpu", "NodeName=rk3", "Index=two", "Action=Resume"}, "Index=two"},
      {"Count is a number", {"TresName=gres/netbw", "NodeName=rk3", "Count=lots", "Action=Resume"}, "Count=lots"},
  };
  for (const WordsRow& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto parsed = parseScontrolDrainRequest(row.words);
      if (row.error == nullptr) {
        CHECK(parsed.ok());
      } else {
        REQUIRE_FALSE(parsed.ok());
        CHECK_THAT(parsed.error(), Catch::Contains(row.error));
      }
    }
  }
}

TEST_CASE("scontrol words give the request they name", "[drain][request]") {
  auto parsed = parseScontrolDrainRequest(
      {"TresName=gres/nic:cx7", "NodeName=rk[3-4]", "Index=1,5-6", "Action=SetDrain", "Reason=crc"});
  REQUIRE(parsed.ok());
  DrainRequest expected{"gres/nic:cx7", "rk[3-4]", SelectorKind::Index, {1, 5, 6}, "", 0, DrainAction::SetDrain, "crc"};
  CHECK(*parsed == expected);

  SECTION("Index=ALL and Count=ALL select everything") {
    auto all = parseScontrolDrainRequest({"TresName=gres/nic", "NodeName=rk3", "Index=all", "Action=Resume"});
    REQUIRE(all.ok());
    CHECK(all->selector == SelectorKind::All);
    auto cores = parseScontrolDrainRequest({"TresName=cpu", "NodeName=rk3", "Count=ALL", "Action=Drain", "Reason=x"});
    REQUIRE(cores.ok());
    CHECK(cores->selector == SelectorKind::All);
  }
  SECTION("a memory Count takes size suffixes and means megabytes") {
    auto mem = parseScontrolDrainRequest({"TresName=mem", "NodeName=rk3", "Count=3G", "Action=Drain", "Reason=dimm"});
    REQUIRE(mem.ok());
    CHECK(mem->count == 3072);
  }
}

namespace {

struct JsonRow {
  const char* rule;
  const char* json;
  const char* error;
};

}  // namespace

TEST_CASE("the API's JSON TRES drain request", "[drain][request]") {
  std::vector<JsonRow> rows = {
      {"the keys of the JSON form",
       R"({"name":"gres/nic","nodes":"rk3","index":"0,2","reason":"crc","action":"set_drain"})", nullptr},
      {"an index of ALL is refused", R"({"name":"gres/nic","nodes":"rk3","index":"ALL","action":"resume"})",
       "\"index\": \"ALL\" is refused"},
      {"select_all selects everything", R"({"name":"gres/nic","nodes":"rk3","select_all":true,"action":"resume"})",
       nullptr},
      {"action is drain, resume or set_drain", R"({"name":"cpu","nodes":"rk3","index":"1","action":"SetDrain"})",
       "is not drain, resume or set_drain"},
      {"reason is required for drain", R"({"name":"cpu","nodes":"rk3","index":"1","action":"drain"})",
       "Reason= is required for Action=Drain"},
      {"an unknown key is named", R"({"name":"cpu","nodes":"rk3","index":"1","action":"resume","state":"x"})",
       "unknown key \"state\""},
      {"one selector per request", R"({"name":"gres/nic","nodes":"rk3","index":"1","uuid":"N-1","action":"resume"})",
       "is a second selector"},
      {"the body is an object", R"(["gres/nic"])", "not a JSON object"},
      {"a count is a number", R"({"name":"gres/netbw","nodes":"rk3","count":true,"action":"resume"})",
       "\"count\" must be a number"},
  };
  for (const JsonRow& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto parsed = parseJsonDrainRequest(row.json);
      if (row.error == nullptr) {
        CHECK(parsed.ok());
      } else {
        REQUIRE_FALSE(parsed.ok());
        CHECK_THAT(parsed.error(), Catch::Contains(row.error));
      }
    }
  }
}

TEST_CASE("JSON nodes and index may be arrays", "[drain][request]") {
  auto parsed =
      parseJsonDrainRequest(R"({"name":"gres/nic","nodes":["rk3","rk4"],"index":[1,"5-6"],"action":"resume"})");
  REQUIRE(parsed.ok());
  CHECK(parsed->nodes == "rk3,rk4");
  CHECK(parsed->indexes == std::vector<int>{1, 5, 6});
  CHECK_FALSE(parseJsonDrainRequest(R"({"name":"gres/nic","nodes":"rk3","index":["ALL"],"action":"resume"})").ok());
}

TEST_CASE("JSON gives the same request as the words", "[drain][request]") {
  auto json = parseJsonDrainRequest(R"({"name":"mem","nodes":"rk3","count":2048,"reason":"dimm","action":"drain"})");
  auto words = parseScontrolDrainRequest({"TresName=mem", "NodeName=rk3", "Count=2048", "Action=Drain", "Reason=dimm"});
  REQUIRE(json.ok());
  REQUIRE(words.ok());
  CHECK(*json == *words);
}
