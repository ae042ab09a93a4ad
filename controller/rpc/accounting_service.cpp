// The gRPC side of the accounting calls; the rules are in
// accounting_queries.cpp.
#include "common/rpc/channel.h"
#include "common/rpc/error_status.h"
#include "controller/rpc/services.h"

namespace gantry::ctlrpc {

grpc::Status ControllerService::ListAccountingJobs(grpc::ServerContext* context,
                                                   const v1::ListAccountingJobsRequest* request,
                                                   v1::ListAccountingJobsResponse* response) {
  auto caller = rpc::callerIdentity(*context, authenticator_);
  if (!caller) return rpc::toGrpcStatus(Error{caller.errorCode(), "authentication failed: " + caller.error()});
  auto answer = listAccountingJobs(accounting_, *request, *caller, core_.isAdministrator(*caller));
  if (!answer) return rpc::toGrpcStatus(answer.failure());
  *response = std::move(*answer);
  return grpc::Status::OK;
}

grpc::Status ControllerService::ListNodeEvents(grpc::ServerContext* context, const v1::ListNodeEventsRequest* request,
                                               v1::ListNodeEventsResponse* response) {
  auto caller = rpc::callerIdentity(*context, authenticator_);
  if (!caller) return rpc::toGrpcStatus(Error{caller.errorCode(), "authentication failed: " + caller.error()});
  auto answer = listNodeEvents(accounting_, *request);
  if (!answer) return rpc::toGrpcStatus(answer.failure());
  *response = std::move(*answer);
  return grpc::Status::OK;
}

}  // namespace gantry::ctlrpc
