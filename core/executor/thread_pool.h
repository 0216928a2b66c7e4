#pragma once
// The CPU backends' threads: a fixed set of workers that run the tasks of one
// parallel region at a time. Callers cut their work into tasks whose number
// and extent depend only on the sizes, never on the thread count, and each
// task writes its own outputs: so which thread runs a task cannot change a
// single bit, and 1 and N threads give the same results (cpu_ops.h).
#include "core/executor/function_ref.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace remat::exec {

// The most threads a backend accepts (`remat measure --threads`, the studio).
inline constexpr int kMaxThreads = 256;

// Cores this process may run on (its CPU affinity), at least 1.
int availableCores();

// Throws InvalidArgument "<what> must be an integer from 1 to 256, got <n>".
void requireThreadCount(const char *what, int threads);

class ThreadPool {
public:
    // `threads` - 1 workers; the caller of run() is the last thread.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    int threads() const { return threads_; }

    // Runs body(task, lane) for every task in [0, tasks) and returns when all
    // are done. At most min(threads, maxLanes) run at once; `lane` (0 ..
    // that - 1) tells a task which per-thread scratch is its own. The first
    // exception a task throws is rethrown here once the region has ended.
    using Body = FunctionRef<void(std::int64_t task, int lane)>;
    void run(std::int64_t tasks, Body body, int maxLanes = kMaxThreads);

private:
    void work(int lane);
    void takeTasks(int lane);

    int threads_;
    std::vector<std::thread> workers_;
    // The current region. `generation` moves on when one starts (workers
    // wait for it); `busy` counts lanes still taking tasks.
    Body body_;
    std::int64_t tasks_ = 0;
    int lanes_ = 0;
    std::atomic<std::int64_t> next_{0};
    std::atomic<std::uint32_t> generation_{0};
    std::atomic<int> busy_{0};
    std::atomic<bool> stopping_{false};
    std::mutex errorMutex_;
    std::exception_ptr error_;
};

} // namespace remat::exec
