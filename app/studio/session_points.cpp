// The session's measured points: the framework race's JSON
// (bench/framework_race.py, core/race_points.h) that the trade-off view draws
// beside the curve (docs/studio.md, "Measured points").
#include "app/studio/session.h"

#include <QFileInfo>

#include <exception>

namespace remat::studio {

QString Session::loadMeasuredPoints(const QString &path) {
    std::shared_ptr<const RaceResult> points;
    try {
        points = std::make_shared<const RaceResult>(readRaceFile(path.toStdString()));
    } catch (const std::exception &e) { // InvalidArgument: the file, the value, what is allowed
        return QString::fromUtf8(e.what());
    }
    measuredPoints_ = std::move(points);
    measuredPointsFile_ = path;
    emit measuredPointsChanged();
    say(tr("%1 measured points from %2 (%3 not run); Tools > Trade-off curve shows them")
            .arg(measuredPoints_->points.size())
            .arg(QFileInfo(path).fileName())
            .arg(measuredPoints_->notRun.size()));
    return {};
}

void Session::clearMeasuredPoints() {
    if (!measuredPoints_)
        return;
    measuredPoints_.reset();
    measuredPointsFile_.clear();
    emit measuredPointsChanged();
}

} // namespace remat::studio
