#pragma once
// Schedules written by hand in tests: "c a_1, o a_1, f a_1, p a_1, r a_2"
// (compute, offload, free, prefetch, record) as ops on a model.
#include "core/model.h"
#include "core/schedule.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace remat::test {

inline std::vector<Op> opsFromText(const Model &m, const QString &text) {
    std::vector<Op> out;
    for (const QString &item : text.split(',', Qt::SkipEmptyParts)) {
        const QStringList parts = item.trimmed().split(' ');
        const QString node = parts[1];
        const int i = node.mid(2).toInt();
        const NodeId id = node.startsWith('a') ? m.forwardNode(i) : m.backwardNode(i);
        const QString k = parts[0];
        out.push_back(k == "c"   ? Op::compute(id)
                      : k == "r" ? Op::record(id)
                      : k == "o" ? Op::offload(id)
                      : k == "p" ? Op::prefetch(id)
                                 : Op::free(id));
    }
    return out;
}

} // namespace remat::test
