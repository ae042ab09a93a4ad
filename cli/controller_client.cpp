#include "cli/controller_client.h"

#include <cstdlib>

#include "common/config/gantry_conf.h"

namespace gantry::cli {

std::string resolveConfDir(const std::string& fromOption) {
  if (!fromOption.empty()) return fromOption;
  if (const char* env = std::getenv("GANTRY_CONF_DIR"); env != nullptr && *env != '\0') return env;
  return "/etc/gantry";
}

Result<ControllerClient> ControllerClient::connect(const std::string& confDirOption) {
  std::string path = resolveConfDir(confDirOption) + "/gantry.conf";
  auto loaded = config::loadGantryConf(path);
  if (!loaded) return Error{loaded.error()};
  const config::GantryConf& conf = loaded->conf;
  std::string addr = conf.controllerAddr.empty() ? conf.controllerHost : conf.controllerAddr;
  if (addr.empty()) return Error{path + ": SlurmctldHost is not set; cannot find the controller"};
  auto authenticator = auth::makeAuthenticator(conf.authType, conf.authInfo);
  if (!authenticator) return Error{path + ": " + authenticator.error()};

  ControllerClient client;
  client.endpoint_ = rpc::endpoint(addr, conf.controllerPort);
  client.host_ = addr;
  client.port_ = conf.controllerPort;
  client.name_ = conf.controllerHost.empty() ? addr : conf.controllerHost;
  client.clusterName_ = conf.clusterName;
  client.accountingStorageType_ = conf.accountingStorageType;
  client.stub_ = gantry::v1::Controller::NewStub(rpc::makeChannel(addr, conf.controllerPort));
  client.authenticator_ = std::move(*authenticator);
  return client;
}

}  // namespace gantry::cli
