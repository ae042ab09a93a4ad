// Client- and server-side helpers shared by every program: channels with
// sensible defaults, per-call contexts that carry the caller's token and a
// deadline, and turning an incoming call's token into an Identity.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/auth/identity.h"
#include "common/util/result.h"

namespace gantry::rpc {

// How long one connection attempt may take before it counts as failed.
inline constexpr std::chrono::milliseconds kConnectTimeout{5000};

// A channel to addr:port. Calls fail fast (no wait for ready): a peer that
// refuses connections is Unavailable at once; one that accepts but is slow
// to complete the handshake gets kConnectTimeout, within the call's deadline.
std::shared_ptr<grpc::Channel> makeChannel(const std::string& addr, int port);

// A context for one outgoing call: token attached, deadline set.
// Fails when no token can be made: Unavailable when munged cannot be
// reached, Internal otherwise.
Result<std::unique_ptr<grpc::ClientContext>> makeCallContext(
    const auth::Authenticator& authenticator,
    std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Who made an incoming call, from its token. Fails Denied when the call
// carries no token or the token proves nothing, Unavailable when the
// verifier (munged) cannot be reached.
Result<auth::Identity> callerIdentity(const grpc::ServerContext& context,
                                      const auth::Authenticator& authenticator);

// "host:port" for grpc server/client addresses.
std::string endpoint(const std::string& addr, int port);

// Text for a failed call, naming the peer when it could not be reached.
// The message of fromGrpcStatus (error_status.h), which also keeps the
// kind; prefer that.
std::string describeFailure(const grpc::Status& status, const std::string& what);

}  // namespace gantry::rpc
