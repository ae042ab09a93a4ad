#include "stepd/launcher/io_forwarder.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pty.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <grpcpp/grpcpp.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <optional>
#include <utility>

#include "gantry/v1/io.grpc.pb.h"

namespace gantry::stepd {

using SteadyClock = std::chrono::steady_clock;

namespace {
// How long finish() waits for output after the tasks ended: a background
// process that inherited a pipe must not hold the step open for ever.
constexpr auto kDrainLimit = std::chrono::seconds(3);
// How long finish() waits for srun to close the stream after the last message.
constexpr auto kCloseLimit = std::chrono::seconds(5);
constexpr size_t kChunk = 64 * 1024;
}  // namespace

struct IoForwarder::Connection {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::StepIo::Stub> stub;
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::StepOutput, v1::StepInput>> stream;
  std::mutex mutex;  // input_done_ notification
  std::condition_variable input_ended;
};

IoForwarder::IoForwarder(const StepSpec& spec, const IoSpec& io) : spec_(spec), io_(io) {
  signal_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

IoForwarder::~IoForwarder() {
  finishing_ = true;
  if (connection_) connection_->context.TryCancel();
  if (output_thread_.joinable()) output_thread_.join();
  if (input_thread_.joinable()) input_thread_.join();
  for (const auto& pipe : outputs_) ::close(pipe.fd);
  closeTaskEnds();
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  if (signal_fd_ >= 0) ::close(signal_fd_);
}

Result<TaskStreams> IoForwarder::openTerminal(int task_id) {
  if (pty_master_ >= 0) return Error{"--pty: a pseudo terminal serves one task only"};
  int master = -1, slave = -1;
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    return Error{std::string("--pty: cannot open a pseudo terminal: ") + std::strerror(errno)};
  }
  ::fcntl(master, F_SETFD, FD_CLOEXEC);
  ::fcntl(slave, F_SETFD, FD_CLOEXEC);
  pty_master_ = master;
  // Output and input share the master; input gets a descriptor of its own
  // so each side can be closed apart.
  outputs_.push_back({.fd = master, .task_id = task_id, .is_stderr = false});
  stdin_fd_ = ::fcntl(master, F_DUPFD_CLOEXEC, 0);
  task_ends_.push_back(slave);
  return TaskStreams{.in = slave, .out = slave, .err = slave};
}

Result<TaskStreams> IoForwarder::openTask(int task_id) {
  if (signal_fd_ < 0) return Error{std::string("eventfd failed: ") + std::strerror(errno)};
  if (io_.pty) return openTerminal(task_id);
  TaskStreams task;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return Error{std::string("pipe: ") + std::strerror(errno)};
  }
  outputs_.push_back({.fd = out[0], .task_id = task_id, .is_stderr = false});
  outputs_.push_back({.fd = err[0], .task_id = task_id, .is_stderr = true});
  task_ends_.push_back(out[1]);
  task_ends_.push_back(err[1]);
  task.out = out[1];
  task.err = err[1];
  if (task_id == 0) {
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
    stdin_fd_ = in[1];
    task_ends_.push_back(in[0]);
    task.in = in[0];
  } else {
    int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) return Error{std::string("cannot open /dev/null: ") + std::strerror(errno)};
    task_ends_.push_back(null_fd);
    task.in = null_fd;
  }
  return task;
}

void IoForwarder::closeTaskEnds() {
  for (int fd : task_ends_) ::close(fd);
  task_ends_.clear();
}

Status IoForwarder::start() {
  closeTaskEnds();
  // srun sends the numeric address it listens on; an IPv6 one needs brackets.
  const bool ipv6 = io_.addr.find(':') != std::string::npos && io_.addr.front() != '[';
  const std::string endpoint = (ipv6 ? "[" + io_.addr + "]" : io_.addr) + ":" + std::to_string(io_.port);
  connection_ = std::make_unique<Connection>();
  connection_->channel = grpc::CreateChannel(endpoint, grpc::InsecureChannelCredentials());
  if (!connection_->channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    return Error{"cannot reach srun at " + endpoint + " for the step's input and output"};
  }
  connection_->stub = v1::StepIo::NewStub(connection_->channel);
  connection_->stream = connection_->stub->Attach(&connection_->context);
  v1::StepOutput hello;
  hello.set_job_id(spec_.job_id);
  hello.set_step_id(spec_.step_id);
  hello.set_node_name(spec_.node_name);
  hello.set_token(io_.token);
  if (!connection_->stream->Write(hello)) return Error{"srun at " + endpoint + " closed the step's stream"};
  output_thread_ = std::thread([this] { forwardOutput(); });
  input_thread_ = std::thread([this] { receiveInput(); });
  return okStatus();
}

