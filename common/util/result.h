// Result<T>: a value or an error. Expected failures (bad input, an absent
// device, a refused request) travel as values; exceptions never cross a
// library boundary.
//
// Every Error has a kind. Callers decide on the kind (retry, exit code, gRPC
// status), never on the message text, which is for people.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace gantry {

enum class ErrorCode {
  Invalid,      // the request or input is malformed or breaks a rule
  NotFound,     // it names a job, node, step or partition that does not exist
  Denied,       // the caller may not do this
  NotNow,       // the state does not allow it at present; retrying later may work
  Never,        // well formed, but the cluster can never satisfy it
  Unavailable,  // a peer or service cannot be reached; retrying may work
  Internal,     // a fault of ours (storage, an invariant)
};

std::string_view toString(ErrorCode code);

struct Error {
  Error(std::string text) : message(std::move(text)) {}
  Error(const char* text) : message(text) {}
  Error(ErrorCode kind, std::string text) : message(std::move(text)), code(kind) {}

  std::string message;
  // Most failures are refused input, so that is what an unmarked Error is.
  ErrorCode code = ErrorCode::Invalid;
};

inline std::string_view toString(ErrorCode code) {
  switch (code) {
    case ErrorCode::Invalid: return "invalid";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::Denied: return "denied";
    case ErrorCode::NotNow: return "not now";
    case ErrorCode::Never: return "never";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::Internal: return "internal";
  }
  return "internal";
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const std::string& error() const { return std::get<Error>(state_).message; }
  ErrorCode errorCode() const { return std::get<Error>(state_).code; }
  // The whole error, to pass on with its kind.
  const Error& failure() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// For operations that succeed with nothing to return.
struct Ok {};
using Status = Result<Ok>;
inline Status okStatus() { return Ok{}; }

}  // namespace gantry
