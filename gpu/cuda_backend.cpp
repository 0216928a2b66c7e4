// The CUDA backend. Node and workspace buffers come from a dedicated memory
// pool on one stream (stream-ordered, so freeing never waits for the GPU);
// the pool's used-memory high-water mark is the allocator-level peak, reset
// every step, and cudaMemGetInfo cross-checks it at device level.
#include "gpu/cuda_backend.h"

#include "core/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/kernels.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace remat::gpu {

namespace {

using exec::Gradients;
using exec::MemoryCounters;
using exec::NetworkParameters;
using exec::NetworkShape;

// cuBLAS gets its own fixed workspace (cublasSetWorkspace) so that it never
// allocates behind the pool's back and its GEMMs are reproducible.
constexpr std::int64_t kCublasWorkspaceBytes = 32 << 20;

// Owns the stream, the pool, the cuBLAS handle and the timing events; released
// last (declared first in the backend).
struct DeviceContext {
    cudaStream_t stream = nullptr;
    cudaMemPool_t pool = nullptr;
    cublasHandle_t blas = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;

    explicit DeviceContext(int device) {
        REMAT_CUDA_CHECK(cudaSetDevice(device));
        REMAT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        REMAT_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
        // Keep released memory in the pool between steps (as PyTorch's caching
        // allocator does); trimmed explicitly before a device-level probe.
        std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
        REMAT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
        REMAT_CUBLAS_CHECK(cublasCreate(&blas));
        REMAT_CUBLAS_CHECK(cublasSetStream(blas, stream));
        REMAT_CUDA_CHECK(cudaEventCreate(&start));
        REMAT_CUDA_CHECK(cudaEventCreate(&stop));
    }
    ~DeviceContext() {
        // Nothing here may throw; errors on teardown have no one to report to.
        if (stream)
            cudaStreamSynchronize(stream);
        if (start)
            cudaEventDestroy(start);
        if (stop)
            cudaEventDestroy(stop);
        if (blas)
            cublasDestroy(blas);
        if (pool)
            cudaMemPoolDestroy(pool);
        if (stream)
            cudaStreamDestroy(stream);
    }
    DeviceContext(const DeviceContext &) = delete;
    DeviceContext &operator=(const DeviceContext &) = delete;
};

class CudaBackend final : public exec::Backend {
public:
    explicit CudaBackend(std::shared_ptr<const NetworkParameters> parameters)
        : params_(std::move(parameters)), info_(queryDevice()), context_(info_.ordinal) {
        const NetworkShape &s = params_->shape;
        const std::int64_t constant = s.parameterBytes() + kCublasWorkspaceBytes;
        if (constant > info_.freeBytes)
            throw OutOfMemory("GPU out of memory: the parameters, gradients and cuBLAS workspace need " +
                              std::to_string(constant) + " bytes; " + info_.name + " has " +
                              std::to_string(info_.freeBytes) + " free");
        const auto upload = [](const std::vector<float> &host, const char *what) {
            DeviceBuffer b(static_cast<std::int64_t>(host.size() * sizeof(float)), what);
            b.upload(host.data(), b.bytes());
            return b;
        };
        weights_ = upload(params_->weights, "weights");
        biases_ = upload(params_->biases, "biases");
        input_ = upload(params_->input, "the input batch");
        target_ = upload(params_->target, "the target");
        weightGrads_ = DeviceBuffer(weights_.bytes(), "weight gradients");
        biasGrads_ = DeviceBuffer(biases_.bytes(), "bias gradients");
        cublasWorkspace_ = DeviceBuffer(kCublasWorkspaceBytes, "the cuBLAS workspace");
        REMAT_CUBLAS_CHECK(cublasSetWorkspace(context_.blas, cublasWorkspace_.data(),
                                              static_cast<std::size_t>(kCublasWorkspaceBytes)));
        nodes_.resize(2 * (static_cast<std::size_t>(s.layers) + 1));
    }

    ~CudaBackend() override {
        nodes_.clear(); // stream-ordered frees, before the pool goes
    }