void IoForwarder::forwardOutput() {
  std::vector<Pipe> open = outputs_;
  std::vector<char> buffer(kChunk);
  std::optional<SteadyClock::time_point> give_up;
  while (!open.empty()) {
    if (finishing_ && !give_up) give_up = SteadyClock::now() + kDrainLimit;
    if (give_up && SteadyClock::now() >= *give_up) break;
    std::vector<pollfd> fds;
    for (const auto& pipe : open) fds.push_back({.fd = pipe.fd, .events = POLLIN, .revents = 0});
    if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) break;
    std::vector<Pipe> still_open;
    for (size_t i = 0; i < open.size(); ++i) {
      if (fds[i].revents == 0) {
        still_open.push_back(open[i]);
        continue;
      }
      ssize_t n = ::read(open[i].fd, buffer.data(), buffer.size());
      if (n <= 0 && !(n < 0 && (errno == EINTR || errno == EAGAIN))) continue;  // EOF: drop it
      still_open.push_back(open[i]);
      if (n <= 0) continue;
      v1::StepOutput chunk;
      chunk.set_task_id(open[i].task_id);
      chunk.set_stream(open[i].is_stderr ? v1::STDERR : v1::STDOUT);
      chunk.set_data(buffer.data(), static_cast<size_t>(n));
      if (!connection_->stream->Write(chunk)) return;  // srun is gone; receiveInput reacts
    }
    open = std::move(still_open);
  }
}

void IoForwarder::receiveInput() {
  v1::StepInput input;
  while (connection_->stream->Read(&input)) {
    if (!input.stdin_data().empty() && stdin_fd_ >= 0) {
      const std::string& data = input.stdin_data();
      size_t written = 0;
      while (written < data.size()) {
        ssize_t n = ::write(stdin_fd_, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // task 0 closed its input: drop the rest
        written += static_cast<size_t>(n);
      }
    }
    if (input.rows() > 0 && input.cols() > 0 && pty_master_ >= 0) {
      winsize size{};
      size.ws_row = static_cast<unsigned short>(input.rows());
      size.ws_col = static_cast<unsigned short>(input.cols());
      ::ioctl(pty_master_, TIOCSWINSZ, &size);
    }
    // A terminal has no end of input: the user ends the shell instead.
    if (input.stdin_eof() && stdin_fd_ >= 0 && pty_master_ < 0) {
      ::close(stdin_fd_);
      stdin_fd_ = -1;
    }
    if (input.signal() > 0) pushSignal(input.signal());
  }
  // The stream ended before we said we were done: srun is gone and nobody
  // can see the output any more, so the step ends.
  if (!finishing_) pushSignal(SIGKILL);
  {
    std::lock_guard lock(connection_->mutex);
    input_done_ = true;
  }
  connection_->input_ended.notify_all();
}

void IoForwarder::pushSignal(int signal) {
  {
    std::lock_guard lock(signals_mutex_);
    signals_.push_back(signal);
  }
  uint64_t one = 1;
  (void)!::write(signal_fd_, &one, sizeof one);
}

std::vector<int> IoForwarder::takeSignals() {
  uint64_t count = 0;
  (void)!::read(signal_fd_, &count, sizeof count);
  std::lock_guard lock(signals_mutex_);
  return std::exchange(signals_, {});
}

void IoForwarder::finish(const std::vector<TaskExitStatus>& exits, const std::string& message) {
  finishing_ = true;
  if (!connection_ || !connection_->stream) return;
  if (output_thread_.joinable()) output_thread_.join();
  v1::StepOutput last;
  last.set_done(true);
  last.set_message(message);
  for (const auto& exit : exits) {
    v1::TaskExit* entry = last.add_exits();
    entry->set_task_id(exit.task_id);
    entry->set_exit_code(exit.exit_code);
    entry->set_signal(exit.signal);
  }
  connection_->stream->Write(last);
  connection_->stream->WritesDone();
  {
    std::unique_lock lock(connection_->mutex);
    if (!connection_->input_ended.wait_for(lock, kCloseLimit, [this] { return input_done_.load(); })) {
      connection_->context.TryCancel();
    }
  }
  if (input_thread_.joinable()) input_thread_.join();
  (void)connection_->stream->Finish();
}

}  // namespace gantry::stepd
