// The controller's gRPC services on a loopback port, in process, with
// auth/none: requests whose bytes cannot be parsed (invalid UTF-8 in a
// string field, random bytes, nesting past protobuf's limit) and requests
// with fields no handler can act on are answered INVALID_ARGUMENT with a
// message naming what is wrong, and change nothing.
#include "tests/unit/controller/core/core_harness.h"

#include <grpcpp/generic/generic_stub.h>

#include <future>
#include <thread>

#include "common/rpc/channel.h"
#include "common/rpc/unparsed_request.h"
#include "controller/rpc/services.h"

using namespace gantry;

namespace {

// A real core on its own thread (real timers, real clock) behind the real
// services, listening on 127.0.0.1 at a port the system picks.
struct ServedController {
  ServedController() {
    REQUIRE(store.open(testing::tempDb()).ok());
    core = std::make_unique<core::ControllerCore>(
        io, core::CoreOptions{.conf = &conf, .clock = &clock, .store = &store, .agents = &agents});
    REQUIRE(core->start().ok());
    coreThread = std::thread([this] { io.run(); });
    auto made = auth::makeAuthenticator("auth/none", "");
    REQUIRE(made.ok());
    authenticator = std::move(made.value());
    client = std::make_unique<ctlrpc::ControllerService>(*core, *authenticator);
    agent = std::make_unique<ctlrpc::ControllerAgentService>(*core, *authenticator);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(client.get());
    builder.RegisterService(agent.get());
    rpc::answerUnparsedRequests(builder);
    server = builder.BuildAndStart();
    REQUIRE(server != nullptr);
    REQUIRE(port > 0);
    channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  }
  ~ServedController() {
    server->Shutdown();
    core->stop();
    busy.reset();
    io.stop();
    coreThread.join();
    store.close();
  }

  // Sends `bytes` as the request of `method`, as they are.
  grpc::Status callRaw(const std::string& method, const std::string& bytes) {
    auto context = rpc::makeCallContext(*authenticator, std::chrono::seconds(10));
    REQUIRE(context.ok());
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::GenericStub stub(channel);
    std::promise<grpc::Status> done;
    stub.UnaryCall(context->get(), method, grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status status) { done.set_value(std::move(status)); });
    return done.get_future().get();
  }

  template <typename Message>
  grpc::Status call(const std::string& method, const Message& message) {
    return callRaw(method, message.SerializeAsString());
  }

  int jobCount() {
    v1::ListJobsRequest request;
    request.set_include_finished(true);
    std::promise<int> count;
    core->listJobs(request, [&count](Result<v1::ListJobsResponse> answer) {
      count.set_value(answer ? answer->jobs_size() : -1);
    });
    return count.get_future().get();
  }

  config::GantryConf conf = testing::twoNodeConf();
  SystemClock clock;
  store::JobStore store;
  testing::RecordingGateway agents;
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> busy = boost::asio::make_work_guard(io);
  std::unique_ptr<core::ControllerCore> core;
  std::thread coreThread;
  std::unique_ptr<auth::Authenticator> authenticator;
  std::unique_ptr<ctlrpc::ControllerService> client;
  std::unique_ptr<ctlrpc::ControllerAgentService> agent;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::shared_ptr<grpc::Channel> channel;
};

constexpr const char* kSubmit = "/gantry.v1.Controller/SubmitJob";

// A length-delimited field: tag byte, one-byte length, contents.
std::string lengthDelimited(char tag, const std::string& contents) {
  REQUIRE(contents.size() < 128);
  return std::string(1, tag) + static_cast<char>(contents.size()) + contents;
}

}  // namespace

TEST_CASE("a SubmitJob whose spec.name is not UTF-8 is INVALID_ARGUMENT naming the field") {
  ServedController served;
  // SubmitJobRequest.spec (1) { JobSpec.name (1) = "ok\xff\xfe" }.
  std::string bytes = lengthDelimited('\x0a', lengthDelimited('\x0a', "ok\xff\xfe"));
  grpc::Status status = served.callRaw(kSubmit, bytes);
  CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_THAT(status.error_message(), Catch::Contains("SubmitJob"));
  CHECK_THAT(status.error_message(), Catch::Contains("gantry.v1.JobSpec.name"));
  CHECK_THAT(status.error_message(), Catch::Contains("UTF-8"));
  CHECK(served.jobCount() == 0);
}

