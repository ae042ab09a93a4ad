// The connection every query and action subcommand makes: find the
// configuration directory, read gantry.conf for the controller's address
// and the authentication type, and call the controller with a token.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "common/auth/identity.h"
#include "common/rpc/channel.h"
#include "common/rpc/error_status.h"
#include "common/util/result.h"
#include "gantry/v1/controller.grpc.pb.h"

namespace gantry::cli {

// --conf-dir if given, else $GANTRY_CONF_DIR, else /etc/gantry.
std::string resolveConfDir(const std::string& fromOption);

class ControllerClient {
 public:
  // Reads <confDir>/gantry.conf; fails naming the file or the auth problem.
  static Result<ControllerClient> connect(const std::string& confDirOption);

  // Runs one call with a fresh context (token + deadline). `invoke` gets
  // the stub, the context and the response to fill. A failure keeps the
  // kind the controller answered (rpc::fromGrpcStatus); one that did not
  // get through is Unavailable.
  template <typename Response, typename Invoke>
  Result<Response> call(Invoke invoke) const {
    auto context = rpc::makeCallContext(*authenticator_);
    if (!context) {
      return Error{context.errorCode(), "cannot authenticate to the controller: " + context.error()};
    }
    Response response;
    grpc::Status status = invoke(*stub_, context->get(), &response);
    if (!status.ok()) return rpc::fromGrpcStatus(status, "controller at " + endpoint_);
    return response;
  }

  // ListJobs, page after page until the controller says it was the last:
  // every matching job in one response.
  Result<gantry::v1::ListJobsResponse> listJobs(gantry::v1::ListJobsRequest request) const {
    gantry::v1::ListJobsResponse all;
    for (;;) {
      auto page = call<gantry::v1::ListJobsResponse>([&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.ListJobs(context, request, out);
      });
      if (!page) return page;
      for (auto& job : *page->mutable_jobs()) *all.add_jobs() = std::move(job);
      if (page->next_after_job_id() == 0 || page->next_after_job_id() <= request.after_job_id()) return all;
      request.set_after_job_id(page->next_after_job_id());
    }
  }

  // The controller's address (SlurmctldAddr, else its host) and port.
  const std::string& controllerHost() const { return host_; }
  int controllerPort() const { return port_; }
  // The first SlurmctldHost's name, as Slurm's commands name the controller.
  const std::string& controllerName() const { return name_; }
  // From gantry.conf, for the "meta" of --json answers.
  const std::string& clusterName() const { return clusterName_; }
  const std::string& accountingStorageType() const { return accountingStorageType_; }

 private:
  std::shared_ptr<gantry::v1::Controller::Stub> stub_;
  std::shared_ptr<auth::Authenticator> authenticator_;
  std::string endpoint_;
  std::string host_;
  std::string name_;
  std::string clusterName_;
  std::string accountingStorageType_;
  int port_ = 0;
};

}  // namespace gantry::cli
