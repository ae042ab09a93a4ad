#include "cli/allocation_keeper.h"

namespace gantry::cli {

AllocationKeeper::~AllocationKeeper() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AllocationKeeper::start(uint64_t jobId) {
  if (thread_.joinable()) return;
  thread_ = std::thread([this, jobId] { loop(jobId); });
}

void AllocationKeeper::loop(uint64_t jobId) {
  gantry::v1::KeepAllocationRequest request;
  request.set_job_id(jobId);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    // A failed call is not fatal: the next one may get through, and the
    // controller only gives up after several.
    (void)client_.call<gantry::v1::KeepAllocationResponse>(
        [&request](auto& stub, grpc::ClientContext* context, auto* out) {
          return stub.KeepAllocation(context, request, out);
        });
    lock.lock();
    wake_.wait_for(lock, kKeepAllocationInterval, [this] { return stopping_; });
  }
}

}  // namespace gantry::cli