    std::string name() const override { return "cuda"; }
    std::string deviceName() const override {
        return info_.name + " (sm_" + std::to_string(info_.major) + std::to_string(info_.minor) + ", driver " +
               std::to_string(info_.driverVersion / 1000) + "." + std::to_string(info_.driverVersion % 1000 / 10) +
               ", runtime " + std::to_string(info_.runtimeVersion / 1000) + "." +
               std::to_string(info_.runtimeVersion % 1000 / 10) + ")";
    }
    const NetworkShape &shape() const { return params_->shape; }
    Model model() const override { return exec::networkModel(params_->shape); }
    std::int64_t parameterBytes() const override { return params_->shape.parameterBytes(); }

    void allocate(NodeId id) override {
        if (id >= nodes_.size())
            throw InvalidArgument("CUDA backend: no node " + std::to_string(id));
        if (nodes_[id])
            throw InvalidArgument("CUDA backend: node " + std::to_string(id) + " is already allocated");
        nodes_[id] = PoolBuffer(context_.pool, context_.stream, counter_, shape().nodeBytes(), "a node buffer");
    }
    void release(NodeId id) override {
        node(id, "released");
        nodes_[id] = PoolBuffer();
    }
    void releaseAll() override {
        for (auto &b : nodes_)
            b = PoolBuffer();
    }
    void loadInput() override {
        REMAT_CUDA_CHECK(cudaMemcpyAsync(node(0, "input"), input_.data(), static_cast<std::size_t>(input_.bytes()),
                                         cudaMemcpyDeviceToDevice, context_.stream));
    }

    // a_i = W_i tanh(a_(i-1)) + c_i: bias broadcast into a_i, then a GEMM with beta = 1.
    void forward(int i) override {
        const NetworkShape &s = shape();
        if (i < 1 || i > s.layers)
            throw InvalidArgument("CUDA backend: no forward layer " + std::to_string(i));
        const int w = s.width, b = s.batch;
        const float *in = node(static_cast<NodeId>(i - 1), "input of a forward");
        float *out = node(static_cast<NodeId>(i), "output of a forward");
        PoolBuffer t = workspace(exec::forwardWorkspaceBytes(s, i));
        launchTanh(in, t.data(), s.elements(), context_.stream);
        launchBroadcastColumns(biases_.data() + std::int64_t{i - 1} * w, out, w, b, context_.stream);
        const float one = 1.0f;
        REMAT_CUBLAS_CHECK(cublasSgemm(context_.blas, CUBLAS_OP_N, CUBLAS_OP_N, w, b, w, &one, weight(i), w, t.data(),
                                       w, &one, out, w));
    }

    void backward(int i) override {
        const NetworkShape &s = shape();
        if (i < 0 || i > s.layers)
            throw InvalidArgument("CUDA backend: no backward node " + std::to_string(i));
        const int w = s.width, b = s.batch;
        const NodeId self = static_cast<NodeId>(s.layers + 1 + i);
        float *out = node(self, "output of a backward");
        if (i == s.layers) {
            launchSubtract(node(static_cast<NodeId>(i), "a_n"), target_.data(), out, s.elements(), context_.stream);
            return;
        }
        const int layer = i + 1;
        const float *a = node(static_cast<NodeId>(i), "a_i of a backward");
        const float *next = node(self + 1, "b_(i+1) of a backward");
        PoolBuffer t = workspace(exec::backwardWorkspaceBytes(s, i));
        launchTanh(a, t.data(), s.elements(), context_.stream);
        const float one = 1.0f, zero = 0.0f;
        float *dW = weightGrads_.data() + std::int64_t{layer - 1} * w * w;
        // dW = b_(i+1) tanh(a_i)^T
        REMAT_CUBLAS_CHECK(
            cublasSgemm(context_.blas, CUBLAS_OP_N, CUBLAS_OP_T, w, w, b, &one, next, w, t.data(), w, &zero, dW, w));
        launchRowSums(next, biasGrads_.data() + std::int64_t{layer - 1} * w, w, b, context_.stream);
        // b_i = (W^T b_(i+1)) .* (1 - tanh(a_i)^2)
        REMAT_CUBLAS_CHECK(cublasSgemm(context_.blas, CUBLAS_OP_T, CUBLAS_OP_N, w, b, w, &one, weight(layer), w, next,
                                       w, &zero, out, w));
        launchTanhBackward(t.data(), out, s.elements(), context_.stream);
    }

