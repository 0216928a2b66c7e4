#pragma once
// Host data for checks, and its round trip through device buffers.
#include "core/executor/network.h"
#include "gpu/device_buffer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat::gpu::check {

// Uniform values in [-scale, scale], the same for a given seed on every machine.
std::vector<float> randomValues(std::int64_t count, float scale, unsigned seed);
DeviceBuffer toDevice(const std::vector<float> &host);
// Waits for the device, then copies the whole buffer back.
std::vector<float> toHost(const DeviceBuffer &buffer);
// Largest |gpu - cpu| / max(1, |cpu|); infinity on a size mismatch or NaN.
double worstRelative(const std::vector<float> &gpu, const std::vector<float> &cpu);
// Largest |g| over every weight, bias and input gradient: the scale of a
// CPU-agreement tolerance.
double largestMagnitude(const exec::Gradients &g);
// "1.5e-07" style, for messages.
std::string number(double value);
// "33x7", for check names.
std::string matrixSize(int rows, int cols);

} // namespace remat::gpu::check
