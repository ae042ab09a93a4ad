// srun -l: every line a task writes is printed as "<task id>: <line>".
// Output arrives in chunks that may end mid-line, so each (task, stream)
// keeps its unfinished line until the rest arrives or the stream ends.
// Pure and single-threaded; the caller serialises access.
#pragma once

#include <map>
#include <string>
#include <utility>

namespace gantry::cli {

class OutputLabeler {
 public:
  // Returns the complete lines of `data`, labelled, ready to print.
  std::string feed(int task, int stream, const std::string& data);
  // The unfinished line of one stream (labelled, newline added), or "".
  std::string flush(int task, int stream);

 private:
  std::map<std::pair<int, int>, std::string> partial_;
};

}  // namespace gantry::cli
