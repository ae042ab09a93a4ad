// Errors across gRPC, both ways. A server adapter answers a failed Result
// with toGrpcStatus; a client turns a failed call back into an Error with
// fromGrpcStatus, so the caller decides (retry, exit status) on the kind
// the server gave, never on the message.
//
// The mapping, one gRPC code per kind (docs/errors.md):
//   Invalid     INVALID_ARGUMENT      NotNow       FAILED_PRECONDITION
//   NotFound    NOT_FOUND             Never        RESOURCE_EXHAUSTED
//   Denied      PERMISSION_DENIED     Unavailable  UNAVAILABLE
//   Internal    INTERNAL
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

#include "common/util/result.h"

namespace gantry::rpc {

grpc::StatusCode grpcCodeFor(ErrorCode code);

// The kind a status code stands for. Codes our servers never send are read
// as what they mean to gRPC: UNAUTHENTICATED is Denied; DEADLINE_EXCEEDED
// and CANCELLED (the call did not get through in time) are Unavailable;
// ALREADY_EXISTS and OUT_OF_RANGE are Invalid; ABORTED is NotNow; UNKNOWN,
// UNIMPLEMENTED and DATA_LOSS are Internal. Precondition: code is not OK.
ErrorCode errorCodeFor(grpc::StatusCode code);

// The status a server adapter answers for a failed request.
grpc::Status toGrpcStatus(const Error& error);

// The Error a client hands on for a failed call to `what` (the peer, e.g.
// "controller at host:6817"). When the call did not get through (the peer
// is unreachable, or the deadline passed) the message names the peer:
// "cannot reach <what>: <gRPC's message>"; otherwise it is the peer's own
// message. Precondition: !status.ok().
Error fromGrpcStatus(const grpc::Status& status, const std::string& what);

}  // namespace gantry::rpc
