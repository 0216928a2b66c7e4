#include "app/lesson/lesson_write.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace remat::lesson {

namespace {

using nlohmann::ordered_json;

ordered_json paneJson(const Pane &pane) {
    ordered_json out;
    out["strategy"] = pane.strategy;
    const StrategyParams &p = pane.params;
    if (p.every)
        out["every"] = *p.every;
    if (p.checkpointSlots)
        out["slots"] = *p.checkpointSlots;
    if (p.budgetNodes || p.budgetBytes)
        out["budget"] = budgetJsonText(p);
    if (p.heuristic)
        out["heuristic"] = *p.heuristic;
    if (p.checkpoints)
        out["checkpoints"] = *p.checkpoints;
    return out;
}

ordered_json stopJson(const Stop &stop) {
    ordered_json out;
    out["at"] = stopKindName(stop.kind);
    out["pane"] = stop.pane + 1;
    if (stop.kind == StopKind::Time)
        out["time"] = stop.time;
    return out;
}

std::string modelName(const Chapter &chapter, const std::string &folder) {
    const std::filesystem::path file = std::filesystem::absolute(chapter.modelFile).lexically_normal();
    const std::filesystem::path relative = file.lexically_relative(std::filesystem::absolute(folder).lexically_normal());
    return relative.empty() ? file.string() : relative.generic_string();
}

ordered_json chapterJson(const Chapter &chapter, const std::string &folder) {
    ordered_json out;
    out["title"] = chapter.title;
    out["caption"] = chapter.caption;
    if (chapter.modelFile.empty())
        out["layers"] = chapter.model->layers();
    else
        out["model"] = modelName(chapter, folder);
    if (chapter.view == ChapterView::TradeOffCurve)
        out["show"] = "trade-off-curve";
    if (!chapter.panes.empty()) {
        out["panes"] = ordered_json::array();
        for (const Pane &pane : chapter.panes)
            out["panes"].push_back(paneJson(pane));
    }
    if (!chapter.stops.empty()) {
        out["stops"] = ordered_json::array();
        for (const Stop &stop : chapter.stops)
            out["stops"].push_back(stopJson(stop));
    }
    if (!chapter.syncByCost)
        out["sync"] = "ops";
    if (chapter.seconds != Chapter{}.seconds)
        out["seconds"] = chapter.seconds;
    if (chapter.stackByKind)
        out["stack_by_kind"] = true;
    if (chapter.exercise)
        out["exercise"] = {{"budget", chapter.exercise->budgetWritten}, {"prompt", chapter.exercise->prompt}};
    return out;
}

} // namespace

std::string budgetJsonText(const StrategyParams &params) {
    if (params.budgetNodes)
        return std::to_string(*params.budgetNodes) + (*params.budgetNodes == 1 ? " node" : " nodes");
    return std::to_string(params.budgetBytes.value_or(0)) + " B";
}

std::string lessonJson(const Lesson &lesson, const std::string &folder) {
    ordered_json out;
    out["format"] = "remat-lesson";
    out["version"] = 1;
    out["title"] = lesson.title;
    out["chapters"] = ordered_json::array();
    for (const Chapter &chapter : lesson.chapters)
        out["chapters"].push_back(chapterJson(chapter, folder));
    return out.dump(2) + "\n";
}

} // namespace remat::lesson
