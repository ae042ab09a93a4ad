#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "common/rpc/channel.h"
#include "gantry/v1/controller.grpc.pb.h"

namespace {

class Controller final : public gantry::v1::Controller::Service {
 public:
  grpc::Status GetConfig(grpc::ServerContext*, const gantry::v1::GetConfigRequest*,
                         gantry::v1::GetConfigResponse*) override {
    return grpc::Status::OK;
  }
};

// A loopback TCP relay that accepts at once but passes nothing on for
// `delay`: a server too busy to answer a new connection's handshake
// quickly, as a controller under many clients on a small machine is.
class SlowRelay {
 public:
  SlowRelay(int upstreamPort, std::chrono::milliseconds delay) : upstream_(upstreamPort), delay_(delay) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    REQUIRE(::listen(listener_, 16) == 0);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { acceptLoop(); });
  }
  ~SlowRelay() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    for (auto& relay : relays_) relay.join();
    ::close(listener_);
  }
  int port() const { return port_; }

 private:
  static sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    return address;
  }

  void acceptLoop() {
    for (;;) {
      int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      relays_.emplace_back([this, client] { relay(client); });
    }
  }

  void relay(int client) {
    std::this_thread::sleep_for(delay_);
    int server = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = loopback(upstream_);
    if (::connect(server, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
      pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
      char buffer[16384];
      while (!stopping_) {
        if (::poll(fds, 2, 100) <= 0) continue;
        bool closed = false;
        for (int i = 0; i < 2; ++i) {
          if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
          ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
          if (n <= 0 || ::write(fds[1 - i].fd, buffer, static_cast<size_t>(n)) != n) closed = true;
        }
        if (closed) break;
      }
    }
    ::close(server);
    ::close(client);
  }

  int upstream_;
  std::chrono::milliseconds delay_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::vector<std::thread> relays_;
};

}  // namespace

TEST_CASE("a call gets through a server that is slow to complete a new connection's handshake", "[rpc]") {
  Controller service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  REQUIRE(server);
  {
    // Slower than a connect timeout tied to a 100 ms reconnect backoff
    // allowed, well within a call's deadline.
    SlowRelay relay(port, std::chrono::milliseconds(600));
    auto stub = gantry::v1::Controller::NewStub(gantry::rpc::makeChannel("127.0.0.1", relay.port()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    gantry::v1::GetConfigResponse response;
    grpc::Status status = stub->GetConfig(&context, gantry::v1::GetConfigRequest{}, &response);
    CHECK(status.error_message() == "");
    CHECK(status.ok());
  }
  server->Shutdown();
}
