#include "core/report.h"

#include <cmath>
#include <cstdio>

namespace remat {

nlohmann::ordered_json numberJson(double value) {
    if (std::nearbyint(value) == value && std::fabs(value) < 9e15)
        return static_cast<std::int64_t>(value);
    return value;
}

std::string numberText(double value) {
    if (std::nearbyint(value) == value && std::fabs(value) < 9e15)
        return std::to_string(static_cast<std::int64_t>(value));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
}

nlohmann::ordered_json summaryJson(const ComparisonRow &row) {
    const Summary &s = row.summary;
    nlohmann::ordered_json j;
    j["name"] = std::string(row.strategy->name());
    j["description"] = row.schedule.description;
    j["peak_nodes"] = s.peakNodes;
    j["peak_bytes"] = s.peakBytes;
    j["peak_step"] = s.peakStep;
    // What the peak is made of: layer outputs and gradients, saved internals, workspace.
    j["peak_output_bytes"] = s.peakBytes - s.peakSavedBytes - s.peakWorkspaceBytes;
    j["peak_saved_bytes"] = s.peakSavedBytes;
    j["peak_workspace_bytes"] = s.peakWorkspaceBytes;
    j["forward_evaluations"] = s.forwardEvaluations;
    j["recomputations"] = s.recomputations;
    j["backward_ops"] = s.backwardOps;
    j["ops"] = s.ops;
    j["cost"] = numberJson(s.cost);
    j["overhead_vs_store_all"] = row.costOverhead;
    j["memory_class"] = std::string(row.strategy->memoryClass());
    j["compute_class"] = std::string(row.strategy->computeClass());
    j["checkpoints"] = row.schedule.checkpoints;
    if (s.timed) {
        // The two streams (docs/model.md, offloading); times in seconds.
        j["peak_device_bytes"] = s.peakBytes;
        j["peak_host_bytes"] = s.peakHostBytes;
        j["transfer_bytes"] = s.transferBytes;
        j["offloads"] = s.offloads;
        j["prefetches"] = s.prefetches;
        j["compute_time"] = s.computeSeconds;
        j["stall_time"] = s.stallSeconds;
        j["makespan"] = s.makespanSeconds;
        j["makespan_overhead_vs_store_all"] = row.makespanOverhead;
    }
    return j;
}

nlohmann::ordered_json machineJson(const Machine &machine) {
    nlohmann::ordered_json j;
    j["link_bytes_per_second"] = machine.link.bytesPerSecond;
    j["link_latency"] = machine.link.latencySeconds;
    j["seconds_per_cost"] = machine.secondsPerCost;
    if (machine.deviceBudgetBytes)
        j["device_budget_bytes"] = *machine.deviceBudgetBytes;
    if (machine.hostBudgetBytes)
        j["host_budget_bytes"] = *machine.hostBudgetBytes;
    return j;
}

nlohmann::ordered_json modelJson(const Model &model) {
    nlohmann::ordered_json j;
    j["layers"] = model.layers();
    j["chain"] = model.isChain();
    j["input_bytes"] = model.bytes(model.inputNode());
    std::int64_t saved = 0;
    for (int i = 1; i <= model.layers(); ++i)
        saved += model.savedBytes(i);
    j["saved_bytes_total"] = saved; // internals of every layer, if all recorded at once
    return j;
}

void writeSummaryCsvHeader(std::ostream &out, bool withN, bool timed) {
    if (withN)
        out << "n,";
    out << "strategy,peak_nodes,peak_bytes,forward_evaluations,recomputations,backward_ops,ops,cost,"
           "overhead_vs_store_all,memory_class,compute_class,peak_saved_bytes,peak_workspace_bytes";
    if (timed)
        out << ",peak_host_bytes,transfer_bytes,compute_time,stall_time,makespan";
    out << '\n';
}

void writeSummaryCsvRow(std::ostream &out, const ComparisonRow &row, int n, bool withN) {
    const Summary &s = row.summary;
    if (withN)
        out << n << ',';
    char overhead[32];
    std::snprintf(overhead, sizeof overhead, "%.6f", row.costOverhead);
    out << row.strategy->name() << ',' << s.peakNodes << ',' << s.peakBytes << ',' << s.forwardEvaluations << ','
        << s.recomputations << ',' << s.backwardOps << ',' << s.ops << ',' << numberText(s.cost) << ',' << overhead
        << ",\"" << row.strategy->memoryClass() << "\",\"" << row.strategy->computeClass() << "\"," << s.peakSavedBytes
        << ',' << s.peakWorkspaceBytes;
    if (s.timed)
        out << ',' << s.peakHostBytes << ',' << s.transferBytes << ',' << secondsText(s.computeSeconds) << ','
            << secondsText(s.stallSeconds) << ',' << secondsText(s.makespanSeconds);
    out << '\n';
}

std::string secondsText(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", seconds);
    return buf;
}

void writeTimelineCsvHeader(std::ostream &out, bool timed) {
    out << "strategy,step,op,node,resident_count,resident,bytes,records,saved_bytes";
    if (timed)
        out << ",start,end,host_bytes,on_host";
    out << '\n';
}

void writeTimelineCsv(std::ostream &out, const std::string &strategy, const Timeline &timeline) {
    const Model &model = timeline.model();
    StepState state = timeline.stateAt(-1);
    for (std::int64_t t = 0; t < timeline.steps(); ++t) {
        timeline.advance(state);
        const Op op = timeline.op(t);
        out << strategy << ',' << t << ',' << kindName(op.kind) << ',' << model.name(op.node) << ','
            << timeline.residentCountAt(t) << ',';
        bool first = true;
        for (NodeId id = 0; id < state.resident.size(); ++id) {
            if (!state.resident[id])
                continue;
            if (!first)
                out << ' ';
            out << model.name(id);
            first = false;
        }
        // records: 1 for a forward run that keeps its layer's saved internals.
        out << ',' << timeline.bytesAt(t) << ',' << (op.records ? 1 : 0) << ',' << timeline.savedBytesAt(t);
        if (timeline.timed()) {
            out << ',' << secondsText(timeline.startTime(t)) << ',' << secondsText(timeline.endTime(t)) << ','
                << timeline.hostBytesAt(t) << ',';
            // Nodes with a host copy after the op (on host, or on both while a copy is made or read).
            first = true;
            for (std::size_t i = 0; i < state.host.size(); ++i) {
                if (state.host[i] == HostCopy::None)
                    continue;
                if (!first)
                    out << ' ';
                out << model.name(static_cast<NodeId>(i));
                first = false;
            }
        }
        out << '\n';
    }
}

} // namespace remat
