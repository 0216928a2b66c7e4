#include "table.h"

#include <algorithm>

namespace remat::cli {

void TextTable::print(std::ostream &out) const {
    std::vector<std::size_t> width(header_.size());
    for (std::size_t c = 0; c < header_.size(); ++c) {
        width[c] = header_[c].size();
        for (const auto &r : rows_)
            width[c] = std::max(width[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string> &cells) {
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            // First column left-aligned (names), the rest right-aligned (numbers).
            out << (c == 0 ? cells[c] + pad : pad + cells[c]) << (c + 1 < cells.size() ? "  " : "\n");
        }
    };
    line(header_);
    std::size_t total = 0;
    for (auto w : width)
        total += w + 2;
    out << std::string(total - 2, '-') << '\n';
    for (const auto &r : rows_)
        line(r);
}

} // namespace remat::cli
