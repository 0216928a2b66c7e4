// solveMilp (core/solver/milp.h) asked from several threads at once, as the
// trade-off curve's sweep and the studio do: each answer is the one the
// problem gets alone (CBC's command driver keeps its settings in globals, so
// the solves must not interleave).
#include "core/solver/milp.h"

#include <QTest>

#include <exception>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace remat;
using namespace remat::solver;

namespace {

// A multi-dimensional knapsack (maximize value, written as minimizing its
// negative): small enough to solve in a blink, hard enough that the search
// branches.
MilpProblem knapsack(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> weight(5, 60), value(1, 100);
    constexpr int items = 40, dimensions = 4;
    MilpProblem p;
    for (int j = 0; j < items; ++j)
        p.addBinary(-value(rng));
    for (int d = 0; d < dimensions; ++d) {
        std::vector<LinearTerm> row;
        double total = 0;
        for (int j = 0; j < items; ++j) {
            const double w = weight(rng);
            row.push_back({j, w});
            total += w;
        }
        p.addRow(std::move(row), -std::numeric_limits<double>::infinity(), total / 3);
    }
    return p;
}

struct Answer {
    MilpResult::Status status;
    double objective, bound;
    std::int64_t nodes;
    std::vector<double> x;
    bool operator==(const Answer &) const = default;
};

Answer solve(const MilpProblem &p) {
    MilpOptions o;
    o.maxNodes = 300;
    const MilpResult r = solveMilp(p, o);
    return {r.status, r.objective, r.bound, r.nodes, r.x};
}

} // namespace

class MilpThreadsTest : public QObject {
    Q_OBJECT
private slots:
    void sameAnswerFromSeveralThreads() {
        if (!milpSolverAvailable())
            QSKIP("built without a MILP solver");
        constexpr int problems = 4;
        std::vector<MilpProblem> ps;
        std::vector<Answer> alone;
        for (int k = 0; k < problems; ++k) {
            ps.push_back(knapsack(101 + static_cast<unsigned>(k)));
            alone.push_back(solve(ps.back()));
        }
        bool branched = false;
        for (const Answer &a : alone)
            branched = branched || a.nodes > 0;
        QVERIFY2(branched, "the problems are solved at the root: nothing for the threads to interleave");
        for (int round = 0; round < 3; ++round) {
            std::vector<Answer> together(problems);
            std::vector<std::string> failures(problems);
            std::vector<std::thread> threads;
            for (int k = 0; k < problems; ++k)
                threads.emplace_back([&, k] {
                    try {
                        together[k] = solve(ps[k]);
                    } catch (const std::exception &e) {
                        failures[k] = e.what();
                    }
                });
            for (std::thread &t : threads)
                t.join();
            for (int k = 0; k < problems; ++k)
                QVERIFY2(failures[k].empty(), failures[k].c_str());
            for (int k = 0; k < problems; ++k)
                QVERIFY2(together[k] == alone[k], qPrintable(QString("problem %1, round %2").arg(k).arg(round)));
        }
    }
};

QTEST_GUILESS_MAIN(MilpThreadsTest)
#include "test_milp_threads.moc"
