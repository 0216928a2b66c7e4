// offload-budget: for a device budget (--budget 2GiB) and a link (--link),
// the fastest schedule it finds, each activation kept, recomputed or sent to
// host: the faster, as the simulator times them, of
// - the budget planner's least-compute plan (recomputation only; no stalls),
// - the offload recurrence of core/planners/chain_offload.h (fastest among
//   plans that keep checkpoints until their gradient, each held source kept
//   on the device or offloaded).
// So it is never slower than the best recompute-only plan, and with a link of
// 0 B/s it is that plan. The host budget, when given, is checked, not planned
// for: an offload plan over it is dropped. Chains only.
#include "core/errors.h"
#include "core/planners/chain_offload.h"
#include "core/rates.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategies/builtin.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <algorithm>
#include <numeric>

namespace remat {

namespace {

struct Candidate {
    Schedule schedule;
    Summary summary;
};

// The memory step of the tables: at least budget / memorySteps (their size),
// and the greatest common divisor of all sizes when that is larger, so that
// nothing is rounded (a chain of 4 MiB layers plans in steps of 4 MiB).
std::int64_t stepFor(const planners::Weights &w, std::int64_t budget, int memorySteps) {
    const std::int64_t least = std::max<std::int64_t>(1, (budget + memorySteps - 1) / memorySteps);
    std::int64_t divisor = 0;
    for (const auto *sizes : {&w.a, &w.b, &w.aWork, &w.bWork, &w.saved})
        for (std::int64_t x : *sizes)
            divisor = std::gcd(divisor, x);
    return divisor >= least ? divisor : least;
}

class OffloadBudgetStrategy final : public Strategy {
public:
    std::string_view name() const override { return "offload-budget"; }
    std::string_view summary() const override {
        return "the fastest plan within a device budget (--budget 2GiB), each activation kept, recomputed or "
               "offloaded to host over the link (--link); chains";
    }
    std::string_view memoryClass() const override { return "<= budget"; }
    std::string_view computeClass() const override { return "least makespan"; }
    bool runsWithDefaults() const override { return false; }
    bool usesLink() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        const double n = model.layers();
        const double f = n * (n + 1) / 2;
        return {f, n + 1, 2 * (f + n + 1) + 3 * n, "at most n(n+1)/2"};
    }

protected:
    void validate(const Model &model, const StrategyParams &params) const override {
        rejectUnused(params, false, false, false, true);
        requireLink(params, false);
        requireChain(model);
        if (params.budgetNodes || !params.budgetBytes)
            throw InvalidArgument("offload-budget needs a device budget in bytes, e.g. --budget 2GiB");
    }

