// Every Error kind crosses gRPC and comes back as itself; codes our servers
// never send are read as what gRPC means by them.
#include <catch2/catch.hpp>

#include "common/rpc/channel.h"
#include "common/rpc/error_status.h"

using namespace gantry;

namespace {

struct KindRow {
  ErrorCode kind;
  grpc::StatusCode wire;
};

// One row per kind, in the order ErrorCode declares them.
constexpr KindRow kKinds[] = {
    {ErrorCode::Invalid, grpc::StatusCode::INVALID_ARGUMENT},
    {ErrorCode::NotFound, grpc::StatusCode::NOT_FOUND},
    {ErrorCode::Denied, grpc::StatusCode::PERMISSION_DENIED},
    {ErrorCode::NotNow, grpc::StatusCode::FAILED_PRECONDITION},
    {ErrorCode::Never, grpc::StatusCode::RESOURCE_EXHAUSTED},
    {ErrorCode::Unavailable, grpc::StatusCode::UNAVAILABLE},
    {ErrorCode::Internal, grpc::StatusCode::INTERNAL},
};

}  // namespace

TEST_CASE("each error kind has its gRPC code, both ways", "[rpc][errors]") {
  for (const KindRow& row : kKinds) {
    SECTION(std::string(toString(row.kind))) {
      CHECK(rpc::grpcCodeFor(row.kind) == row.wire);
      CHECK(rpc::errorCodeFor(row.wire) == row.kind);

      grpc::Status status = rpc::toGrpcStatus(Error{row.kind, "the reason"});
      CHECK(status.error_code() == row.wire);
      CHECK(status.error_message() == "the reason");

      Error back = rpc::fromGrpcStatus(status, "controller at ctl:6817");
      CHECK(back.code == row.kind);
      if (row.kind == ErrorCode::Unavailable) {
        CHECK(back.message == "cannot reach controller at ctl:6817: the reason");
      } else {
        CHECK(back.message == "the reason");
      }
    }
  }
}

TEST_CASE("an unmarked Error goes out as INVALID_ARGUMENT", "[rpc][errors]") {
  CHECK(rpc::toGrpcStatus(Error{"bad option"}).error_code() == grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_CASE("a call that did not get through is Unavailable and names the peer", "[rpc][errors]") {
  for (grpc::StatusCode code : {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED,
                                grpc::StatusCode::CANCELLED}) {
    Error error = rpc::fromGrpcStatus(grpc::Status(code, "Deadline Exceeded"), "node gpu1 at gpu1:6818");
    CHECK(error.code == ErrorCode::Unavailable);
    CHECK(error.message == "cannot reach node gpu1 at gpu1:6818: Deadline Exceeded");
    // The older text-only helper says the same.
    CHECK(rpc::describeFailure(grpc::Status(code, "Deadline Exceeded"), "node gpu1 at gpu1:6818") ==
          error.message);
  }
}

TEST_CASE("codes our servers never send", "[rpc][errors]") {
  CHECK(rpc::errorCodeFor(grpc::StatusCode::UNAUTHENTICATED) == ErrorCode::Denied);
  CHECK(rpc::errorCodeFor(grpc::StatusCode::ALREADY_EXISTS) == ErrorCode::Invalid);
  CHECK(rpc::errorCodeFor(grpc::StatusCode::OUT_OF_RANGE) == ErrorCode::Invalid);
  CHECK(rpc::errorCodeFor(grpc::StatusCode::ABORTED) == ErrorCode::NotNow);
  CHECK(rpc::errorCodeFor(grpc::StatusCode::UNIMPLEMENTED) == ErrorCode::Internal);
  CHECK(rpc::errorCodeFor(grpc::StatusCode::UNKNOWN) == ErrorCode::Internal);
  CHECK(rpc::errorCodeFor(grpc::StatusCode::DATA_LOSS) == ErrorCode::Internal);
  Error denied = rpc::fromGrpcStatus(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "no token"), "controller");
  CHECK(denied.code == ErrorCode::Denied);
  CHECK(denied.message == "no token");
}
