#include <catch2/catch.hpp>

#include "nodeagent/resctrl/group_choice.h"

using namespace gantry::resctrl;

namespace {

// The spec's node: two sockets, GPUs 0 and 1 on socket 0, GPUs 2 and 3 on socket 1.
GpuOnNode gpu(int index) { return {.device_index = index, .sockets = {index < 2 ? 0 : 1}}; }

JobOnNode twoSocketJob(std::vector<GpuOnNode> gpus) {
  return {.owns_whole_node = false, .socket_count = 2, .gpus = std::move(gpus)};
}

}  // namespace

TEST_CASE("the two-socket four-GPU selection table", "[resctrl][choice]") {
  struct Case {
    const char* name;
    std::vector<int> gpus;
    ResctrlGroup group;
    int most;
  };
  const std::vector<Case> cases = {
      {"no GPU", {}, ResctrlGroup::kCpuOnly, 0},
      {"one GPU", {0}, ResctrlGroup::kGpuOnePerSocket, 1},
      {"two GPUs on different sockets", {0, 2}, ResctrlGroup::kGpuOnePerSocket, 1},
      {"two GPUs sharing socket 0", {0, 1}, ResctrlGroup::kGpuTwoPerSocket, 2},
      {"two GPUs sharing socket 1", {2, 3}, ResctrlGroup::kGpuTwoPerSocket, 2},
      {"three GPUs", {0, 1, 2}, ResctrlGroup::kGpuTwoPerSocket, 2},
      {"three GPUs the other way", {0, 2, 3}, ResctrlGroup::kGpuTwoPerSocket, 2},
      {"four GPUs", {0, 1, 2, 3}, ResctrlGroup::kGpuTwoPerSocket, 2},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      std::vector<GpuOnNode> gpus;
      for (int index : c.gpus) gpus.push_back(gpu(index));
      auto choice = chooseResctrlGroup(twoSocketJob(gpus));
      CHECK(choice.group == c.group);
      CHECK(choice.gpu_count == static_cast<int>(c.gpus.size()));
      CHECK(choice.most_gpus_on_one_socket == c.most);
    }
  }
}

TEST_CASE("a job owning the whole node joins no group", "[resctrl][choice]") {
  auto job = twoSocketJob({gpu(0), gpu(1)});
  job.owns_whole_node = true;
  CHECK(chooseResctrlGroup(job).group == ResctrlGroup::kNone);
  CHECK(groupName(ResctrlGroup::kNone).empty());
}

TEST_CASE("shares of one GPU count once", "[resctrl][choice]") {
  // Three shard entries of GPU 0 and an MPS slice of it: still one GPU.
  auto choice = chooseResctrlGroup(twoSocketJob({gpu(0), gpu(0), gpu(0)}));
  CHECK(choice.group == ResctrlGroup::kGpuOnePerSocket);
  CHECK(choice.gpu_count == 1);
}

TEST_CASE("a GPU spanning sockets counts on each, an unknown one on all", "[resctrl][choice]") {
  GpuOnNode spanning{.device_index = 0, .sockets = {0, 1}};
  auto choice = chooseResctrlGroup(twoSocketJob({spanning, gpu(2)}));
  CHECK(choice.group == ResctrlGroup::kGpuTwoPerSocket);
  CHECK(choice.most_gpus_on_one_socket == 2);

  GpuOnNode unknown{.device_index = 1, .sockets = {}};
  CHECK(chooseResctrlGroup(twoSocketJob({unknown})).group == ResctrlGroup::kGpuOnePerSocket);
  choice = chooseResctrlGroup(twoSocketJob({unknown, gpu(3)}));
  CHECK(choice.group == ResctrlGroup::kGpuTwoPerSocket);
  CHECK(choice.most_gpus_on_one_socket == 2);
}

TEST_CASE("every placement is logged with group and counts", "[resctrl][choice]") {
  auto choice = chooseResctrlGroup(twoSocketJob({gpu(0), gpu(1), gpu(2)}));
  CHECK(placementLogLine(12, "n1", choice) ==
        "resctrl: job 12 on n1 placed in gpu_two_per_socket (gpus=3 max_gpus_per_socket=2)");
}
