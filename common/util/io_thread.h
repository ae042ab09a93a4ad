// An io_context with one thread of its own, for code that has no event loop
// but starts asynchronous work (child processes, timers): all of it shares
// this one thread instead of a thread waiting on each.
//
// Thread-safe: executor() may be used from any thread. The destructor stops
// the loop and joins the thread; work still pending is dropped without its
// callbacks running, so it must not be called from the loop's own thread.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>

namespace gantry {

class IoThread {
 public:
  IoThread() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    io_.stop();
    thread_.join();
  }
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;

  boost::asio::io_context::executor_type executor() { return io_.get_executor(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace gantry
