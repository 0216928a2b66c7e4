#pragma once
// The machine-readable forms of summaries and timelines (JSON and CSV), one
// schema shared by the CLI and the studio's exports. Documented in docs/cli.md.
#include "core/comparison.h"
#include "core/timeline.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace remat {

nlohmann::ordered_json summaryJson(const ComparisonRow &row);
nlohmann::ordered_json modelJson(const Model &model);

void writeSummaryCsvHeader(std::ostream &out, bool withN);
void writeSummaryCsvRow(std::ostream &out, const ComparisonRow &row, int n, bool withN);

// step,op,node,resident_count,resident,bytes,records,saved_bytes; one line per
// op. `resident` is the space-separated names of the nodes resident after the
// op; `records` is 1 for a forward run recording its layer's saved internals;
// `saved_bytes` the saved internals held while the op runs (part of `bytes`).
void writeTimelineCsvHeader(std::ostream &out);
void writeTimelineCsv(std::ostream &out, const std::string &strategy, const Timeline &timeline);

// A cost printed without a trailing ".0" when it is whole.
nlohmann::ordered_json numberJson(double value);
std::string numberText(double value);

} // namespace remat
