// The step token srun makes and checks, and the address it listens on.
#include <catch2/catch.hpp>
#include <set>

#include "cli/local_address.h"
#include "cli/step_token.h"

using namespace gantry::cli;

TEST_CASE("step tokens are 32 random bytes in hex, new each time", "[cli][srun]") {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    auto token = newStepToken();
    REQUIRE(token.ok());
    CHECK(token->size() == 64);
    CHECK(token->find_first_not_of("0123456789abcdef") == std::string::npos);
    seen.insert(*token);
  }
  CHECK(seen.size() == 50);
}

TEST_CASE("tokens match only when equal in every byte and length", "[cli][srun]") {
  const std::string token(64, 'a');
  CHECK(sameToken(token, token));
  CHECK_FALSE(sameToken(std::string(63, 'a'), token));
  CHECK_FALSE(sameToken(token + "a", token));
  CHECK_FALSE(sameToken(std::string(63, 'a') + "b", token));
  CHECK_FALSE(sameToken("", token));
  CHECK_FALSE(sameToken("", ""));  // no token is never a match
}

TEST_CASE("srun's address toward a controller on loopback is loopback", "[cli][srun]") {
  auto address = localAddressToward("127.0.0.1", 6817);
  REQUIRE(address.ok());
  CHECK(*address == "127.0.0.1");
  CHECK_FALSE(localAddressToward("no-such-host.invalid", 6817).ok());
}
