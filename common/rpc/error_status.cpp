#include "common/rpc/error_status.h"

namespace gantry::rpc {

grpc::StatusCode grpcCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::Invalid: return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorCode::NotFound: return grpc::StatusCode::NOT_FOUND;
    case ErrorCode::Denied: return grpc::StatusCode::PERMISSION_DENIED;
    case ErrorCode::NotNow: return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorCode::Never: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ErrorCode::Unavailable: return grpc::StatusCode::UNAVAILABLE;
    case ErrorCode::Internal: return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::INTERNAL;
}

ErrorCode errorCodeFor(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::OUT_OF_RANGE:
      return ErrorCode::Invalid;
    case grpc::StatusCode::NOT_FOUND:
      return ErrorCode::NotFound;
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED:
      return ErrorCode::Denied;
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::ABORTED:
      return ErrorCode::NotNow;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return ErrorCode::Never;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED:
      return ErrorCode::Unavailable;
    default:
      return ErrorCode::Internal;
  }
}

grpc::Status toGrpcStatus(const Error& error) { return grpc::Status(grpcCodeFor(error.code), error.message); }

Error fromGrpcStatus(const grpc::Status& status, const std::string& what) {
  ErrorCode code = errorCodeFor(status.error_code());
  if (code == ErrorCode::Unavailable) return Error{code, "cannot reach " + what + ": " + status.error_message()};
  return Error{code, status.error_message()};
}

}  // namespace gantry::rpc
