#include "common/rpc/unparsed_request.h"

#include <google/protobuf/stubs/logging.h>
#include <grpcpp/support/server_interceptor.h>

#include <mutex>
#include <vector>

namespace gantry::rpc {
namespace {

namespace protolog = google::protobuf;
using grpc::experimental::InterceptionHookPoints;

// protobuf's words for a string field it refused while parsing.
constexpr std::string_view kUtf8Prefix = "String field '";
constexpr std::string_view kUtf8Suffix = "' contains invalid UTF-8 data when parsing";

// The last parse problem protobuf logged on this thread, until taken.
thread_local std::string lastParseProblem;
protolog::LogHandler* previousHandler = nullptr;

void catchParseProblems(protolog::LogLevel level, const char* file, int line, const std::string& message) {
  size_t start = message.find(kUtf8Prefix);
  size_t end = message.find(kUtf8Suffix);
  if (start != std::string::npos && end != std::string::npos && end > start) {
    std::string field = message.substr(start + kUtf8Prefix.size(), end - start - kUtf8Prefix.size());
    lastParseProblem = "string field " + field + " is not valid UTF-8";
  }
  if (previousHandler != nullptr) previousHandler(level, file, line, message);
}

std::string takeParseProblem() {
  std::string problem = std::move(lastParseProblem);
  lastParseProblem.clear();
  return problem;
}

class UnparsedRequestInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit UnparsedRequestInterceptor(const char* method) : method_(method != nullptr ? method : "") {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      std::string problem = takeParseProblem();
      if (methods->GetRecvMessage() == nullptr) {
        unparsed_ = true;
        detail_ = std::move(problem);
      }
    }
    if (unparsed_ && methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      // Only gRPC's own answer is replaced; INTERNAL is what it sends.
      if (methods->GetSendStatus().error_code() == grpc::StatusCode::INTERNAL) {
        methods->ModifySendStatus(
            grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, unparsedRequestMessage(method_, detail_)));
      }
    }
    methods->Proceed();
  }

 private:
  std::string method_;
  bool unparsed_ = false;
  std::string detail_;
};

class UnparsedRequestFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new UnparsedRequestInterceptor(info->method());
  }
};

}  // namespace

std::string unparsedRequestMessage(const std::string& method, const std::string& detail) {
  return "cannot parse the request of " + method + ": " +
         (detail.empty() ? "the bytes are not a valid encoding of its message (malformed, or nested "
                           "deeper than 100 levels)"
                         : detail);
}

void answerUnparsedRequests(grpc::ServerBuilder& builder) {
  static std::once_flag installed;
  std::call_once(installed, [] { previousHandler = protolog::SetLogHandler(&catchParseProblems); });
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<UnparsedRequestFactory>());
  builder.experimental().SetInterceptorCreators(std::move(creators));
}

}  // namespace gantry::rpc
