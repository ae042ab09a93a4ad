#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nodeagent/resctrl/resctrl_setup.h"

using namespace gantry::resctrl;
namespace fs = std::filesystem;

namespace {

// A private copy of tests/fixtures/resctrl/host.
class HostFixture {
 public:
  HostFixture() {
    root_ = fs::temp_directory_path() / ("gantry-resctrl-" + std::to_string(::getpid()) + "-" + std::to_string(n_++));
    fs::remove_all(root_);
    fs::copy("tests/fixtures/resctrl/host", root_, fs::copy_options::recursive);
  }
  ~HostFixture() { fs::remove_all(root_); }
  std::string root() const { return root_.string(); }
  std::string resctrl() const { return root() + "/sys/fs/resctrl"; }
  void write(const std::string& relative, const std::string& content) const {
    std::ofstream(root() + "/" + relative) << content;
  }

 private:
  static inline int n_ = 0;
  fs::path root_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

gantry::config::ResctrlConf threeGroups() {
  gantry::config::ResctrlConf conf;
  conf.present = true;
  conf.file = "resctrl.yaml";
  conf.groups = {{"cpu_only", "MB:0=30;1=30\n", 3},
                 {"gpu_one_per_socket", "MB:0=35;1=35\n", 6},
                 {"gpu_two_per_socket", "MB:0=70;1=70\n", 9}};
  return conf;
}

gantry::Status mustNotMount(const std::string&, const std::string&) { return gantry::Error{"mount must not be called"}; }

}  // namespace

TEST_CASE("the three groups are created and their schemata written", "[resctrl][setup]") {
  HostFixture host;
  auto outcome = setUpResctrlGroups({.host_root = host.root(), .conf = threeGroups(), .mounter = mustNotMount});
  REQUIRE(outcome.ok());
  CHECK(outcome->managed);
  CHECK(outcome->created_groups == std::vector<std::string>{"cpu_only", "gpu_one_per_socket", "gpu_two_per_socket"});
  CHECK(outcome->closids_needed == 4);
  CHECK(outcome->closids_available == 8);
  CHECK(slurp(host.resctrl() + "/cpu_only/schemata") == "MB:0=30;1=30\n");
  CHECK(slurp(host.resctrl() + "/gpu_two_per_socket/schemata") == "MB:0=70;1=70\n");

  SECTION("a second start reuses the directories and rewrites the values") {
    auto config = threeGroups();
    config.groups[0].schemata = "MB:0=20;1=20\n";
    auto again = setUpResctrlGroups({.host_root = host.root(), .conf = config, .mounter = mustNotMount});
    REQUIRE(again.ok());
    CHECK(again->created_groups.empty());
    CHECK(slurp(host.resctrl() + "/cpu_only/schemata") == "MB:0=20;1=20\n");
  }
}

TEST_CASE("nothing is done without the file or without kernel support", "[resctrl][setup]") {
  HostFixture host;
  auto no_file = setUpResctrlGroups({.host_root = host.root(), .conf = {}, .mounter = mustNotMount});
  REQUIRE(no_file.ok());
  CHECK_FALSE(no_file->managed);
  host.write("proc/filesystems", "nodev\tsysfs\nnodev\tcgroup2\n");
  auto no_kernel = setUpResctrlGroups({.host_root = host.root(), .conf = threeGroups(), .mounter = mustNotMount});
  REQUIRE(no_kernel.ok());
  CHECK_FALSE(no_kernel->managed);
  CHECK_FALSE(fs::exists(host.resctrl() + "/cpu_only"));
}

TEST_CASE("an unmounted filesystem is mounted with the configured options", "[resctrl][setup]") {
  HostFixture host;
  host.write("proc/mounts", "sysfs /sys sysfs rw 0 0\n");
  std::string target, options;
  auto config = threeGroups();
  config.mountOptions = "mba_MBps";
  auto outcome = setUpResctrlGroups({.host_root = host.root(), .conf = config,
                                     .mounter = [&](const std::string& t, const std::string& o) {
                                       target = t;
                                       options = o;
                                       return gantry::okStatus();
                                     }});
  REQUIRE(outcome.ok());
  CHECK(outcome->managed);
  CHECK(target == host.resctrl());
  CHECK(options == "mba_MBps");

  SECTION("a failed mount leaves the node unmanaged") {
    auto failed = setUpResctrlGroups(
        {.host_root = host.root(), .conf = config, .mounter = [](const std::string&, const std::string&) {
           return gantry::Status(gantry::Error{"mount failed"});
         }});
    REQUIRE(failed.ok());
    CHECK_FALSE(failed->managed);
  }
}

TEST_CASE("too few CLOSIDs for the groups refuse the start", "[resctrl][setup]") {
  HostFixture host;
  host.write("sys/fs/resctrl/info/MB/num_closids", "5\n");
  fs::create_directory(host.resctrl() + "/foreign_a");
  fs::create_directory(host.resctrl() + "/foreign_b");
  fs::create_directory(host.resctrl() + "/mon_groups");
  fs::create_directory(host.resctrl() + "/gpu_one_per_socket");  // one of ours: counts once
  auto outcome = setUpResctrlGroups({.host_root = host.root(), .conf = threeGroups(), .mounter = mustNotMount});
  REQUIRE_FALSE(outcome.ok());
  // root + 3 groups + foreign_a + foreign_b; mon_groups is not a group.
  CHECK(outcome.error().find("need 6 CLOSIDs") != std::string::npos);
  CHECK(outcome.error().find("info/MB/num_closids allows only 5") != std::string::npos);
  CHECK_FALSE(fs::exists(host.resctrl() + "/cpu_only"));
}

TEST_CASE("a rejected schemata is fatal and earlier groups keep their values", "[resctrl][setup]") {
  HostFixture host;
  fs::create_directories(host.resctrl() + "/gpu_one_per_socket/schemata");  // a directory refuses the write
  host.write("sys/fs/resctrl/info/last_cmd_status", "MB value 5 out of range\n");
  auto outcome = setUpResctrlGroups({.host_root = host.root(), .conf = threeGroups(), .mounter = mustNotMount});
  REQUIRE_FALSE(outcome.ok());
  CHECK(outcome.error().find("resctrl.yaml:6: ") == 0);
  CHECK(outcome.error().find("group gpu_one_per_socket was rejected") != std::string::npos);
  CHECK(outcome.error().find("MB value 5 out of range") != std::string::npos);
  CHECK(slurp(host.resctrl() + "/cpu_only/schemata") == "MB:0=30;1=30\n");
  CHECK_FALSE(fs::exists(host.resctrl() + "/gpu_two_per_socket"));
}

TEST_CASE("a parsed resctrl.yaml is applied in file order", "[resctrl][setup]") {
  HostFixture host;
  auto conf = gantry::config::parseResctrlConf(
      "groups:\n"
      "- name: gpu_two_per_socket\n  schemata: |\n    MB:0=70;1=70\n"
      "- name: cpu_only\n  schemata: |\n    MB:0=30;1=30\n"
      "- name: gpu_one_per_socket\n  schemata: |\n    MB:0=35;1=35\n",
      "resctrl.yaml");
  REQUIRE(conf.ok());
  auto outcome = setUpResctrlGroups({.host_root = host.root(), .conf = *conf, .mounter = mustNotMount});
  REQUIRE(outcome.ok());
  CHECK(outcome->created_groups == std::vector<std::string>{"gpu_two_per_socket", "cpu_only", "gpu_one_per_socket"});
  CHECK(slurp(host.resctrl() + "/gpu_one_per_socket/schemata") == "MB:0=35;1=35\n");
}
