#include "cli/step_io_server.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>

#include "cli/step_token.h"
#include "cli/task_exit_lines.h"
#include "common/rpc/error_status.h"

namespace gantry::cli {

StepIoServer::StepIoServer(std::string token, bool label) : token_(std::move(token)), label_(label) {}

StepIoServer::~StepIoServer() {
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

Status StepIoServer::start(const std::string& address) {
  const std::string where = (address.find(':') != std::string::npos ? "[" + address + "]" : address) + ":0";
  grpc::ServerBuilder builder;
  builder.AddListeningPort(where, grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(this);
  server_ = builder.BuildAndStart();
  if (!server_ || port_ == 0) {
    return Error{ErrorCode::Internal, "cannot listen on " + address + " for the step's input and output"};
  }
  return okStatus();
}

void StepIoServer::expectNodes(int nodes) {
  std::lock_guard lock(mutex_);
  expected_ = nodes;
  changed_.notify_all();
}

bool StepIoServer::waitAllDone(int ms) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, std::chrono::milliseconds(ms),
                           [this] { return expected_ >= 0 && done_ >= expected_; });
}

int StepIoServer::nodesDone() {
  std::lock_guard lock(mutex_);
  return done_;
}

int StepIoServer::exitCode() {
  std::lock_guard lock(mutex_);
  return exit_code_;
}

std::vector<std::string> StepIoServer::failureMessages() {
  std::lock_guard lock(mutex_);
  return failures_;
}

std::vector<std::string> StepIoServer::taskExitMessages() {
  std::lock_guard lock(mutex_);
  return task_exits_;
}

bool StepIoServer::outputClosed() {
  std::lock_guard lock(mutex_);
  return output_closed_;
}

void StepIoServer::print(const gantry::v1::StepOutput& chunk) {
  FILE* out = chunk.stream() == gantry::v1::STDERR ? stderr : stdout;
  std::string text = label_ ? labeler_.feed(chunk.task_id(), chunk.stream(), chunk.data()) : chunk.data();
  if (output_closed_) return;
  // SIGPIPE is ignored in srun, so a reader that went away shows as EPIPE.
  errno = 0;
  bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  written = std::fflush(out) == 0 && written;
  if (!written && errno == EPIPE) {
    output_closed_ = true;
    std::clearerr(out);
    changed_.notify_all();
  }
}

grpc::Status StepIoServer::Attach(grpc::ServerContext*, Stream* stream) {
  gantry::v1::StepOutput message;
  if (!stream->Read(&message) || !sameToken(message.token(), token_)) {
    return rpc::toGrpcStatus(Error{ErrorCode::Denied, "not a node of this step"});
  }
  const std::string node = message.node_name();  // said once, in the first message
  {
    std::lock_guard writing(write_mutex_);
    std::lock_guard lock(mutex_);
    streams_.insert(stream);
    ++attached_;
    if (rows_ > 0) {
      gantry::v1::StepInput size;
      size.set_rows(rows_);
      size.set_cols(cols_);
      stream->Write(size);
    }
    changed_.notify_all();
  }
  bool finished = false;
  std::set<std::pair<int, int>> seen;
  while (stream->Read(&message)) {
    std::lock_guard lock(mutex_);
    if (!message.data().empty()) {
      seen.insert({message.task_id(), message.stream()});
      print(message);
    }
    if (!message.done()) continue;
    if (label_) {
      for (const auto& [task, which] : seen) {
        std::string rest = labeler_.flush(task, which);
        std::fwrite(rest.data(), 1, rest.size(), which == gantry::v1::STDERR ? stderr : stdout);
      }
      std::fflush(stdout);
    }
    for (const auto& exit : message.exits()) {
      int code = exit.signal() != 0 ? 128 + exit.signal() : exit.exit_code();
      exit_code_ = std::max(exit_code_, code);
    }
    for (auto& line : taskExitLines(node, message.exits(), signalled_))
      task_exits_.push_back(std::move(line));
    if (!message.message().empty()) {
      failures_.push_back(message.message());
      exit_code_ = std::max(exit_code_, 1);
    }
    finished = true;
    break;
  }
  // Not while a write to this stream is under way: it ends with this call.
  std::lock_guard writing(write_mutex_);
  std::lock_guard lock(mutex_);
  streams_.erase(stream);
  if (!finished) {
    failures_.push_back("lost the connection to a node of the step");
    exit_code_ = std::max(exit_code_, 1);
  }
  ++done_;
  changed_.notify_all();
  return grpc::Status::OK;
}

void StepIoServer::broadcast(const gantry::v1::StepInput& input) {
  std::lock_guard writing(write_mutex_);
  std::set<Stream*> streams;
  {
    std::lock_guard lock(mutex_);
    streams = streams_;
  }
  for (Stream* stream : streams) stream->Write(input);
}

void StepIoServer::forwardSignal(int signal) {
  {
    std::lock_guard lock(mutex_);
    signalled_ = true;
  }
  gantry::v1::StepInput input;
  input.set_signal(signal);
  broadcast(input);
}

void StepIoServer::setWindowSize(int rows, int cols) {
  {
    std::lock_guard lock(mutex_);
    rows_ = rows;
    cols_ = cols;
  }
  gantry::v1::StepInput size;
  size.set_rows(rows);
  size.set_cols(cols);
  broadcast(size);
}

void StepIoServer::pumpStdin(int fd) {
  {
    // Input read before every node attached could miss task 0's node.
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return expected_ >= 0 && (attached_ >= expected_ || done_ >= expected_); });
  }
  char buffer[16 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    gantry::v1::StepInput input;
    input.set_stdin_data(buffer, static_cast<size_t>(n));
    broadcast(input);
  }
  gantry::v1::StepInput eof;
  eof.set_stdin_eof(true);
  broadcast(eof);
}

}  // namespace gantry::cli
