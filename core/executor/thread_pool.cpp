#include "core/executor/thread_pool.h"

#include "core/errors.h"

#include <algorithm>
#include <chrono>
#include <string>

#if defined(__linux__)
#include <sched.h>
#endif

namespace remat::exec {

namespace {

// How long a thread spins before it sleeps: the regions of one layer follow
// each other within microseconds, and waking a sleeping thread costs about
// as much as a small region.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Spins until `ready()` or kSpin has passed; true when ready.
template <class Ready> bool spinUntil(Ready ready) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int k = 1;; ++k) {
        if (ready())
            return true;
        relax();
        if (k % 64 == 0 && std::chrono::steady_clock::now() > until)
            return false;
    }
}

} // namespace

int availableCores() {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return std::max(1, CPU_COUNT(&set));
#endif
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void requireThreadCount(const char *what, int threads) {
    if (threads < 1 || threads > kMaxThreads)
        throw InvalidArgument(std::string(what) + " must be an integer from 1 to " + std::to_string(kMaxThreads) +
                              ", got " + std::to_string(threads));
}

ThreadPool::ThreadPool(int threads) : threads_(threads) {
    requireThreadCount("threads", threads);
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int lane = 1; lane < threads; ++lane)
        workers_.emplace_back([this, lane] { work(lane); });
}

ThreadPool::~ThreadPool() {
    stopping_.store(true);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    for (std::thread &t : workers_)
        t.join();
}

void ThreadPool::takeTasks(int lane) {
    for (std::int64_t task; (task = next_.fetch_add(1, std::memory_order_relaxed)) < tasks_;) {
        try {
            body_(task, lane);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(errorMutex_);
            if (!error_)
                error_ = std::current_exception();
            next_.store(tasks_, std::memory_order_relaxed); // the rest is not worth running
        }
    }
}

// Every worker answers every region (lanes beyond it take no task), so a
// region's settings cannot change under a worker that woke late.
void ThreadPool::work(int lane) {
    std::uint32_t seen = 0;
    for (;;) {
        if (!spinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; }))
            generation_.wait(seen, std::memory_order_acquire);
        seen = generation_.load(std::memory_order_acquire);
        if (stopping_.load())
            return;
        if (lane < lanes_)
            takeTasks(lane);
        if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1)
            busy_.notify_one();
    }
}

void ThreadPool::run(std::int64_t tasks, Body body, int maxLanes) {
    if (tasks <= 0)
        return;
    const int lanes = static_cast<int>(std::min<std::int64_t>({threads_, std::max(1, maxLanes), tasks}));
    if (lanes == 1) {
        for (std::int64_t task = 0; task < tasks; ++task)
            body(task, 0);
        return;
    }
    body_ = body;
    tasks_ = tasks;
    lanes_ = lanes;
    error_ = nullptr;
    next_.store(0, std::memory_order_relaxed);
    busy_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    takeTasks(0);
    for (int left; (left = busy_.load(std::memory_order_acquire)) != 0;)
        if (!spinUntil([&] { return busy_.load(std::memory_order_acquire) == 0; }))
            busy_.wait(left, std::memory_order_acquire);
    body_ = {};
    if (error_)
        std::rethrow_exception(std::exchange(error_, nullptr));
}

} // namespace remat::exec
