#include "cli/local_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace gantry::cli {

Result<std::string> localAddressToward(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Error{"cannot resolve the controller's host " + host + ": " + ::gai_strerror(rc)};
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  std::string failure = "no address";
  for (addrinfo* candidate = found; candidate != nullptr; candidate = candidate->ai_next) {
    int fd = ::socket(candidate->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      failure = std::strerror(errno);
      continue;
    }
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    const bool ok = ::connect(fd, candidate->ai_addr, candidate->ai_addrlen) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0;
    if (!ok) failure = std::strerror(errno);
    ::close(fd);
    if (!ok) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* address = local.ss_family == AF_INET6
                              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                              : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    if (::inet_ntop(local.ss_family, address, text, sizeof text) != nullptr) return std::string(text);
    failure = std::strerror(errno);
  }
  return Error{"cannot find this host's address toward the controller's host " + host + ": " + failure};
}

}  // namespace gantry::cli
