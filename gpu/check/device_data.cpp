#include "gpu/check/device_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

namespace remat::gpu::check {

std::vector<float> randomValues(std::int64_t count, float scale, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> v(static_cast<std::size_t>(count));
    for (float &x : v)
        x = u(rng);
    return v;
}

DeviceBuffer toDevice(const std::vector<float> &host) {
    DeviceBuffer b(static_cast<std::int64_t>(host.size() * sizeof(float)), "check data");
    b.upload(host.data(), b.bytes());
    return b;
}

std::vector<float> toHost(const DeviceBuffer &buffer) {
    REMAT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> v(static_cast<std::size_t>(buffer.bytes()) / sizeof(float));
    buffer.download(v.data(), buffer.bytes());
    return v;
}

double worstRelative(const std::vector<float> &gpu, const std::vector<float> &cpu) {
    if (gpu.size() != cpu.size())
        return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (std::size_t k = 0; k < cpu.size(); ++k) {
        const double d = std::fabs(double{gpu[k]} - double{cpu[k]}) / std::max(1.0, std::fabs(double{cpu[k]}));
        if (std::isnan(d))
            return std::numeric_limits<double>::infinity();
        worst = std::max(worst, d);
    }
    return worst;
}

double largestMagnitude(const exec::Gradients &g) {
    double m = 0;
    for (const auto *v : {&g.weights, &g.biases, &g.input})
        for (float x : *v)
            m = std::max(m, std::fabs(double{x}));
    return m;
}

std::string number(double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", value);
    return buf;
}

std::string matrixSize(int rows, int cols) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%dx%d", rows, cols);
    return buf;
}

} // namespace remat::gpu::check
