// The best set of kept nodes (core/planners/kept_sets.h) and the exercise
// verdict (core/exercise.h) against exhaustive search over every set, each
// set counted by the simulator itself.
#include "core/errors.h"
#include "core/exercise.h"
#include "core/planners/kept_sets.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QtTest>
#include <cmath>
#include <random>

using namespace remat;
using planners::KeptSetUnit;

namespace {

// A chain with uneven sizes, gradients, workspaces and costs.
Model randomChain(std::mt19937 &rng, int n) {
    std::uniform_int_distribution<int> size(1, 8), work(0, 3), coin(0, 1);
    std::uniform_real_distribution<double> cost(0.25, 4);
    std::vector<ForwardSpec> specs(static_cast<std::size_t>(n) + 1);
    for (int i = 0; i <= n; ++i) {
        ForwardSpec &s = specs[static_cast<std::size_t>(i)];
        s.bytes = size(rng);
        s.gradBytes = coin(rng) ? -1 : size(rng);
        s.forwardWorkspace = coin(rng) ? 0 : work(rng);
        s.backwardWorkspace = coin(rng) ? 0 : work(rng);
        s.forwardCost = cost(rng);
        s.backwardCost = cost(rng);
        if (i > 0)
            s.inputs = {i - 1};
    }
    return Model::fromForward(std::move(specs));
}

std::vector<int> setOf(unsigned mask) {
    std::vector<int> kept;
    for (int i = 0; (mask >> i) != 0; ++i)
        if (mask & (1u << i))
            kept.push_back(i + 1);
    return kept;
}

struct Counted {
    std::vector<int> kept;
    std::int64_t peak;
    double cost;
};

// Every set of kept nodes, simulated.
std::vector<Counted> everySet(const Model &model, KeptSetUnit unit) {
    std::vector<Counted> out;
    for (unsigned mask = 0; mask < (1u << (model.layers() - 1)); ++mask) {
        const ExercisePlan plan = keptSetPlan(model, setOf(mask));
        out.push_back({plan.kept, peakIn(plan.summary, unit), plan.summary.cost});
    }
    return out;
}

bool sameCost(double x, double y) {
    return std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(y));
}

} // namespace

class TestKeptSets : public QObject {
    Q_OBJECT
private slots:
    void bestSetMatchesExhaustiveSearch_data() {
        QTest::addColumn<int>("seed");
        QTest::addColumn<bool>("bytes");
        for (int seed = 1; seed <= 12; ++seed) {
            QTest::newRow(("nodes " + std::to_string(seed)).c_str()) << seed << false;
            QTest::newRow(("bytes " + std::to_string(seed)).c_str()) << seed << true;
        }
    }
    void bestSetMatchesExhaustiveSearch() {
        QFETCH(int, seed);
        QFETCH(bool, bytes);
        const KeptSetUnit unit = bytes ? KeptSetUnit::Bytes : KeptSetUnit::Nodes;
        std::mt19937 rng(static_cast<unsigned>(seed));
        const int n = 2 + seed % 10;
        const Model model = randomChain(rng, n);
        const std::vector<Counted> sets = everySet(model, unit);

        std::int64_t leastPeak = sets.front().peak, mostPeak = sets.front().peak;
        for (const Counted &c : sets) {
            // The search's segment formula is the simulator's peak, set by set.
            QCOMPARE(planners::keptSetPeak(model, unit, c.kept), c.peak);
            leastPeak = std::min(leastPeak, c.peak);
            mostPeak = std::max(mostPeak, c.peak);
        }
        QCOMPARE(planners::smallestKeptSetBudget(model, unit), leastPeak);
        QVERIFY(!planners::bestKeptSet(model, unit, leastPeak - 1));

        for (std::int64_t budget = leastPeak; budget <= mostPeak + 1; ++budget) {
            double exhaustive = INFINITY;
            for (const Counted &c : sets)
                if (c.peak <= budget)
                    exhaustive = std::min(exhaustive, c.cost);
            const auto best = planners::bestKeptSet(model, unit, budget);
            QVERIFY(best);
            const ExercisePlan plan = keptSetPlan(model, *best);
            QVERIFY(peakIn(plan.summary, unit) <= budget);
            QVERIFY2(sameCost(plan.summary.cost, exhaustive),
                     qPrintable(QString("budget %1: search %2, exhaustive %3")
                                    .arg(budget)
                                    .arg(plan.summary.cost)
                                    .arg(exhaustive)));
        }
    }

