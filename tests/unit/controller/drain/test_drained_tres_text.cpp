// DrainedTRES= and scontrol show drainedtres.
#include <catch2/catch.hpp>

#include "controller/drain/drained_tres_text.h"
#include "tests/unit/controller/drain/drain_fixtures.h"

using namespace drain_test;

TEST_CASE("DrainedTRES lists devices, count-only GRES, CPUs, then memory", "[drain][text]") {
  DrainedTres r;
  r.devices = {gpuDrain(1, "xid_48"), gpuDrain(5, "xid_48", "", "l40")};
  r.counts = {{"mem", 2048, "dimm_b2"}, {"gres/netbw", 3, "link_flap"}};
  r.cpus = {{4, "mce"}, {5, "mce"}, {6, "mce"}, {9, "mce"}};
  normalise(r);
  CHECK(formatDrainedTres(r) == "gpu(IDX:1,5)(xid_48),netbw:3(link_flap),cpu(IDX:4-6,9)(mce),mem:2048(dimm_b2)");
}

TEST_CASE("DrainedTRES rules", "[drain][text]") {
  SECTION("nothing drained gives nothing, so the field is omitted") { CHECK(formatDrainedTres(DrainedTres{}).empty()); }
  SECTION("each reason is its own entry") {
    DrainedTres r;
    r.devices = {gpuDrain(0, "fan"), gpuDrain(2, "xid_79"), gpuDrain(3, "fan")};
    CHECK(formatDrainedTres(r) == "gpu(IDX:0,3)(fan),gpu(IDX:2)(xid_79)");
  }
  SECTION("an absent device is listed by its index, without its UUID") {
    CHECK(formatDrainedTres(gx7Record()) == "gpu(IDX:4)(gres/gpu:not_found)");
  }
  SECTION("a typed count-only GRES shows its type") {
    DrainedTres r;
    r.counts = {{"gres/scratch:nvme", 4, "worn"}};
    CHECK(formatDrainedTres(r) == "scratch:nvme:4(worn)");
  }
}

TEST_CASE("scontrol show drainedtres lists each drain in scontrol's words", "[drain][text]") {
  DrainedTres r = gx7Record();
  r.devices.push_back(gpuDrain(2, "xid_79", uuidOf(2)));
  r.cpus = {{2, "mce"}, {3, "mce"}};
  r.counts = {{"mem", 512, "dimm"}, {"gres/netbw", 1, "flap"}};
  normalise(r);
  std::string expected = "NodeName=gx7 TresName=gres/gpu Index=2 Uuid=" + uuidOf(2) +
                         " Reason=xid_79\n"
                         "NodeName=gx7 TresName=gres/gpu Index=4 Reason=gres/gpu:not_found\n"
                         "NodeName=gx7 TresName=gres/netbw Count=1 Reason=flap\n"
                         "NodeName=gx7 TresName=cpu Index=2-3 Reason=mce\n"
                         "NodeName=gx7 TresName=mem Count=512 Reason=dimm\n";
  CHECK(formatDrainedTresListing({{"gx7", r}, {"gx8", DrainedTres{}}}) == expected);
}
