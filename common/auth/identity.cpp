#include "common/auth/identity.h"

#include <munge.h>
#include <pwd.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace gantry::auth {
namespace {

// munged not running, or its socket not where we look, is a peer that
// cannot be reached; every other MUNGE failure is a fault of the setup.
ErrorCode mungeFailureKind(munge_err_t err) {
  return err == EMUNGE_SOCKET ? ErrorCode::Unavailable : ErrorCode::Internal;
}

// Trusts what the client says. Only for sites that configure AuthType=auth/none.
class NoneAuthenticator final : public Authenticator {
 public:
  Result<std::string> makeToken() const override {
    return std::to_string(getuid()) + ":" + std::to_string(getgid());
  }
  Result<Identity> verify(const std::string& token) const override {
    auto colon = token.find(':');
    if (colon == std::string::npos) return Error{ErrorCode::Denied, "auth/none: malformed token"};
    Identity id;
    auto parse = [](std::string_view s, uint32_t& out) {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      return ec == std::errc() && p == s.data() + s.size();
    };
    if (!parse(std::string_view(token).substr(0, colon), id.uid) ||
        !parse(std::string_view(token).substr(colon + 1), id.gid)) {
      return Error{ErrorCode::Denied, "auth/none: malformed token"};
    }
    id.user = userName(id.uid);
    return id;
  }
};

// MUNGE credentials: the munged on each host signs the caller's uid/gid with
// the cluster-wide key, so the verifying side learns who really called.
class MungeAuthenticator final : public Authenticator {
 public:
  explicit MungeAuthenticator(std::string socket) : socket_(std::move(socket)) {}

  Result<std::string> makeToken() const override {
    munge_ctx_t ctx = newContext();
    if (ctx == nullptr) return Error{ErrorCode::Internal, "munge: cannot create a context"};
    char* cred = nullptr;
    munge_err_t err = munge_encode(&cred, ctx, nullptr, 0);
    std::string message = err == EMUNGE_SUCCESS ? "" : munge_ctx_strerror(ctx);
    munge_ctx_destroy(ctx);
    if (err != EMUNGE_SUCCESS) return Error{mungeFailureKind(err), "munge: cannot make a credential: " + message};
    std::string token(cred);
    std::free(cred);
    return token;
  }

  Result<Identity> verify(const std::string& token) const override {
    munge_ctx_t ctx = newContext();
    if (ctx == nullptr) return Error{ErrorCode::Internal, "munge: cannot create a context"};
    uid_t uid = 0;
    gid_t gid = 0;
    void* payload = nullptr;
    int length = 0;
    munge_err_t err = munge_decode(token.c_str(), ctx, &payload, &length, &uid, &gid);
    std::string message = err == EMUNGE_SUCCESS ? "" : munge_ctx_strerror(ctx);
    munge_ctx_destroy(ctx);
    std::free(payload);
    if (err == EMUNGE_SOCKET) return Error{ErrorCode::Unavailable, "munge: cannot verify the credential: " + message};
    if (err != EMUNGE_SUCCESS) return Error{ErrorCode::Denied, "munge: credential rejected: " + message};
    return Identity{.uid = uid, .gid = gid, .user = userName(uid)};
  }

 private:
  munge_ctx_t newContext() const {
    munge_ctx_t ctx = munge_ctx_create();
    if (ctx != nullptr && !socket_.empty()) {
      munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket_.c_str());
    }
    return ctx;
  }

  std::string socket_;
};

// AuthInfo is a comma-separated list of key=value; only socket= matters here.
std::string socketFromAuthInfo(const std::string& authInfo) {
  std::string_view rest(authInfo);
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (item.starts_with("socket=")) return std::string(item.substr(7));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return {};
}

}  // namespace

std::string userName(uint32_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  char buffer[4096];
  if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

Result<std::unique_ptr<Authenticator>> makeAuthenticator(const std::string& authType,
                                                         const std::string& authInfo) {
  if (authType.empty() || authType == "auth/munge") {
    std::string socket = socketFromAuthInfo(authInfo);
    if (const char* env = std::getenv("GANTRY_MUNGE_SOCKET"); socket.empty() && env != nullptr) {
      socket = env;
    }
    return std::unique_ptr<Authenticator>(new MungeAuthenticator(socket));
  }
  if (authType == "auth/none") return std::unique_ptr<Authenticator>(new NoneAuthenticator());
  return Error{"AuthType=" + authType + " is not supported (use auth/munge or auth/none)"};
}

}  // namespace gantry::auth
