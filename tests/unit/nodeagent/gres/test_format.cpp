#include <catch2/catch.hpp>

#include "merge_fixture.h"
#include "nodeagent/gres/format.h"

using namespace gantry;
using gantry::testing::fixtureOptions;
using gantry::testing::runMerge;

TEST_CASE("-C node line with l3cache_as_socket", "[gres][format]") {
  auto options = fixtureOptions("many-l3-1socket", "nvml");
  options.parameters = {"l3cache_as_socket"};
  auto topology = detect::detectCpus(options);
  REQUIRE(topology.ok());
  auto gpus = detect::detectGpus(options, *topology, nullptr);
  REQUIRE(gpus.ok());
  CHECK(nodegres::formatNodeLine("node0", *topology, *gpus) ==
        "NodeName=node0 CPUs=32 Boards=1 SocketsPerBoard=8 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=131072 "
        "Parameters=l3cache_as_socket Gres=gpu:nvidia_a100-pcie-40gb:2");
}

TEST_CASE("-C node line without GPUs or parameters", "[gres][format]") {
  auto options = fixtureOptions("amd8-xgmi", "off");
  auto topology = detect::detectCpus(options);
  REQUIRE(topology.ok());
  CHECK(nodegres::formatNodeLine("tux1", *topology, {}) ==
        "NodeName=tux1 CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 ThreadsPerCore=2 RealMemory=1572864");
}

TEST_CASE("-G lists the merged records in device order", "[gres][format]") {
  auto run = runMerge({.host = "pcie4-linked-pairs",
                       .autoDetect = "nvml",
                       .gresConfText = "AutoDetect=nvml\nName=gpu Type=a6000 File=/dev/nvidia0 Flags=env_uuid\n",
                       .nodeGres = "gpu:a6000:4"});
  REQUIRE(run.result.ok());
  std::string text = nodegres::formatRecords(run.result->records);
  std::string first = text.substr(0, text.find('\n'));
  CHECK(first.starts_with("Name=gpu Type=a6000 Count=1 Index=0 File=/dev/nvidia0 Cores=0-15 Links=-1,4,0,0 UUID=GPU-"));
  CHECK(first.ends_with(" Flags=env_uuid"));
  CHECK(text.find("Index=3 File=/dev/nvidia3 Cores=0-15 Links=0,0,4,-1") != std::string::npos);
}

TEST_CASE("-G shows several files, chunks and dmem slices", "[gres][format]") {
  nodegres::GresRecord mig;
  mig.name = "gpu";
  mig.type = "a100_3g.20gb";
  mig.files = {"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap147", "/dev/nvidia-caps/nvidia-cap148"};
  nodegres::GresRecord chunked;
  chunked.name = "gpu";
  chunked.files = {"/dev/nvidia2"};
  chunked.chunkSizes = {2, 4};
  chunked.chunkOrder = {0, 1, 2, 3};
  nodegres::GresRecord shard;
  shard.name = "shard";
  shard.count = 16;
  shard.files = {"/dev/nvidia0"};
  shard.dmemRegion = "nvidia/0000:01:00/vidmem";
  shard.dmemSliceBytes = 1000ULL * 1024 * 1024 + 5;
  CHECK(nodegres::formatRecords({mig, chunked, shard}) ==
        "Name=gpu Type=a100_3g.20gb Count=1 Index=0 MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap147,"
        "/dev/nvidia-caps/nvidia-cap148\n"
        "Name=gpu Count=1 Index=1 File=/dev/nvidia2 ChunkSizes=2,4 ChunkOrder=0,1,2,3\n"
        "Name=shard Count=16 Index=0 File=/dev/nvidia0 DmemRegion=nvidia/0000:01:00/vidmem DmemSlice=1000MiB\n");
}
