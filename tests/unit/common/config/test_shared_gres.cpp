#include <catch2/catch.hpp>

#include "common/config/shared_gres.h"

using namespace gantry::config;
using Counts = std::vector<uint64_t>;

namespace {
GresConf gres(const std::string& text) {
  auto conf = parseGresConf(text, "gres.conf", "node1");
  if (!conf.ok()) FAIL(conf.error());
  return conf.value();
}
SharedGresPlan plan(const std::string& text, const char* name) {
  auto p = planSharedGres(gres(text), name);
  if (!p.ok()) FAIL(p.error());
  return p.value();
}
const std::vector<GpuRef> kFourGpus = {
    {"/dev/nvidia0", "gp100"}, {"/dev/nvidia1", "gp100"}, {"/dev/nvidia2", "p6000"}, {"/dev/nvidia3", "p6000"}};
}  // namespace

TEST_CASE("shared GRES: no line splits the gantry.conf total evenly", "[config][shared]") {
  SharedGresPlan p = plan("Name=gpu File=/dev/nvidia[0-1]\n", "shard");
  CHECK(p.form == SharedGresForm::NoLine);
  CHECK(resolveSharedCounts(p, {{"/dev/nvidia0", ""}, {"/dev/nvidia1", ""}}, 64) == Counts{32, 32});
  CHECK(resolveSharedCounts(p, {{"a", ""}, {"b", ""}, {"c", ""}}, 100) == Counts{34, 33, 33});
}

TEST_CASE("shared GRES: Name+Count is a node total split evenly", "[config][shared]") {
  SharedGresPlan p = plan("Name=mps Count=400\n", "mps");
  CHECK(p.form == SharedGresForm::NodeTotal);
  CHECK(resolveSharedCounts(p, kFourGpus, 0) == Counts{100, 100, 100, 100});
}

TEST_CASE("shared GRES: Name+File+Count per device, others 0", "[config][shared]") {
  SharedGresPlan p = plan("Name=mps Count=1300 File=/dev/nvidia0\nName=mps Count=1200 File=/dev/nvidia1\n"
                          "Name=mps Count=1000 File=/dev/nvidia3\n",
                          "mps");
  CHECK(p.form == SharedGresForm::PerFile);
  CHECK(resolveSharedCounts(p, kFourGpus, 0) == Counts{1300, 1200, 0, 1000});
}

TEST_CASE("shared GRES: Name+Type+Count per matching GPU, most specific wins", "[config][shared]") {
  SharedGresPlan p = plan("Name=shard Type=A100 Count=32\nName=shard Type=a100_80 Count=48\n"
                          "Name=shard Type=l40s Count=16\n",
                          "shard");
  CHECK(p.form == SharedGresForm::PerType);
  std::vector<GpuRef> gpus = {{"", "nvidia_a100-pcie-40gb"}, {"", "nvidia_a100_80gb"}, {"", "l40s"}, {"", "h100"}};
  CHECK(resolveSharedCounts(p, gpus, 0) == Counts{32, 48, 16, 0});
}

TEST_CASE("shared GRES: mixing forms is an error naming the line", "[config][shared][errors]") {
  auto p = planSharedGres(gres("Name=shard Type=a100 Count=8\nName=shard File=/dev/nvidia1 Count=8\n"), "shard");
  REQUIRE_FALSE(p.ok());
  CHECK_THAT(p.error(), Catch::StartsWith("gres.conf:2:") && Catch::Contains("use one form per node"));
}
