#pragma once
// A plain-text table with right-aligned numbers, for terminals.
#include <ostream>
#include <string>
#include <vector>

namespace remat::cli {

class TextTable {
public:
    explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
    void addRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    void print(std::ostream &out) const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

} // namespace remat::cli
