// solveMilp on COIN-OR CBC (Debian's coinor-libcbc-dev), through its C++ API:
// CbcMain0/CbcMain1, single-threaded, with a node limit as the only bound.
// CBC's command driver keeps its settings in globals (CbcSolver.cpp says so:
// not thread-safe), so one solve runs at a time in the process; the
// frontier plans its budgets on every core and the studio may plan while it
// draws a curve.
#include "core/solver/milp.h"

#include "core/errors.h"

#include <CbcConfig.h>
#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace remat::solver {

namespace {

// Stops the search between nodes when the caller cancels. CBC clones its
// handler into the model it solves, so the clone shares the flag.
class CancelHandler : public CbcEventHandler {
public:
    CancelHandler(std::function<bool()> cancelled, std::shared_ptr<bool> stopped)
        : cancelled_(std::move(cancelled)), stopped_(std::move(stopped)) {}
    CbcAction event(CbcEvent) override {
        if (cancelled_ && cancelled_()) {
            *stopped_ = true;
            return stop;
        }
        return noAction;
    }
    CbcEventHandler *clone() const override { return new CancelHandler(*this); }

private:
    std::function<bool()> cancelled_;
    std::shared_ptr<bool> stopped_;
};

std::mutex &cbcDriver() {
    static std::mutex driver;
    return driver;
}

double finite(double v) {
    const double inf = std::numeric_limits<double>::infinity();
    return v == inf ? COIN_DBL_MAX : v == -inf ? -COIN_DBL_MAX : v;
}

// CBC's tolerances are absolute (a node is cut unless it may improve on the
// plan at hand by 1e-5, reduced costs count as zero within 1e-7). On costs in
// GFLOP of a small traced model (1e-6 a node) that cut cheaper plans and
// called the rest optimal (test_op_milp: 97 where 87 fits). So the objective is solved multiplied by the
// power of two that brings its largest coefficient nearest 1e4, and read back
// in the caller's units: the tolerances are then as small, relative to every
// cost, on every problem.
double objectiveScale(const std::vector<double> &objective) {
    double largest = 0;
    for (double c : objective)
        largest = std::max(largest, std::abs(c));
    return largest > 0 ? std::exp2(std::round(std::log2(1e4 / largest))) : 1.0;
}

} // namespace