    // Every answer's verdict follows the simulator's peak and cost for it.
    void verdictsFollowTheSimulator_data() {
        QTest::addColumn<int>("seed");
        for (int seed = 20; seed < 28; ++seed)
            QTest::newRow(std::to_string(seed).c_str()) << seed;
    }
    void verdictsFollowTheSimulator() {
        QFETCH(int, seed);
        std::mt19937 rng(static_cast<unsigned>(seed));
        const Model model = randomChain(rng, 3 + seed % 6);
        const KeptSetUnit unit = seed % 2 ? KeptSetUnit::Bytes : KeptSetUnit::Nodes;
        const std::vector<Counted> sets = everySet(model, unit);
        std::int64_t budget = planners::smallestKeptSetBudget(model, unit) + seed % 3;
        double cheapest = INFINITY;
        for (const Counted &c : sets)
            if (c.peak <= budget)
                cheapest = std::min(cheapest, c.cost);
        for (const Counted &c : sets) {
            const ExerciseGrade grade = gradeExercise(model, {unit, budget}, c.kept);
            QCOMPARE(peakIn(grade.answer.summary, unit), c.peak);
            QCOMPARE(grade.answer.summary.cost, c.cost);
            const QString text = QString::fromStdString(verdictText(model, {unit, budget}, grade));
            // Scripts read "best" as the best verdict (remat-studio --grade).
            QCOMPARE(text.contains("best", Qt::CaseInsensitive), grade.verdict == Verdict::Best);
            if (c.peak > budget) {
                QCOMPARE(grade.verdict, Verdict::OverBudget);
                QVERIFY(text.startsWith("Over the budget"));
            } else if (sameCost(c.cost, cheapest)) {
                QCOMPARE(grade.verdict, Verdict::Best);
            } else {
                QCOMPARE(grade.verdict, Verdict::Fits);
                QVERIFY(std::fabs(grade.extraPercent - (c.cost - cheapest) / cheapest * 100) < 1e-6);
            }
            if (grade.general) {
                QVERIFY(grade.general->summary.cost < cheapest);
                QVERIFY(peakIn(grade.general->summary, unit) <= budget);
                QVERIFY(text.contains("re-takes checkpoints"));
            }
        }
    }

    // Where the budget planner (exact on short chains) keeps a plain set of
    // nodes, that set is the best one.
    void budgetPlanThatIsAKeptSetGradesBest() {
        int checked = 0;
        for (int seed = 40; seed < 80; ++seed) {
            std::mt19937 rng(static_cast<unsigned>(seed));
            const Model model = randomChain(rng, 3 + seed % 8);
            const std::int64_t budget = planners::smallestKeptSetBudget(model, KeptSetUnit::Nodes) + seed % 4;
            StrategyParams params;
            params.budgetNodes = budget;
            const Schedule plan = StrategyRegistry::builtin().get("budget").makeSchedule(model, params);
            QVERIFY(plan.description.find("exact") != std::string::npos);
            const ExercisePlan asSet = keptSetPlan(model, plan.checkpoints);
            if (asSet.schedule.ops != plan.ops)
                continue;
            ++checked;
            const ExerciseGrade grade = gradeExercise(model, {KeptSetUnit::Nodes, budget}, plan.checkpoints);
            QCOMPARE(grade.verdict, Verdict::Best);
            QVERIFY(!grade.general);
        }
        QVERIFY2(checked >= 5, qPrintable(QString("only %1 plans were kept sets").arg(checked)));
    }

    void refusesBudgetsNoSetFits() {
        const Model model = Model::chain(9);
        const std::int64_t smallest = planners::smallestKeptSetBudget(model, KeptSetUnit::Nodes);
        try {
            requireGradableExercise(model, {KeptSetUnit::Nodes, smallest - 1});
            QFAIL("accepted a budget no set fits");
        } catch (const InvalidArgument &e) {
            QVERIFY2(std::string(e.what()).find(std::to_string(smallest) + " nodes") != std::string::npos, e.what());
        }
        requireGradableExercise(model, {KeptSetUnit::Nodes, smallest});
    }

    void refusesBadAnswers_data() {
        QTest::addColumn<std::vector<int>>("answer");
        QTest::addColumn<QString>("named");
        QTest::newRow("zero") << std::vector<int>{0} << "node 0";
        QTest::newRow("output") << std::vector<int>{9} << "node 9";
        QTest::newRow("twice") << std::vector<int>{3, 3} << "listed twice";
    }
    void refusesBadAnswers() {
        QFETCH(std::vector<int>, answer);
        QFETCH(QString, named);
        try {
            checkedAnswer(Model::chain(9), answer);
            QFAIL("accepted a bad answer");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(named), e.what());
        }
    }

    void refusesModelsWithSkipConnections() {
        std::vector<ForwardSpec> specs(4);
        specs[1].inputs = {0};
        specs[2].inputs = {1};
        specs[3].inputs = {1, 2};
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, planners::requireKeptSetModel(Model::fromForward(specs)));
    }
};

QTEST_APPLESS_MAIN(TestKeptSets)
#include "test_kept_sets.moc"
