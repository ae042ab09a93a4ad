// The agent's side of the conversation with the controller, on one thread:
// register (again whenever the controller asks), heartbeat, and report each
// finished step until the controller acknowledges it. Steps reported as
// orphans (the controller does not know them) are terminated.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/auth/identity.h"
#include "gantry/v1/controller.grpc.pb.h"
#include "nodeagent/launch/step_launcher.h"

namespace gantry::agent {

struct LinkOptions {
  std::string controllerAddr;
  int controllerPort = 0;
  std::string nodeName;
  std::string listenAddr;  // what the controller should call back
  int listenPort = 0;
  v1::NodeHardware hardware;
  std::vector<std::string> hardwareErrors;
  std::chrono::milliseconds heartbeatInterval{2000};
  std::chrono::milliseconds pollInterval{200};
  int64_t bootTime = 0;
};

class ControllerLink {
 public:
  ControllerLink(LinkOptions options, StepLauncher& launcher, const auth::Authenticator& authenticator);
  ~ControllerLink();
  void start();
  void stop();
  // A reconfigure found the node's hardware anew: the next round registers
  // it, so the controller replaces the GRES it knew. Any thread may call.
  void updateHardware(v1::NodeHardware hardware, std::vector<std::string> hardwareErrors);

 private:
  void run();
  bool registerNode();
  void sendHeartbeat();
  void reportFinished();
  void terminateOrphans(const google::protobuf::RepeatedField<uint64_t>& jobs);
  std::string controllerName() const;  // "controller at host:port", for messages

  LinkOptions options_;
  std::mutex hardwareMutex_;  // guards options_.hardware and hardwareErrors
  std::atomic<bool> hardwareChanged_{false};
  StepLauncher& launcher_;
  const auth::Authenticator& authenticator_;
  std::unique_ptr<v1::ControllerAgent::Stub> stub_;
  std::atomic<bool> stopping_{false};
  bool registered_ = false;
  std::thread thread_;
};

}  // namespace gantry::agent
