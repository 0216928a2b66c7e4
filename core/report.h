#pragma once
// The machine-readable forms of summaries and timelines (JSON and CSV), one
// schema shared by the CLI and the studio's exports. Documented in docs/cli.md.
#include "core/comparison.h"
#include "core/timeline.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace remat {

// A timed row (Summary::timed) adds peak_device_bytes, peak_host_bytes,
// transfer_bytes, offloads, prefetches, compute_time, stall_time, makespan
// (seconds) and makespan_overhead_vs_store_all.
nlohmann::ordered_json summaryJson(const ComparisonRow &row);
nlohmann::ordered_json modelJson(const Model &model);
// link_bytes_per_second, link_latency, seconds_per_cost, and the budgets when given.
nlohmann::ordered_json machineJson(const Machine &machine);

// `timed`: the rows are timed; adds peak_host_bytes, transfer_bytes,
// compute_time, stall_time, makespan (seconds).
void writeSummaryCsvHeader(std::ostream &out, bool withN, bool timed = false);
void writeSummaryCsvRow(std::ostream &out, const ComparisonRow &row, int n, bool withN);

// step,op,node,resident_count,resident,bytes,records,saved_bytes; one line per
// op. `resident` is the space-separated names of the nodes resident after the
// op; `records` is 1 for a forward run recording its layer's saved internals;
// `saved_bytes` the saved internals held while the op runs (part of `bytes`).
// A timed timeline adds start,end (seconds, the compute stream),host_bytes
// and on_host (the nodes with a host copy after the op).
void writeTimelineCsvHeader(std::ostream &out, bool timed = false);
void writeTimelineCsv(std::ostream &out, const std::string &strategy, const Timeline &timeline);

// A cost printed without a trailing ".0" when it is whole.
nlohmann::ordered_json numberJson(double value);
std::string numberText(double value);
// Seconds with 9 significant digits, for CSV.
std::string secondsText(double seconds);

} // namespace remat
