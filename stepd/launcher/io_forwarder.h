// The standard streams of an interactive (srun) step on this node. Each task
// gets pipes instead of files; once the tasks run, the forwarder connects to
// the srun that asked for the step (gantry.v1.StepIo.Attach) and
//   - sends every chunk a task writes, tagged with its global task id and
//     stream, so srun can print (and label) it;
//   - writes what srun sends as standard input to task 0;
//   - hands the signals srun forwards (Ctrl-C) to the step runner through
//     signalFd(), and asks for SIGKILL when srun goes away, since nobody
//     is left to read the output;
//   - sends every task's exit status last.
//
// Threads: the forwarder runs one thread for output and one for srun's
// messages. The public methods are for the step runner's thread only; the
// signal queue is the one piece both sides touch and a mutex guards it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/util/result.h"
#include "stepd/core/step_spec.h"
#include "stepd/launcher/task_streams.h"

namespace gantry::stepd {

struct TaskExitStatus {
  int task_id = 0;
  int exit_code = 0;
  int signal = 0;
};

class IoForwarder {
 public:
  // Nothing is connected yet: the tasks are forked before any gRPC thread
  // exists, so no thread can hold a lock the children would inherit.
  IoForwarder(const StepSpec& spec, const IoSpec& io);
  ~IoForwarder();
  IoForwarder(const IoForwarder&) = delete;
  IoForwarder& operator=(const IoForwarder&) = delete;

  // Pipes for one task (global id); the returned ends are for the task.
  // Only task 0 gets standard input; the others read /dev/null. With
  // IoSpec::pty the (single) task gets a pseudo terminal for all three.
  Result<TaskStreams> openTask(int task_id);
  Result<TaskStreams> openTerminal(int task_id);
  // After every task started: closes the tasks' ends here, connects to srun
  // and starts forwarding. Fails (naming the endpoint) when srun is not
  // reachable.
  Status start();
  // Readable when srun forwarded a signal; takeSignals() empties the queue.
  int signalFd() const { return signal_fd_; }
  std::vector<int> takeSignals();
  // Sends what the tasks still write (waiting at most a few seconds for
  // processes that keep the pipes open), then the exit statuses and
  // `message` (why the step failed, or empty), and closes the stream.
  void finish(const std::vector<TaskExitStatus>& exits, const std::string& message);

 private:
  struct Pipe {
    int fd = -1;
    int task_id = 0;
    bool is_stderr = false;
  };
  struct Connection;

  void forwardOutput();
  void receiveInput();
  void pushSignal(int signal);
  void closeTaskEnds();

  StepSpec spec_;
  IoSpec io_;
  std::vector<Pipe> outputs_;    // our read ends of the tasks' stdout/stderr
  std::vector<int> task_ends_;   // the tasks' ends, closed here after start
  int stdin_fd_ = -1;            // our write end of task 0's standard input
  int pty_master_ = -1;          // --pty: the terminal's master side (window size)
  int signal_fd_ = -1;           // eventfd
  std::mutex signals_mutex_;
  std::vector<int> signals_;
  std::unique_ptr<Connection> connection_;
  std::thread output_thread_;
  std::thread input_thread_;
  std::atomic<bool> finishing_{false};
  std::atomic<bool> input_done_{false};
};

}  // namespace gantry::stepd
