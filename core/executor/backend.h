#pragma once
// One interface for every backend the executor drives (Eigen on the CPU, CUDA
// in gpu/). The executor tells a backend which node to allocate, compute or
// free; the backend owns the buffers, the parameters and the counters.
#include "core/errors.h"
#include "core/executor/network.h"
#include "core/model.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat::exec {

// Bytes of node and workspace buffers (the activation memory the simulator
// predicts). Parameters and gradients are a constant part, counted apart.
struct MemoryCounters {
    std::int64_t liveBytes = 0;
    std::int64_t peakBytes = 0; // since the last resetPeak(), as requested by the backend
    std::int64_t allocations = 0;
    // The allocator's own high-water mark where it has one (CUDA: the memory
    // pool's used-memory high-water mark, which may round sizes up).
    std::optional<std::int64_t> allocatorPeakBytes;
    // The host arena of offloaded copies (docs/executor.md, "Offloading"):
    // its live bytes and its high-water mark since the last resetHostPeak().
    std::int64_t hostLiveBytes = 0;
    std::int64_t hostPeakBytes = 0;
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;       // "cpu", "cuda"
    virtual std::string deviceName() const = 0; // "x86_64, 2 cores", "NVIDIA H200"
    // The model of the network this backend runs, built by the code that
    // allocates its buffers (networkModel, transformerModel): the executor
    // runs only schedules planned on it.
    virtual Model model() const = 0;
    // Weights, biases, their gradients, the input batch and the target.
    virtual std::int64_t parameterBytes() const = 0;
    // What the backend's math keeps for itself across ops, allocated once and
    // the same for every schedule, so outside the peaks like the parameters
    // (CPU: each thread's GEMM packing buffers; CUDA: cuBLAS's workspace).
    // Nothing where the backend cannot tell.
    virtual std::optional<std::int64_t> kernelScratchBytes() const { return std::nullopt; }

    // Node buffers: `allocate` gives `node` an uninitialised buffer of its
    // bytes; `release` returns it. Throws OutOfMemory naming bytes asked and free.
    virtual void allocate(NodeId node) = 0;
    virtual void release(NodeId node) = 0;
    // Frees every node still allocated (between steps).
    virtual void releaseAll() = 0;
    // Fills the allocated a_0 with the input batch.
    virtual void loadInput() = 0;
    // Computes a_i (i >= 1) or b_i into their allocated buffers; the nodes the
    // model says they read must be allocated and computed.
    virtual void forward(int i) = 0;
    virtual void backward(int i) = 0;
    // Runs F_i recording (docs/model.md): computes a_i into its allocated
    // buffer and allocates and fills the internals layer i saves for its
    // backward, exactly Model::savedBytes(i) bytes; releaseSaved frees them.
    // Only networks whose layers save internals receive these calls.
    virtual void forwardRecording(int i) {
        throw InvalidArgument("layer " + std::to_string(i) + " of this network saves nothing to record");
    }
    virtual void releaseSaved(int i) {
        throw InvalidArgument("layer " + std::to_string(i) + " of this network holds no saved internals");
    }
    // Waits for queued work, copies included (a no-op on the CPU).
    virtual void synchronize() = 0;

    // Offloading (docs/model.md, "Offloading to host"; docs/executor.md): only
    // forward nodes a_1..a_n move, and the executor calls these as the
    // simulator's rules say, so a backend may assume a valid order.
    // `offload` gives a_i a buffer in the host arena and starts copying the
    // computed a_i into it; the device buffer stays. `prefetch` gives a_i a new
    // device buffer and starts copying the host copy into it. `waitTransfer`
    // makes later work (reads of a_i, the release of its device buffer)
    // wait for a_i's latest copy; `releaseHost` frees the host copy once the
    // prefetch that read it was waited for.
    virtual void offload(NodeId node) { refuseTransfers("offload", node); }
    virtual void prefetch(NodeId node) { refuseTransfers("prefetch", node); }
    virtual void waitTransfer(NodeId node) { refuseTransfers("wait for", node); }
    virtual void releaseHost(NodeId node) { refuseTransfers("release the host copy of", node); }
    virtual void resetHostPeak() {}

    virtual MemoryCounters counters() const = 0;
    virtual void resetPeak() = 0;

    // Wall time of a step: CPU steady clock, CUDA events on the backend's stream.
    virtual void startTimer() = 0;
    virtual double stopTimerSeconds() = 0;

    // Device-level memory (what top or nvidia-smi would see): a baseline, a
    // sample after each op of a probe step, and the growth over the baseline.
    // nullopt where the platform cannot tell.
    virtual void deviceWatchBegin() = 0;
    virtual void deviceWatchSample() {}
    virtual std::optional<std::int64_t> deviceWatchPeakGrowth() = 0;

    // Copies the weight and bias gradients and b_0 of the last step to the host.
    virtual void readGradients(Gradients &out) = 0;

private:
    [[noreturn]] void refuseTransfers(const char *what, NodeId node) const {
        throw NotSupported("the " + name() + " backend cannot " + what + " node " + std::to_string(node) +
                           ": it has no host arena");
    }
};

} // namespace remat::exec
