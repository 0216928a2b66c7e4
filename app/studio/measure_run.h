#pragma once
// The Measure action's work: the panes' strategies planned on a real network
// and run on the CPU backend (or CUDA where this build has it and a device
// answers), measured beside what the simulator predicts for that network.
// Which network: the opened model itself when it is one the executor runs
// (the transformer example, recognised exactly); the tanh MLP of the same
// depth for abstract chains; and otherwise the tanh MLP too, but reported as
// a different network, never as the opened model's figures. Plain functions,
// run in a worker thread by MeasureDialog and tested without a window.
#include "app/studio/pane_run.h"
#include "core/executor/executor.h"
#include "core/executor/network.h"
#include "core/executor/thread_pool.h"
#include "core/model.h"
#include "core/simulator.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace remat::studio {

struct MeasureSettings {
    std::string backend = "cpu"; // "cpu" or "cuda"
    int width = 256;
    int batch = 64;
    int repeats = 3;                          // timed steps per strategy (the median is shown)
    int threads = exec::availableCores();      // CPU threads; the gradients are the same for any count
    // Test hook: builds the backend instead of the CPU/CUDA choice above (a
    // fake that miscounts shows how a mismatch reaches the user).
    std::function<std::unique_ptr<exec::Backend>(std::shared_ptr<const exec::NetworkParameters>)> backendFactory;
};

struct MeasuredPane {
    std::string strategy;
    std::string description;                     // the schedule's parameters in words
    Summary predicted;                           // the simulator, on the network's model
    std::int64_t measuredPeakBytes = 0;          // activation bytes the backend counted
    std::int64_t measuredHostPeakBytes = 0;      // the host arena's high-water mark (offloaded copies)
    std::optional<std::int64_t> devicePeakBytes; // growth the OS or the driver saw
    double secondsPerStep = 0;                   // median
    double timeVsStoreAll = 0;                   // secondsPerStep over store-all's on the same backend
    double predictedCostVsStoreAll = 0;          // the simulator's cost over store-all's
    double maxGradientDiff = 0;                  // against store-all on the same backend
    bool gradientsBitwiseEqual = false;
    std::string error;                        // this pane could not be planned or run
    std::shared_ptr<const Schedule> schedule; // what ran, planned on the network's model
    exec::MemoryTrace trace;                  // the backend's bytes op by op (probe step)
    // First op whose measured bytes differ from the simulator's Timeline::bytesAt; -1: none.
    std::int64_t firstTraceMismatch = -1;

    bool ok() const { return error.empty(); }
    bool peakMatches() const {
        return ok() && measuredPeakBytes == predicted.peakBytes && measuredHostPeakBytes == predicted.peakHostBytes &&
               firstTraceMismatch < 0;
    }
};

struct MeasureReport {
    std::string backend; // "cpu", "cuda"
    std::string device;  // "x86_64, 2 cores", "NVIDIA H200"
    exec::NetworkShape shape; // the tanh MLP's, when that ran
    std::string network;      // what ran, in words: "tanh MLP, n = 16, width 256, batch 64"
    // True when what ran is the panes' own model (the opened transformer, or
    // an abstract chain run as the MLP of its depth): only then do the
    // results go beside the panes' rows.
    bool ranPaneModel = true;
    double storeAllSecondsPerStep = 0;
    std::vector<MeasuredPane> panes;
};

// Why CUDA cannot be used, in words for the dialog ("CUDA not available:
// <the runtime's reason>", or that this build has no CUDA backend); nothing
// when a device is usable. Asks the runtime once and remembers the answer.
std::optional<QString> cudaUnavailable();

// Plans each config on exec::networkModel({layers, width, batch}), refuses
// sizes the host (or the GPU) cannot hold (LimitExceeded naming the bytes) and
// a CUDA run without a device (DeviceUnavailable with the reason), then runs
// store-all once for reference gradients and measures each pane.
// `progress(fraction)` as the run goes: the share of all the ops it executes
// (store-all's reference step, then each pane's warm-up, probe and timed
// steps) done so far, reported at every 1/1000 and at the end, so a long run
// moves inside a strategy's steps too. Throws remat::Cancelled between
// ops once `cancelled()` is true. A pane whose strategy rejects the network
// keeps its error and the others still run.
// `paneModel`: the model the panes show (nullptr: an abstract chain of `layers`).
MeasureReport measurePanes(const std::vector<PaneConfig> &configs, int layers, const MeasureSettings &settings,
                           const std::function<void(double)> &progress = {},
                           const std::function<bool()> &cancelled = {}, const Model *paneModel = nullptr);

} // namespace remat::studio
