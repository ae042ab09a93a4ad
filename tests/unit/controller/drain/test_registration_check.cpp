// What a registration means for the node: each drain reason of the spec's
// "Device Chunks" controller checks and the short GRES counts.
#include <catch2/catch.hpp>

#include "controller/drain/registration_check.h"

using gantry::config::GresCount;
using gantry::drain::RegisteredGres;
using gantry::drain::RegistrationInput;
using gantry::drain::registrationDrainReasons;

namespace {

RegisteredGres record(const std::string& name, const std::string& type, int files, uint64_t count,
                      std::vector<int> sizes = {}, std::vector<int> order = {}) {
  RegisteredGres r;
  r.name = name;
  r.type = type;
  r.files = files;
  r.count = count;
  r.chunkSizes = std::move(sizes);
  r.chunkOrder = std::move(order);
  return r;
}

// `count` GPU records of one type, each with the same chunk settings.
std::vector<RegisteredGres> gpus(int count, const std::string& type = "", std::vector<int> sizes = {},
                                 std::vector<int> order = {}) {
  std::vector<RegisteredGres> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(record("gpu", type, 1, 1, sizes, order));
  }
  return out;
}

RegistrationInput nodeWith(std::vector<GresCount> configured, std::vector<RegisteredGres> registered) {
  RegistrationInput input;
  input.configured = std::move(configured);
  input.registered = std::move(registered);
  return input;
}

}  // namespace

TEST_CASE("a node that registers what gantry.conf promises is not drained", "[drain]") {
  CHECK(registrationDrainReasons(nodeWith({{"gpu", "a100", false, 4}}, gpus(4, "a100"))).empty());
  CHECK(registrationDrainReasons(nodeWith({{"gpu", "", false, 8}}, gpus(8, "", {2, 4, 8}))).empty());
}

TEST_CASE("fewer GPUs than configured drain the node with both counts", "[drain]") {
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "", false, 4}}, gpus(3)));
  REQUIRE(reasons == std::vector<std::string>{"gres/gpu count reported lower than configured (3 < 4)"});
}

TEST_CASE("a configured Type counts the registered names it is a substring of", "[drain]") {
  CHECK(registrationDrainReasons(nodeWith({{"gpu", "a100", false, 2}}, gpus(2, "nvidia_a100-sxm4-80gb"))).empty());
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "h100", false, 2}}, gpus(2, "nvidia_a100-sxm4-80gb")));
  REQUIRE(reasons == std::vector<std::string>{"gres/gpu:h100 count reported lower than configured (0 < 2)"});
}

TEST_CASE("no device at all is a short count", "[drain]") {
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "", false, 2}}, {}));
  REQUIRE(reasons == std::vector<std::string>{"gres/gpu count reported lower than configured (0 < 2)"});
}

TEST_CASE("config_overrides spares count-only GRES but not devices", "[drain]") {
  RegistrationInput input = nodeWith({{"bandwidth", "lustre", false, 8}, {"gpu", "", false, 2}},
                                     {record("bandwidth", "lustre", 0, 4)});
  input.registered.push_back(gpus(1).front());
  input.configOverrides = true;
  REQUIRE(registrationDrainReasons(input) ==
          std::vector<std::string>{"gres/gpu count reported lower than configured (1 < 2)"});
  input.configOverrides = false;
  CHECK(registrationDrainReasons(input).size() == 2);
}

TEST_CASE("shared GRES count their per-GPU records", "[drain]") {
  std::vector<RegisteredGres> registered = gpus(2);
  registered.push_back(record("shard", "", 1, 8));
  registered.push_back(record("shard", "", 1, 8));
  CHECK(registrationDrainReasons(nodeWith({{"gpu", "", false, 2}, {"shard", "", false, 16}}, registered)).empty());
  registered.pop_back();
  REQUIRE(registrationDrainReasons(nodeWith({{"gpu", "", false, 2}, {"shard", "", false, 16}}, registered)) ==
          std::vector<std::string>{"gres/shard count reported lower than configured (8 < 16)"});
}

TEST_CASE("the agent's own errors come first and are kept as they are", "[drain]") {
  RegistrationInput input = nodeWith({{"gpu", "", false, 4}}, gpus(3));
  input.agentErrors = {"gres/gpu: 4 devices detected but gantry.conf Gres= accounts for 3"};
  auto reasons = registrationDrainReasons(input);
  REQUIRE(reasons.size() == 2);
  CHECK(reasons[0] == input.agentErrors[0]);
}

TEST_CASE("a chunk domain that is not a multiple of the largest chunk drains", "[drain][chunks]") {
  // The spec: a node that re-registers after losing a device.
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "", false, 7}}, gpus(7, "", {2, 4})));
  REQUIRE(reasons == std::vector<std::string>{
                         "gres/gpu: chunk domain of 7 devices is not a multiple of the largest chunk size 4"});
}

