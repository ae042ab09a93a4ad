// Caller identity for every RPC. One pluggable layer: the client attaches a
// token made by an Authenticator, the server turns the token back into an
// Identity with the same kind of Authenticator. MUNGE is the default;
// auth/none (the client's word is taken) only when configured explicitly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/util/result.h"

namespace gantry::auth {

// gRPC metadata key that carries the token.
inline constexpr const char* kTokenMetadataKey = "x-gantry-auth";

struct Identity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;  // resolved from uid on the verifying side
};

// Thread-safe: both methods may be called from any thread.
class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // A token proving the calling process's uid/gid. Fails Unavailable when
  // munged cannot be reached, Internal for any other MUNGE fault.
  virtual Result<std::string> makeToken() const = 0;
  // The identity a token proves, or why it proves nothing: Denied for a
  // bad token, Unavailable when munged cannot be reached to check it.
  virtual Result<Identity> verify(const std::string& token) const = 0;
};

// authType: "auth/munge" or "auth/none". authInfo: the AuthInfo value, e.g.
// "socket=/run/munge/munge.socket.2". Unknown types are an error.
Result<std::unique_ptr<Authenticator>> makeAuthenticator(const std::string& authType,
                                                         const std::string& authInfo);

// User name for a uid, or the number as text when the uid has no entry.
std::string userName(uint32_t uid);

}  // namespace gantry::auth