TEST_CASE("random bytes and messages nested past the limit are INVALID_ARGUMENT with a message") {
  ServedController served;
  // A tag whose varint never ends.
  grpc::Status random = served.callRaw(kSubmit, std::string(12, '\xff'));
  CHECK(random.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_THAT(random.error_message(), Catch::StartsWith("cannot parse the request of /gantry.v1.Controller/SubmitJob"));
  // 200 unknown groups (field 99) inside each other.
  std::string nested;
  for (int i = 0; i < 200; ++i) nested += "\x9b\x06";
  for (int i = 0; i < 200; ++i) nested += "\x9c\x06";
  grpc::Status deep = served.callRaw(kSubmit, nested);
  CHECK(deep.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_FALSE(deep.error_message().empty());
  // The agent service answers the same way.
  grpc::Status agent = served.callRaw("/gantry.v1.ControllerAgent/Register", lengthDelimited('\x0a', "n\xc0"));
  CHECK(agent.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_THAT(agent.error_message(), Catch::Contains("gantry.v1.RegisterRequest.node_name"));
  CHECK(served.jobCount() == 0);
  // The server still serves well-formed requests afterwards.
  v1::SubmitJobRequest valid;
  valid.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  CHECK(served.call(kSubmit, valid).ok());
  CHECK(served.jobCount() == 1);
}

TEST_CASE("fields no handler can act on are INVALID_ARGUMENT naming the field") {
  ServedController served;
  struct Case {
    const char* method;
    std::string bytes;
    const char* message;
  };
  v1::JobActionRequest noJob;
  v1::CancelJobRequest badSignal;
  badSignal.add_job_ids(1);
  badSignal.set_signal(65);
  v1::CancelJobRequest zeroId;
  zeroId.add_job_ids(0);
  v1::UpdateNodeRequest noNodes;
  noNodes.set_state("DRAIN");
  v1::GetStepRequest noStep;
  noStep.set_job_id(1);
  v1::CreateStepRequest noCommand;
  noCommand.set_job_id(1);
  v1::StepCompleteRequest badSignalEnd;
  badSignalEnd.set_node_name("n1");
  badSignalEnd.set_job_id(1);
  badSignalEnd.set_step_id("batch");
  badSignalEnd.set_term_signal(1 << 30);
  v1::RegisterRequest noName;
  v1::RegisterRequest negativeCpus;
  negativeCpus.set_node_name("n1");
  negativeCpus.mutable_hardware()->set_cpus(-4);
  v1::SubmitJobRequest negativeTasks;
  negativeTasks.mutable_spec()->set_ntasks(-3);
  v1::ListJobsRequest badSluid;
  badSluid.add_sluids("s0123456789ABC");
  badSluid.add_sluids("s0123");
  v1::UpdateJobRequest unnamedGres;
  unnamedGres.set_job_id(1);
  unnamedGres.mutable_gres_per_node()->add_items()->set_count(2);
  v1::UpdateJobRequest endlessGres;
  endlessGres.set_job_id(1);
  for (int i = 0; i < 65; ++i) endlessGres.mutable_gres_per_node()->add_items()->set_name("g" + std::to_string(i));
  const Case cases[] = {
      {"/gantry.v1.Controller/UpdateJob", unnamedGres.SerializeAsString(), "gres_per_node.items.name: must not be empty"},
      {"/gantry.v1.Controller/UpdateJob", endlessGres.SerializeAsString(), "gres_per_node.items: at most 64, got 65"},
      {"/gantry.v1.Controller/HoldJob", noJob.SerializeAsString(), "job_id: must be a job id (1 or more), got 0"},
      {"/gantry.v1.Controller/SuspendJob", noJob.SerializeAsString(), "job_id: must be a job id"},
      {"/gantry.v1.Controller/CompleteAllocation", noJob.SerializeAsString(), "job_id: must be a job id"},
      {"/gantry.v1.Controller/CancelJob", badSignal.SerializeAsString(), "signal: must be between 0 and 64, got 65"},
      {"/gantry.v1.Controller/CancelJob", zeroId.SerializeAsString(), "job_ids: must be a job id"},
      {"/gantry.v1.Controller/UpdateNode", noNodes.SerializeAsString(), "node_names: must not be empty"},
      {"/gantry.v1.Controller/GetStep", noStep.SerializeAsString(), "step_id: must name a step"},
      {"/gantry.v1.Controller/CreateStep", noCommand.SerializeAsString(), "argv: the step has no command"},
      {"/gantry.v1.ControllerAgent/StepComplete", badSignalEnd.SerializeAsString(), "term_signal: must be between"},
      {"/gantry.v1.ControllerAgent/Register", noName.SerializeAsString(), "node_name: must not be empty"},
      {"/gantry.v1.ControllerAgent/Register", negativeCpus.SerializeAsString(), "hardware.cpus: must be 0 or more, got -4"},
      {"/gantry.v1.ControllerAgent/Heartbeat", std::string(), "node_name: must not be empty"},
      {kSubmit, std::string(), "spec: the request carries no job"},
      {"/gantry.v1.Controller/ListJobs", badSluid.SerializeAsString(), "sluids[1]: not a SLUID"},
      {kSubmit, negativeTasks.SerializeAsString(), "invalid --ntasks (spec.ntasks): must be 0 or more, got -3"},
  };
  for (const Case& c : cases) {
    INFO(c.method << " expecting " << c.message);
    grpc::Status status = served.callRaw(c.method, c.bytes);
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK_THAT(status.error_message(), Catch::StartsWith(c.message));
  }
  CHECK(served.jobCount() == 0);
}

TEST_CASE("UpdateTres and ListDrainedTres: bounds and forms are INVALID_ARGUMENT naming the field", "[drain]") {
  ServedController served;
  struct Row {
    const char* rule;
    std::string method;
    std::string bytes;
    const char* message;
  };
  auto words = [](std::vector<std::string> list) {
    v1::UpdateTresRequest request;
    for (auto& word : list) request.add_words(word);
    return request;
  };
  v1::UpdateTresRequest both = words({"TresName=cpu"});
  both.set_json("{}");
  std::vector<std::string> many(65, "Index=1");
  v1::UpdateTresRequest longJson;
  longJson.set_json(std::string(64 * 1024 + 1, ' '));
  v1::ListDrainedTresRequest longNames;
  longNames.set_node_names(std::string(64 * 1024 + 1, 'n'));
  const std::string kUpdateTres = "/gantry.v1.Controller/UpdateTres";
  const Row rows[] = {
      {"neither words nor json", kUpdateTres, std::string(), "words, json: the request is empty"},
      {"both words and json", kUpdateTres, both.SerializeAsString(), "words, json: give one form of the request, not both"},
      {"at most 64 words", kUpdateTres, words(many).SerializeAsString(), "words: must be at most 64 words, got 65"},
      {"each word at most 4096 bytes", kUpdateTres,
       words({"TresName=cpu", "Reason=" + std::string(4090, 'x')}).SerializeAsString(),
       "words[1]: must be at most 4096 bytes, got 4097"},
      {"json at most 64 KiB", kUpdateTres, longJson.SerializeAsString(), "json: must be at most 65536 bytes, got 65537"},
      {"node_names at most 64 KiB", "/gantry.v1.Controller/ListDrainedTres", longNames.SerializeAsString(),
       "node_names: must be at most 65536 bytes, got 65537"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    grpc::Status status = served.callRaw(row.method, row.bytes);
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK_THAT(status.error_message(), Catch::StartsWith(row.message));
  }
  INFO("the largest allowed request passes the bounds (the core judges its words)");
  v1::UpdateTresRequest largest = words(std::vector<std::string>(64, std::string(4096, 'w')));
  grpc::Status status = served.call(kUpdateTres, largest);
  CHECK_THAT(status.error_message(), !Catch::Contains("must be at most"));
}
