// srun's end of an interactive step: a gantry.v1.StepIo server on an
// ephemeral port of one address of this host (the one toward the cluster). Every gantrystepd of the step attaches to it;
// their tasks' output is printed here (labelled with -l), standard input is
// sent to task 0, forwarded signals go to every node, and the tasks' exit
// codes are collected.
//
// Threads: gRPC runs one handler thread per attached node; the public
// methods may be called from any thread. `mutex_` guards the state and the
// terminal output; `write_mutex_` serialises writes to the nodes' streams,
// so a node slow to take input never holds up the printing of output.
#pragma once

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cli/output_labels.h"
#include "common/util/result.h"
#include "gantry/v1/io.grpc.pb.h"

namespace gantry::cli {

class StepIoServer final : public gantry::v1::StepIo::Service {
 public:
  StepIoServer(std::string token, bool label);
  ~StepIoServer() override;

  // Listens on `address` (numeric IPv4 or IPv6), on a port the kernel
  // picks. A node is let in only with the step's token (compared in
  // constant time, see step_token.h).
  Status start(const std::string& address);
  int port() const { return port_; }

  // The step is known (after CreateStep): how many nodes will attach.
  void expectNodes(int nodes);
  // Waits until every node sent its last message, or `ms` passed.
  bool waitAllDone(int ms);
  int nodesDone();
  // Highest task exit code (128 + signal for a task a signal ended).
  int exitCode();
  std::vector<std::string> failureMessages();
  // The tasks that failed or a signal ended, per node (task_exit_lines.h).
  std::vector<std::string> taskExitMessages();
  // Our standard output or error was closed by its reader (srun ... | head):
  // a write failed with EPIPE. From then on output is dropped; the caller
  // ends the step, as a local pipeline ends its writer.
  bool outputClosed();

  // Sends a signal to every attached node's tasks.
  void forwardSignal(int signal);
  // --pty: the size of srun's terminal, sent now and to nodes attaching later.
  void setWindowSize(int rows, int cols);
  // Reads this process's standard input and sends it to task 0 once the
  // nodes attached; returns when input ends. Run on a thread of its own.
  void pumpStdin(int fd);

  grpc::Status Attach(grpc::ServerContext* context,
                      grpc::ServerReaderWriter<gantry::v1::StepInput, gantry::v1::StepOutput>* stream) override;

 private:
  using Stream = grpc::ServerReaderWriter<gantry::v1::StepInput, gantry::v1::StepOutput>;
  void print(const gantry::v1::StepOutput& chunk);
  void broadcast(const gantry::v1::StepInput& input);

  std::string token_;
  bool label_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::mutex mutex_;
  std::mutex write_mutex_;  // taken before mutex_ when both are needed
  std::condition_variable changed_;
  std::set<Stream*> streams_;
  int expected_ = -1;
  int attached_ = 0;
  int done_ = 0;
  int exit_code_ = 0;
  int rows_ = 0, cols_ = 0;
  std::vector<std::string> failures_;
  std::vector<std::string> task_exits_;
  bool signalled_ = false;  // srun forwarded a signal to the tasks
  bool output_closed_ = false;
  OutputLabeler labeler_;
};

}  // namespace gantry::cli
