#pragma once
// Strict parsing of the CLI's values, with messages that name the option, the
// value and what is allowed (thrown as remat::InvalidArgument).
#include <cstdint>
#include <string>
#include <vector>

namespace remat::cli {

std::int64_t parseInteger(const std::string &option, const std::string &text, std::int64_t min, std::int64_t max);
// "3,7,11": strictly increasing is checked by the strategy, which knows n.
std::vector<int> parseIntegerList(const std::string &option, const std::string &text);
// --effort, --solver-nodes (`flag`): a whole amount of work in [min, max], written out or as 4e9;
// the message names the unit ("replayed ops") and gives `example`.
std::int64_t parseEffort(const std::string &flag, const std::string &text, std::int64_t min, std::int64_t max,
                         const std::string &unit, const std::string &example);
// --effort on a block-level model: the graph planner's branch-and-bound
// nodes; refused on chains (`chain`), which dynamic programming plans exactly.
std::int64_t parseGraphEffort(const std::string &text, bool chain);
// --search-work: the graph planner's exact stage search, in stage layouts;
// refused on chains like --effort.
std::int64_t parseSearchWork(const std::string &text, bool chain);
// "4..4096" or a single "64".
struct Range {
    std::int64_t first;
    std::int64_t last;
};
Range parseRange(const std::string &option, const std::string &text, std::int64_t min, std::int64_t max);

} // namespace remat::cli