    Schedule plan(const Model &model, const StrategyParams &params) const override {
        const Machine &machine = *params.machine;
        const std::int64_t budget = *params.budgetBytes;
        const int memorySteps = params.memorySteps.value_or(512);
        if (memorySteps < 1)
            throw InvalidArgument("memory steps must be >= 1, got " + std::to_string(memorySteps));
        // Timed without budgets: they are checked here, with words for the user.
        Machine clock = machine;
        clock.deviceBudgetBytes.reset();
        clock.hostBudgetBytes.reset();
        auto timed = [&](Schedule s) {
            Candidate c{std::move(s), {}};
            c.summary = Simulator::summarize(model, c.schedule, clock);
            return c;
        };
        auto phase = [&params](double from, double to) {
            StrategyParams p;
            p.cancelled = params.cancelled;
            if (params.progress)
                p.progress = [&params, from, to](double f) { params.progress(from + (to - from) * f); };
            return p;
        };

        std::optional<Candidate> recompute;
        std::string recomputeRefused;
        StrategyParams budgetParams = phase(0, machine.link.carries() ? 0.5 : 1);
        budgetParams.budgetBytes = budget;
        budgetParams.memorySteps = memorySteps;
        try {
            recompute = timed(StrategyRegistry::builtin().get("budget").makeSchedule(model, budgetParams));
        } catch (const InvalidArgument &e) {
            recomputeRefused = e.what();
        }

        std::optional<Candidate> offload;
        std::string hostRefused;
        int offloaded = 0;
        const planners::Weights exact = planners::weightsFor(model, planners::BudgetUnit::Bytes);
        const std::int64_t step = stepFor(exact, budget, memorySteps);
        if (machine.link.carries()) {
            if (model.layers() > planners::kMaxBudgetLayers)
                throw LimitExceeded("offload-budget takes chains of up to " +
                                    std::to_string(planners::kMaxBudgetLayers) +
                                    " layers, got n = " + std::to_string(model.layers()));
            const planners::Weights w = step == 1 ? exact : planners::discretize(exact, step);
            std::int64_t enough = 0;
            for (int i = 0; i <= w.n; ++i)
                enough += w.a[i] + w.b[i] + w.aWork[i] + w.bWork[i] + w.saved[i];
            const int capacity = static_cast<int>(std::min(budget / step, enough));
            if (planners::offloadTableBytes(w.n, capacity) > double(planners::kMaxBudgetTableBytes))
                throw LimitExceeded("offload-budget would need " +
                                    formatBytes(static_cast<std::int64_t>(planners::offloadTableBytes(w.n, capacity))) +
                                    " of tables for n = " + std::to_string(w.n) + " and " + std::to_string(capacity) +
                                    " memory steps; the limit is " + formatBytes(planners::kMaxBudgetTableBytes) +
                                    ". Use fewer memory steps or a shorter chain.");
            const StrategyParams p = phase(0.5, 1);
            if (auto plan = planners::offloadChainPlan(model, w, capacity, clock, {p.progress, p.cancelled})) {
                Schedule s;
                s.ops = insertFrees(model, plan->ops);
                offloaded = static_cast<int>(
                    std::count_if(s.ops.begin(), s.ops.end(), [](const Op &o) { return o.kind == OpKind::Offload; }));
                offload = timed(std::move(s));
                if (machine.hostBudgetBytes && offload->summary.peakHostBytes > *machine.hostBudgetBytes) {
                    hostRefused = "its offload plan would hold " + formatBytes(offload->summary.peakHostBytes) +
                                  " on the host, over the host budget " + formatBytes(*machine.hostBudgetBytes);
                    offload.reset();
                }
            }
        }

        const std::string budgetText = "device budget " + std::to_string(budget) + " bytes (" + formatBytes(budget) +
                                       ")" + (step > 1 ? " in steps of " + formatBytes(step) : std::string());
        const std::string linkText =
            machine.link.carries() ? "link " + formatBandwidth(machine.link.bytesPerSecond) : "no link (0 B/s)";
        // Ties go to recomputation: the same time without using the link.
        const bool offloadWins =
            offload && (!recompute || offload->summary.makespanSeconds < recompute->summary.makespanSeconds);
        Schedule s;
        if (offloadWins) {
            s = std::move(offload->schedule);
            s.description = budgetText + ", " + linkText + ": " + std::to_string(offloaded) +
                            " offload(s); the fastest plan that keeps checkpoints until their gradient, "
                            "each kept, recomputed or offloaded";
        } else if (recompute) {
            s = std::move(recompute->schedule);
            s.description = linkText + ": no offload plan is faster than " + s.description;
            if (!hostRefused.empty())
                s.description += " (" + hostRefused + ")";
        } else {
            if (!hostRefused.empty())
                throw InvalidArgument(budgetText + ": " + hostRefused +
                                      ", and without offloading: " + recomputeRefused);
            const std::int64_t least = planners::offloadMinimumPeak(model, exact, machine.link.carries());
            throw InvalidArgument(
                "device budget " + std::to_string(budget) + " bytes (" + formatBytes(budget) +
                ") is below the least device memory of these plans, " + std::to_string(least) + " bytes (" +
                formatBytes(least) + ")" +
                (least <= budget ? " (the budget is within its rounding: give more memory steps)" : std::string()) +
                (machine.link.carries() ? " with offloading" : std::string()));
        }
        s.checkpoints = keptIntoBackward(model, s.ops);
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeOffloadBudgetStrategy() {
    return std::make_unique<OffloadBudgetStrategy>();
}

} // namespace remat
