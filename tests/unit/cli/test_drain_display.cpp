// How per-device drains are shown: scontrol show node's MaxDrainedTres and
// DrainedTRES lines, the JSON keys, and sinfo -R for a node that is only
// DEGRADED. One row per rule, named after it.
#include <catch2/catch.hpp>

#include "cli/format_sinfo.h"
#include "cli/json_render.h"
#include "cli/scontrol_render.h"
#include "cli_fixtures.h"

using namespace gantry::cli;
using namespace cli_fixtures;

namespace {

constexpr uint32_t kDegraded = gantry::v1::NODE_FLAG_DEGRADED;
constexpr uint32_t kDrain = gantry::v1::NODE_FLAG_DRAIN;

// A node with two nics and a scratch GRES; `limit` and `drained` as the
// controller would send them.
gantry::v1::Node nicNode(const std::string& limit, const std::string& drained) {
  auto n = node("fab7", drained.empty() ? "MIXED" : "MIXED+DEGRADED", gantry::v1::NODE_MIXED,
                drained.empty() ? 0 : kDegraded, 2);
  n.set_gres("nic:cx7:2,scratch:10");
  n.set_max_drained_tres(limit);
  n.set_drained_tres(drained);
  return n;
}

RenderOptions plain() { return RenderOptions{.details = false, .now = kNow, .groupName = {}}; }

}  // namespace

TEST_CASE("scontrol show node: MaxDrainedTres and DrainedTRES lines", "[cli][scontrol][drain]") {
  struct Row {
    const char* rule;
    std::string limit, drained;
    std::vector<std::string> present, absent;
  };
  const Row rows[] = {
      {"the limit is printed as configured, after Gres", "gres/nic:1,cpu:6", "",
       {"   Gres=nic:cx7:2,scratch:10\n   MaxDrainedTres=gres/nic:1,cpu:6\n   NodeAddr="},
       {"DrainedTRES"}},
      {"no limit: MaxDrainedTres is omitted", "", "", {"   Gres=nic:cx7:2,scratch:10\n   NodeAddr="},
       {"MaxDrainedTres", "DrainedTRES"}},
      {"something drained: DrainedTRES follows the limit", "mem:512",
       "nic(IDX:1)(link_down),scratch:3(fs_check),cpu(IDX:5)(mce)",
       {"   MaxDrainedTres=mem:512\n   DrainedTRES=nic(IDX:1)(link_down),scratch:3(fs_check),cpu(IDX:5)(mce)\n"},
       {}},
      {"drained without a limit: DrainedTRES right after Gres", "", "mem:1024(dimm)",
       {"   Gres=nic:cx7:2,scratch:10\n   DrainedTRES=mem:1024(dimm)\n   NodeAddr="},
       {"MaxDrainedTres"}},
      {"the state shows DEGRADED", "", "nic(IDX:0)(flap)", {"State=MIXED+DEGRADED "}, {}},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    std::string out = renderNode(nicNode(row.limit, row.drained), plain());
    for (const auto& text : row.present) CHECK_THAT(out, Catch::Contains(text));
    for (const auto& text : row.absent) CHECK_THAT(out, !Catch::Contains(text));
  }
}

TEST_CASE("scontrol --json show node: drained_tres and max_drained_tres keys", "[cli][json][drain]") {
  struct Row {
    const char* rule;
    std::string limit, drained;
  };
  const Row rows[] = {
      {"both keys are \"\" when there is no limit and nothing drained", "", ""},
      {"both keys carry the controller's text", "gres/nic:1", "nic(IDX:1)(link_down)"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    nlohmann::json json = messageToJson(nicNode(row.limit, row.drained));
    REQUIRE(json.contains("max_drained_tres"));
    REQUIRE(json.contains("drained_tres"));
    CHECK(json["max_drained_tres"] == row.limit);
    CHECK(json["drained_tres"] == row.drained);
  }
  CHECK_THAT(messageToJson(nicNode("", "nic(IDX:0)(x)"))["state"].get<std::string>(), Catch::Contains("DEGRADED"));
}

TEST_CASE("sinfo -R: degraded-only nodes show their DrainedTRES", "[cli][sinfo][drain]") {
  useUtc();
  auto degraded = node("fab1", "IDLE+DEGRADED", gantry::v1::NODE_IDLE, kDegraded, 0);
  degraded.set_drained_tres("nic(IDX:1)(link_down)");
  auto degradedWithTime = degraded;
  degradedWithTime.set_name("fab2");
  degradedWithTime.set_drained_tres("mem:256(ecc)");
  degradedWithTime.set_reason_time(kNow - 60);
  auto drainedToo = node("fab3", "IDLE+DRAIN+DEGRADED", gantry::v1::NODE_IDLE, kDrain | kDegraded, 0);
  drainedToo.set_drained_tres("nic(IDX:0)(flap)");
  drainedToo.set_reason("MaxDrainedTres exceeded");
  drainedToo.set_reason_user("ops");
  drainedToo.set_reason_time(kNow - 7200);
  auto healthy = node("fab4", "IDLE", gantry::v1::NODE_IDLE, 0, 0);
  std::vector<gantry::v1::Node> nodes = {degraded, degradedWithTime, drainedToo, healthy};
  auto format = parseSinfoFormat("%E|%u|%H|%N");
  REQUIRE(format.ok());
  std::string out = renderSinfo(*format, {}, nodes, SinfoRenderOptions{.view = SinfoView::kReasons, .header = false});
  struct Row {
    const char* rule;
    std::string line;
  };
  const Row rows[] = {
      {"a degraded-only node: its DrainedTRES, user root, time unknown", "nic(IDX:1)(link_down)|root|Unknown|fab1\n"},
      {"a degraded-only node with a known time shows it", "mem:256(ecc)|root|2026-11-30T09:59:00|fab2\n"},
      {"a drained node shows its own reason and user", "MaxDrainedTres exceeded|ops|2026-11-30T08:00:00|fab3\n"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK_THAT(out, Catch::Contains(row.line));
  }
  INFO("a node with nothing drained and no reason is not listed");
  CHECK_THAT(out, !Catch::Contains("fab4"));
}

TEST_CASE("scontrol show node: RestrictedCoresPerGPU only where cores are kept", "[cli][scontrol]") {
  auto kept = nicNode("", "");
  kept.set_restricted_cores_per_gpu("3(0-2,8-10)");
  CHECK_THAT(renderNode(kept, plain()),
             Catch::Contains("   Gres=nic:cx7:2,scratch:10\n   RestrictedCoresPerGPU=3(0-2,8-10)\n   NodeAddr="));
  CHECK_THAT(renderNode(nicNode("", ""), plain()), !Catch::Contains("RestrictedCoresPerGPU"));
}