TEST_CASE("a chunk domain smaller than the largest chunk drains", "[drain][chunks]") {
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "a100", false, 2}}, gpus(2, "a100", {2, 4})));
  REQUIRE(reasons == std::vector<std::string>{
                         "gres/gpu:a100: chunk domain of 2 devices is not a multiple of the largest chunk size 4"});
}

TEST_CASE("a chunk domain of more than 1024 devices drains", "[drain][chunks]") {
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "", false, 1026}}, gpus(1026, "", {2})));
  REQUIRE(reasons == std::vector<std::string>{"gres/gpu: chunk domain has 1026 devices, more than 1024"});
}

TEST_CASE("a chunk domain with no devices drains", "[drain][chunks]") {
  RegisteredGres countOnly = record("gpu", "x", 0, 4, {2});
  auto reasons = registrationDrainReasons(nodeWith({}, {countOnly}));
  REQUIRE(reasons == std::vector<std::string>{"gres/gpu:x: chunk domain has no devices"});
}

TEST_CASE("ChunkOrder of another length than the domain drains", "[drain][chunks]") {
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "", false, 4}}, gpus(4, "", {2, 4}, {0, 1, 2, 3, 4, 5})));
  REQUIRE(reasons == std::vector<std::string>{"gres/gpu: ChunkOrder has 6 entries but the chunk domain has 4 devices"});
}

TEST_CASE("ChunkSizes on shard or mps drains", "[drain][chunks]") {
  std::vector<RegisteredGres> registered = gpus(2);
  registered.push_back(record("mps", "", 1, 100, {2}));
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "", false, 2}, {"mps", "", false, 100}}, registered));
  REQUIRE(reasons == std::vector<std::string>{"gres/mps: ChunkSizes cannot be used on shared GRES"});
}

TEST_CASE("chunked GPUs on a node that also has shard drain, even on other GPUs", "[drain][chunks]") {
  std::vector<RegisteredGres> registered = gpus(4, "a100", {2, 4});
  registered.push_back(record("gpu", "l4", 1, 1));
  registered.push_back(record("shard", "l4", 1, 8));
  auto reasons = registrationDrainReasons(
      nodeWith({{"gpu", "a100", false, 4}, {"gpu", "l4", false, 1}, {"shard", "", false, 8}}, registered));
  REQUIRE(reasons == std::vector<std::string>{
                         "gres/gpu:a100: ChunkSizes cannot be used on gres/gpu of a node that also has gres/shard "
                         "or gres/mps"});
}

TEST_CASE("a shard configured in gantry.conf alone is enough to refuse GPU chunks", "[drain][chunks]") {
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "", false, 4}, {"shard", "", false, 8}}, gpus(4, "", {4})));
  CHECK(reasons.size() == 2);  // the chunk rule and the missing shards
  CHECK(reasons[1].find("gres/shard or gres/mps") != std::string::npos);
}

TEST_CASE("records of one Type with different chunk values drain", "[drain][chunks]") {
  std::vector<RegisteredGres> registered = gpus(2, "a100", {2});
  auto more = gpus(2, "a100", {2, 4});
  registered.insert(registered.end(), more.begin(), more.end());
  auto reasons = registrationDrainReasons(nodeWith({{"gpu", "a100", false, 4}}, registered));
  REQUIRE(reasons == std::vector<std::string>{
                         "gres/gpu:a100: records of one Type registered different ChunkSizes/ChunkOrder"});

  SECTION("one record setting none at all differs too") {
    std::vector<RegisteredGres> mixed = gpus(3, "a100", {2});
    mixed.push_back(gpus(1, "a100").front());
    CHECK(registrationDrainReasons(nodeWith({{"gpu", "a100", false, 4}}, mixed)).size() == 1);
  }
}

TEST_CASE("each Type is its own chunk domain", "[drain][chunks]") {
  std::vector<RegisteredGres> registered = gpus(16, "a100", {2, 4, 8, 16});
  auto h100 = gpus(4, "h100", {2, 4});
  auto l4 = gpus(2, "l4");
  registered.insert(registered.end(), h100.begin(), h100.end());
  registered.insert(registered.end(), l4.begin(), l4.end());
  CHECK(registrationDrainReasons(
            nodeWith({{"gpu", "a100", false, 16}, {"gpu", "h100", false, 4}, {"gpu", "l4", false, 2}}, registered))
            .empty());
}

TEST_CASE("a missing device of a GRES the saved order judges is not a short count here", "[drain]") {
  auto input = nodeWith({{"gpu", "h200", false, 3}, {"gpu", "l40", false, 2}}, gpus(3, "h200"));
  input.registered.push_back(record("gpu", "l40", 1, 1));
  input.countedByOrder = {"gpu"};
  CHECK(registrationDrainReasons(input).empty());
}

TEST_CASE("a full count of the wrong type is a short count even when the saved order judges the GRES", "[drain]") {
  auto input = nodeWith({{"gpu", "h200", false, 2}}, gpus(2, "l40"));
  input.countedByOrder = {"gpu"};
  REQUIRE(registrationDrainReasons(input) ==
          std::vector<std::string>{"gres/gpu:h200 count reported lower than configured (0 < 2)"});
}
