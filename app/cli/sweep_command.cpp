#include "arguments.h"
#include "commands.h"
#include "table.h"

#include "core/comparison.h"
#include "core/errors.h"
#include "core/report.h"
#include "core/scaling.h"

#include <cstdio>
#include <map>

namespace remat::cli {

namespace {

std::vector<int> geometricSizes(const Range &range, std::int64_t factor) {
    std::vector<int> sizes;
    for (std::int64_t n = range.first; n <= range.last; n *= factor)
        sizes.push_back(static_cast<int>(n));
    if (sizes.back() != range.last)
        sizes.push_back(static_cast<int>(range.last));
    return sizes;
}

} // namespace

void runSweep(const SweepOptions &options, std::ostream &out) {
    const Range range = parseRange("--n", options.n, 1, Model::kMaxLayers);
    const std::int64_t factor = parseInteger("--factor", options.factor, 2, 1000);
    const auto strategies = selectStrategies(options.strategy, {});
    for (const Strategy *s : strategies)
        if (!s->runsWithDefaults())
            throw InvalidArgument("sweep cannot run '" + std::string(s->name()) +
                                  "': it needs parameters that depend on n; known for sweep: store-all, "
                                  "recompute-all, periodic");
    const std::vector<int> sizes = geometricSizes(range, factor);
    // Check every size against the op limit before simulating any of them.
    for (int n : sizes) {
        const Model model = Model::chain(n);
        for (const Strategy *s : strategies)
            if (s->estimate(model, {}).ops > Strategy::kMaxOps)
                s->makeSchedule(model, {}); // throws LimitExceeded with the analytic counts
    }

    std::vector<std::pair<int, std::vector<ComparisonRow>>> results;
    for (int n : sizes) {
        const Model model = buildChain(std::to_string(n), options.model);
        results.emplace_back(n, compareStrategies(model, strategies, {}));
    }

    switch (options.format) {
    case Format::Json: {
        nlohmann::ordered_json doc;
        doc["n_from"] = range.first;
        doc["n_to"] = range.last;
        doc["factor"] = factor;
        doc["sweep"] = nlohmann::ordered_json::array();
        for (const auto &[n, rows] : results) {
            nlohmann::ordered_json entry;
            entry["n"] = n;
            entry["strategies"] = nlohmann::ordered_json::array();
            for (const auto &r : rows)
                entry["strategies"].push_back(summaryJson(r));
            doc["sweep"].push_back(entry);
        }
        out << doc.dump(2) << '\n';
        break;
    }
    case Format::Csv:
        writeSummaryCsvHeader(out, true);
        for (const auto &[n, rows] : results)
            for (const auto &r : rows)
                writeSummaryCsvRow(out, r, n, true);
        break;
    case Format::Table: {
        for (const auto &[n, rows] : results) {
            printComparisonTable(out, rows, true, n, buildChain("1", options.model).hasSavedBytes(),
                                 buildChain("1", options.model).costUnit());
            out << '\n';
        }
        if (sizes.size() < 2)
            break;
        out << "growth laws (least-squares slope of log y against log n):\n";
        TextTable slopes({"strategy", "peak bytes slope", "forward evals slope"});
        for (std::size_t k = 0; k < strategies.size(); ++k) {
            std::vector<double> ns, peak, fwd;
            for (const auto &[n, rows] : results) {
                ns.push_back(n);
                peak.push_back(static_cast<double>(rows[k].summary.peakBytes));
                fwd.push_back(static_cast<double>(rows[k].summary.forwardEvaluations));
            }
            char a[32], b[32];
            std::snprintf(a, sizeof a, "%.2f", logLogSlope(ns, peak));
            std::snprintf(b, sizeof b, "%.2f", logLogSlope(ns, fwd));
            slopes.addRow({std::string(strategies[k]->name()), a, b});
        }
        slopes.print(out);
        break;
    }
    }
}

} // namespace remat::cli
