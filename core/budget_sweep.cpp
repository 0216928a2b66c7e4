#include "core/budget_sweep.h"

#include "core/errors.h"
#include "core/executor/thread_pool.h"
#include "core/strategy_registry.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>

namespace remat {

std::vector<std::optional<Schedule>> planBudgets(const Model &model, const std::vector<SweepBudget> &budgets,
                                                 const SweepOptions &options) {
    if (options.threads < 0 || options.threads > exec::kMaxThreads)
        throw InvalidArgument("the sweep's threads must be 0 (every core) to " + std::to_string(exec::kMaxThreads) +
                              ", got " + std::to_string(options.threads));
    const std::size_t n = budgets.size();
    std::vector<std::optional<Schedule>> plans(n);
    if (n == 0)
        return plans;
    // A failure stops the plans still running (as a cancel does), so that it
    // is reported without waiting for them.
    std::atomic<bool> failed{false};
    const std::function<bool()> stop = [&] {
        return failed.load(std::memory_order_relaxed) || (options.cancelled && options.cancelled());
    };
    std::mutex progressMutex;
    std::vector<double> done(n, 0);
    auto report = [&](std::size_t i, double fraction) {
        if (!options.progress)
            return;
        const std::lock_guard<std::mutex> lock(progressMutex);
        done[i] = std::max(done[i], fraction);
        double sum = 0;
        for (double d : done)
            sum += d;
        options.progress(sum / static_cast<double>(n));
    };
    std::vector<std::exception_ptr> errors(n);
    const StrategyRegistry &registry = StrategyRegistry::builtin();
    int searchThreads = options.base.searchThreads;
    auto plan = [&](std::int64_t task, int) {
        const auto i = static_cast<std::size_t>(task);
        try {
            if (stop())
                throw Cancelled();
            StrategyParams params = options.base;
            params.budgetBytes = budgets[i].bytes;
            if (!budgets[i].offload)
                params.machine.reset();
            params.searchThreads = searchThreads;
            params.cancelled = stop;
            params.progress = [&report, i](double f) { report(i, f); };
            plans[i] = registry.get(budgets[i].offload ? "offload-budget" : "budget").makeSchedule(model, params);
        } catch (const InvalidArgument &) {
            // Below what the planner can fit (or within its rounding): no plan at this budget.
        } catch (...) {
            errors[i] = std::current_exception();
            failed.store(true, std::memory_order_relaxed);
        }
        report(i, 1);
    };
    const int cores = options.threads > 0 ? options.threads : exec::availableCores();
    const int lanes = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(cores), n));
    // The cores shared out: the MILP solver, one budget at a time, is what
    // the sweep waits for, and a search beside it on more threads than are
    // left would slow it down.
    if (options.base.searchThreads == 0)
        searchThreads = std::max(1, cores / lanes);
    exec::ThreadPool pool(lanes);
    pool.run(static_cast<std::int64_t>(n), plan);
    std::exception_ptr cancelled;
    for (const std::exception_ptr &e : errors) {
        if (!e)
            continue;
        try {
            std::rethrow_exception(e);
        } catch (const Cancelled &) {
            cancelled = cancelled ? cancelled : e;
        } catch (...) {
            throw;
        }
    }
    if (cancelled)
        std::rethrow_exception(cancelled);
    return plans;
}

} // namespace remat