MilpResult solveMilp(const MilpProblem &p, const MilpOptions &options) {
    const int n = p.columns();
    const int m = p.rows();
    std::vector<int> lengths(static_cast<std::size_t>(m));
    std::vector<CoinBigIndex> starts(static_cast<std::size_t>(m) + 1);
    for (int r = 0; r < m; ++r) {
        starts[r] = static_cast<CoinBigIndex>(p.rowStarts()[r]);
        lengths[r] = static_cast<int>(p.rowStarts()[r + 1] - p.rowStarts()[r]);
    }
    starts[m] = static_cast<CoinBigIndex>(p.rowStarts()[m]);
    const CoinPackedMatrix matrix(false, n, m, starts[m], p.rowCoefficients().data(), p.rowColumns().data(),
                                  starts.data(), lengths.data());
    std::vector<double> colLower(p.columnLower()), colUpper(p.columnUpper()), rowLower(p.rowLower()),
        rowUpper(p.rowUpper());
    for (auto *v : {&colLower, &colUpper, &rowLower, &rowUpper})
        for (double &x : *v)
            x = finite(x);

    const double scale = objectiveScale(p.objective());
    std::vector<double> objective(p.objective());
    for (double &c : objective)
        c *= scale;

    const std::lock_guard<std::mutex> oneSolveAtATime(cbcDriver());
    OsiClpSolverInterface osi;
    osi.messageHandler()->setLogLevel(0);
    osi.loadProblem(matrix, colLower.data(), colUpper.data(), objective.data(), rowLower.data(), rowUpper.data());
    for (int j = 0; j < n; ++j)
        if (p.isInteger()[j])
            osi.setInteger(j);
    const bool haveStart = !options.starts.empty();

    CbcModel model(osi);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    CbcSolverUsefulData data;
    data.noPrinting_ = true;
    CbcMain0(model, data);
    auto stopped = std::make_shared<bool>(false);
    CancelHandler handler(options.cancelled, stopped);
    model.passInEventHandler(&handler);
    if (haveStart) {
        // CBC takes one start: the caller's first (its best). Its continuous
        // columns are completed here by one LP with the integer ones fixed:
        // CBC's own completion (setMIPStart) crashes in Clp's presolve on
        // problems with many continuous columns (CBC 2.10.8) and writes its
        // log to standard output, where `remat plan --json` writes JSON.
        const std::vector<double> &x = options.starts.front();
        if (static_cast<int>(x.size()) != n)
            throw InvalidArgument("MILP start has " + std::to_string(x.size()) + " values for " + std::to_string(n) +
                                  " columns");
        OsiClpSolverInterface fixed(osi);
        for (int j = 0; j < n; ++j)
            if (p.isInteger()[j]) {
                fixed.setColLower(j, std::round(x[j]));
                fixed.setColUpper(j, std::round(x[j]));
            }
        fixed.setHintParam(OsiDoPresolveInInitial, false, OsiHintDo);
        fixed.setHintParam(OsiDoReducePrint, true, OsiHintDo);
        fixed.messageHandler()->setLogLevel(0);
        fixed.getModelPtr()->setLogLevel(0);
        fixed.initialSolve();
        model.messageHandler()->setLogLevel(0); // CbcMain0 raised it; setBestSolution prints at 1
        if (fixed.isProvenOptimal())
            model.setBestSolution(fixed.getColSolution(), n, fixed.getObjValue(), false);
    }
    const std::string nodes = std::to_string(options.maxNodes);
    // Preprocessing, cut generation and CBC's own heuristics took minutes on
    // the exact graph planner's problems for bounds no better than the LP's
    // (docs/planners.md): off, so that the work goes into branching. The
    // op-level problems ask for cuts (MilpOptions::cuts): they close gaps
    // there that branching alone leaves open; and for preprocessing in a
    // second search where the first left a gap (MilpOptions::preprocess).
    // Clp's presolve also leaks a buffer per solve (CoinUtils 2.11, implied_free_action), which
    // LeakSanitizer reports: off too, for a few per cent more time on the first LP.
    const char *argv[] = {"remat",
                          "-log",
                          "0",
                          "-slog",
                          "0",
                          "-preprocess",
                          options.preprocess ? "on" : "off",
                          "-presolve",
                          "off",
                          "-cuts",
                          options.cuts ? "on" : "off",
                          "-heur",
                          options.cuts ? "on" : "off",
                          "-strong",
                          options.strongBranching ? "5" : "0",
                          // Clp's dual simplex perturbs the costs against
                          // degeneracy and may then stop at the cutoff the
                          // incumbent sets on the perturbed objective: on
                          // ResNet-18 at 697.07 MiB the root LP of 0.0256
                          // read 0.629, above dtr's 0.041, and CBC called dtr's
                          // plan optimal where 0.032 fits (found by
                          // graph_stage_search, tested).
                          "-perturbation",
                          "off",
                          "-maxNodes",
                          nodes.c_str(),
                          "-solve",
                          "-quit"};
    int rc = 0;
    try {
        rc = CbcMain1(
            static_cast<int>(std::size(argv)), argv, model, [](CbcModel *, int) { return 0; }, data);
    } catch (const CoinError &e) {
        throw SolverError("CBC failed in " + e.methodName() + ": " + e.message());
    }
    if (*stopped)
        throw Cancelled();
    if (rc != 0)
        throw SolverError("CBC stopped with status " + std::to_string(rc));

    MilpResult result;
    result.nodes = model.getNodeCount();
    const double *best = model.bestSolution();
    if (model.isProvenInfeasible() && !best) {
        result.status = MilpResult::Status::Infeasible;
        return result;
    }
    if (best) {
        result.x.assign(best, best + n);
        result.objective = model.getObjValue() / scale;
        result.bound = std::min(model.getBestPossibleObjValue() / scale, result.objective);
        result.status = model.isProvenOptimal() ? MilpResult::Status::Optimal : MilpResult::Status::Feasible;
        if (result.status == MilpResult::Status::Optimal)
            result.bound = result.objective;
    } else {
        result.status = MilpResult::Status::Unknown;
        result.bound = model.getBestPossibleObjValue() / scale;
    }
    return result;
}

bool milpSolverAvailable() {
    return true;
}

std::string milpSolverName() {
    return std::string("CBC ") + CBC_VERSION;
}

} // namespace remat::solver
