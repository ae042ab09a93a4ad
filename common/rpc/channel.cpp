#include "common/rpc/channel.h"

#include "common/rpc/error_status.h"

namespace gantry::rpc {

std::string endpoint(const std::string& addr, int port) {
  // IPv6 literals need brackets.
  if (addr.find(':') != std::string::npos) return "[" + addr + "]:" + std::to_string(port);
  return addr + ":" + std::to_string(port);
}

std::shared_ptr<grpc::Channel> makeChannel(const std::string& addr, int port) {
  grpc::ChannelArguments args;
  // Daemons reconnect quickly after a peer restarts: the first retry after
  // a failed attempt comes 100 ms later, growing to one a second.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // gRPC also takes this as the time one connection attempt may take (TCP,
  // then the server's HTTP/2 SETTINGS). A refused connection fails at once
  // whatever it says; it only bounds a server slow to answer, as a busy
  // controller is when many clients connect at once, and must leave room
  // for that.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, static_cast<int>(kConnectTimeout.count()));
  return grpc::CreateCustomChannel(endpoint(addr, port), grpc::InsecureChannelCredentials(),
                                   args);
}

Result<std::unique_ptr<grpc::ClientContext>> makeCallContext(
    const auth::Authenticator& authenticator, std::chrono::milliseconds timeout) {
  auto token = authenticator.makeToken();
  if (!token) return token.failure();
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata(auth::kTokenMetadataKey, *token);
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

Result<auth::Identity> callerIdentity(const grpc::ServerContext& context,
                                      const auth::Authenticator& authenticator) {
  const auto& metadata = context.client_metadata();
  auto found = metadata.find(auth::kTokenMetadataKey);
  if (found == metadata.end()) return Error{ErrorCode::Denied, "the call carries no credential"};
  return authenticator.verify(std::string(found->second.data(), found->second.size()));
}

std::string describeFailure(const grpc::Status& status, const std::string& what) {
  return fromGrpcStatus(status, what).message;
}

}  // namespace gantry::rpc
