// srun's StepIo server lets in only a stream that carries the step's token.
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>

#include "cli/step_io_server.h"

using namespace gantry;

namespace {

// Attaches as a node would, says `token`, and ends the stream at once.
grpc::Status attach(int port, const std::string& token) {
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  auto stub = v1::StepIo::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->Attach(&context);
  v1::StepOutput hello;
  hello.set_job_id(1);
  hello.set_step_id("0");
  hello.set_token(token);
  stream->Write(hello);
  v1::StepOutput last;
  last.set_done(true);
  stream->Write(last);
  stream->WritesDone();
  v1::StepInput ignored;
  while (stream->Read(&ignored)) {
  }
  return stream->Finish();
}

}  // namespace

TEST_CASE("a node stream with a wrong token is refused, the right one gets in", "[cli][srun]") {
  const std::string token(64, '7');
  cli::StepIoServer server(token, false);
  REQUIRE(server.start("127.0.0.1").ok());
  server.expectNodes(1);

  for (const std::string& wrong : {std::string(), std::string(64, '8'), token.substr(0, 63), token + "7"}) {
    grpc::Status refused = attach(server.port(), wrong);
    CHECK(refused.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  }
  CHECK(server.nodesDone() == 0);

  CHECK(attach(server.port(), token).ok());
  CHECK(server.waitAllDone(2000));
  CHECK(server.exitCode() == 0);
}
