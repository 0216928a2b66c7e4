#include "core/solver/milp.h"

#include "core/errors.h"

#include <cmath>

namespace remat::solver {

int MilpProblem::addColumn(double lower, double upper, double objective, bool integer) {
    if (!(lower <= upper))
        throw InvalidArgument("MILP column bounds out of order: " + std::to_string(lower) + " > " +
                              std::to_string(upper));
    lower_.push_back(lower);
    upper_.push_back(upper);
    objective_.push_back(objective);
    integer_.push_back(integer ? 1 : 0);
    return columns() - 1;
}

void MilpProblem::addRow(std::vector<LinearTerm> terms, double lower, double upper) {
    for (const LinearTerm &t : terms) {
        if (t.column < 0 || t.column >= columns())
            throw InvalidArgument("MILP row names column " + std::to_string(t.column) + " of " +
                                  std::to_string(columns()));
        if (t.coefficient == 0)
            continue;
        rowColumns_.push_back(t.column);
        rowCoefficients_.push_back(t.coefficient);
    }
    rowLower_.push_back(lower);
    rowUpper_.push_back(upper);
    rowStarts_.push_back(static_cast<std::int64_t>(rowColumns_.size()));
}

int MilpProblem::integerColumns() const {
    int count = 0;
    for (char c : integer_)
        count += c;
    return count;
}

} // namespace remat::solver
