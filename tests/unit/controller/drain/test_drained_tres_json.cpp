// The stored form of the drained-TRES record: everything written comes back,
// and a damaged row is refused whole.
#include <catch2/catch.hpp>

#include "controller/drain/drained_tres_json.h"
#include "tests/unit/controller/drain/drain_fixtures.h"

using namespace drain_test;

TEST_CASE("a stored record comes back field by field") {
  DrainedTres record = gx7Record();
  record.devices.push_back(gpuDrain(1, "xid_79", uuidOf(1)));
  record.cpus = {{6, "mce"}, {7, "mce"}};
  record.counts = {{"gres/netbw:ib", 3, "link_flap"}, {"mem", 2048, "dimm"}};
  record.orderMismatch = {"gpu"};
  normalise(record);
  auto back = fromStoredJson(toStoredJson(record));
  REQUIRE(back);
  CHECK(*back == record);
}

TEST_CASE("an empty record is stored and read back empty") {
  auto back = fromStoredJson(toStoredJson(DrainedTres{}));
  REQUIRE(back);
  CHECK(*back == DrainedTres{});
}

TEST_CASE("a damaged stored record is refused whole") {
  struct Row {
    const char* rule;
    const char* text;
  };
  const Row rows[] = {
      {"not JSON", "{\"version\":1,"},
      {"not an object", "[1,2]"},
      {"unknown version", R"({"version":2,"devices":[],"cpus":[],"counts":[],"saved_orders":[],"order_mismatch":[]})"},
      {"a member missing", R"({"version":1,"devices":[],"cpus":[],"counts":[],"saved_orders":[]})"},
      {"a member of the wrong type",
       R"({"version":1,"devices":[{"gres":"gpu","type":"","index":"3","uuid":"","reason":"x","not_found":false}],"cpus":[],"counts":[],"saved_orders":[],"order_mismatch":[]})"},
      {"a negative index",
       R"({"version":1,"devices":[{"gres":"gpu","type":"","index":-1,"uuid":"","reason":"x","not_found":false}],"cpus":[],"counts":[],"saved_orders":[],"order_mismatch":[]})"},
      {"a negative cpu",
       R"({"version":1,"devices":[],"cpus":[{"cpu":-4,"reason":"x"}],"counts":[],"saved_orders":[],"order_mismatch":[]})"},
  };
  for (const Row& row : rows) {
    SECTION(row.rule) {
      auto back = fromStoredJson(row.text);
      REQUIRE_FALSE(back);
      CHECK(back.error().find("drained-TRES record") != std::string::npos);
    }
  }
}