    void synchronize() override { REMAT_CUDA_CHECK(cudaStreamSynchronize(context_.stream)); }

    MemoryCounters counters() const override {
        MemoryCounters c;
        c.liveBytes = counter_.live;
        c.peakBytes = counter_.peak;
        c.allocations = counter_.allocations;
        std::uint64_t high = 0;
        REMAT_CUDA_CHECK(cudaMemPoolGetAttribute(context_.pool, cudaMemPoolAttrUsedMemHigh, &high));
        c.allocatorPeakBytes = static_cast<std::int64_t>(high);
        return c;
    }
    void resetPeak() override {
        synchronize();
        counter_.peak = counter_.live;
        std::uint64_t zero = 0; // the only value the attribute may be set to
        REMAT_CUDA_CHECK(cudaMemPoolSetAttribute(context_.pool, cudaMemPoolAttrUsedMemHigh, &zero));
    }

    void startTimer() override { REMAT_CUDA_CHECK(cudaEventRecord(context_.start, context_.stream)); }
    double stopTimerSeconds() override {
        REMAT_CUDA_CHECK(cudaEventRecord(context_.stop, context_.stream));
        REMAT_CUDA_CHECK(cudaEventSynchronize(context_.stop));
        float ms = 0;
        REMAT_CUDA_CHECK(cudaEventElapsedTime(&ms, context_.start, context_.stop));
        return ms / 1000.0;
    }

    // Device level: what cudaMemGetInfo (and so nvidia-smi) sees. The pool is
    // trimmed first so that the growth is this step's, not an earlier one's.
    void deviceWatchBegin() override {
        synchronize();
        REMAT_CUDA_CHECK(cudaMemPoolTrimTo(context_.pool, 0));
        deviceBaseline_ = deviceUsed();
        devicePeak_ = deviceBaseline_;
    }
    void deviceWatchSample() override {
        synchronize();
        devicePeak_ = std::max(devicePeak_, deviceUsed());
    }
    std::optional<std::int64_t> deviceWatchPeakGrowth() override { return devicePeak_ - deviceBaseline_; }

    void readGradients(Gradients &out) override {
        synchronize();
        out.weights.resize(params_->weights.size());
        out.biases.resize(params_->biases.size());
        out.input.resize(static_cast<std::size_t>(shape().elements()));
        weightGrads_.download(out.weights.data(), weightGrads_.bytes());
        biasGrads_.download(out.biases.data(), biasGrads_.bytes());
        REMAT_CUDA_CHECK(cudaMemcpy(out.input.data(), node(static_cast<NodeId>(shape().layers + 1), "b_0"),
                                    static_cast<std::size_t>(shape().nodeBytes()), cudaMemcpyDeviceToHost));
    }

private:
    float *node(NodeId id, const char *role) const {
        if (id >= nodes_.size() || !nodes_[id])
            throw InvalidArgument(std::string("CUDA backend: ") + role + " node " + std::to_string(id) +
                                  " is not allocated");
        return nodes_[id].data();
    }
    PoolBuffer workspace(std::int64_t bytes) {
        return PoolBuffer(context_.pool, context_.stream, counter_, bytes, "a workspace buffer");
    }
    const float *weight(int layer) const {
        return weights_.data() + std::int64_t{layer - 1} * shape().width * shape().width;
    }
    std::int64_t deviceUsed() const {
        std::size_t freeBytes = 0, totalBytes = 0;
        REMAT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
        return static_cast<std::int64_t>(totalBytes - freeBytes);
    }

    std::shared_ptr<const NetworkParameters> params_;
    DeviceInfo info_;
    DeviceContext context_; // destroyed after every buffer below
    DeviceBuffer weights_, biases_, input_, target_, weightGrads_, biasGrads_, cublasWorkspace_;
    ByteCounter counter_;
    std::vector<PoolBuffer> nodes_;
    std::int64_t deviceBaseline_ = 0;
    std::int64_t devicePeak_ = 0;
};

} // namespace

std::unique_ptr<exec::Backend> makeCudaBackend(std::shared_ptr<const NetworkParameters> parameters) {
    if (!parameters)
        throw InvalidArgument("the CUDA backend needs network parameters");
    return std::make_unique<CudaBackend>(std::move(parameters));
}

} // namespace remat::gpu
