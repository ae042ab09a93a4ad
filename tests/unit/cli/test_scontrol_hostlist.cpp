#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "cli/scontrol_hostlist.h"

using gantry::cli::hostlistText;
using gantry::cli::hostnamesText;
using gantry::cli::readHostlistArgument;

namespace {

std::string hostnames(std::string_view expr) {
  auto text = hostnamesText(expr);
  INFO(expr);
  REQUIRE(text.ok());
  return *text;
}

std::string hostlist(std::string_view names, bool sorted) {
  auto text = hostlistText(names, sorted);
  INFO(names);
  REQUIRE(text.ok());
  return *text;
}

}  // namespace

TEST_CASE("scontrol show hostnames|hostlist|hostlistsorted rules", "[cli][hostlist]") {
  SECTION("hostnames prints one name a line, bare brackets included") {
    CHECK(hostnames("[3,7-9]") == "3\n7\n8\n9\n");
    CHECK(hostnames("c[2-3]x,edge") == "c2x\nc3x\nedge\n");
  }
  SECTION("hostnames names a bad expression") {
    auto bad = hostnamesText("c[4");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().starts_with("Invalid hostlist: c[4 ("));
  }
  SECTION("hostlist keeps the order given and its duplicates") {
    CHECK(hostlist("db4,db2,db3,db2", false) == "db[4,2-3,2]\n");
  }
  SECTION("hostlist reads names a line each as well as comma lists") {
    CHECK(hostlist("db1\ndb2\n\ndb3\n", false) == "db[1-3]\n");
  }
  SECTION("hostlistsorted sorts by prefix then number") {
    CHECK(hostlist("web12,db3,web9,db1,web10", true) == "db[1,3],web[9-10,12]\n");
  }
  SECTION("hostlistsorted keeps zero padding apart") {
    CHECK(hostlist("r010,r2,r009", true) == "r2,r[009-010]\n");
  }
  SECTION("hostlist names a bad expression") {
    auto bad = hostlistText("db[7-2]", true);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().starts_with("Invalid hostlist: db[7-2] ("));
  }
}

TEST_CASE("show hostlist reads a file of names given by its path", "[cli][hostlist]") {
  auto path = std::filesystem::temp_directory_path() / ("gantry-hostlist-" + std::to_string(::getpid()));
  std::ofstream(path) << "sv3\nsv1\nsv2\n";
  auto text = readHostlistArgument(path.string());
  REQUIRE(text.ok());
  CHECK(hostlist(*text, false) == "sv[3,1-2]\n");
  std::filesystem::remove(path);
  auto missing = readHostlistArgument(path.string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error() == "Can not open " + path.string());
  // Anything else is the names themselves.
  CHECK(readHostlistArgument("sv[1-2]").value() == "sv[1-2]");
}
