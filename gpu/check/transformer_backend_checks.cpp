// The transformer's CUDA backend running real schedules: store-all gradients
// against the CPU backend within kTransformerCpuAgreementTolerance (a wrong
// transpose or head offset shows here), gradients bitwise equal across every
// strategy, counted peak == predicted, the pool's high-water mark by
// poolPeakMismatch (exactly equal on a shape whose every buffer is whole
// pages) and the device-level growth covering the prediction.
#include "gpu/check/check.h"
#include "gpu/check/device_data.h"
#include "gpu/cuda_backend.h"
#include "gpu/cuda_transformer_backend.h"

#include "core/executor/executor.h"
#include "core/executor/transformer_backend.h"
#include "core/strategy_registry.h"
#include "tests/executor/step_helpers.h"

#include <algorithm>
#include <memory>
#include <string>

namespace remat::gpu::check {

namespace {

using exec::Gradients;
using exec::TransformerParameters;
using exec::TransformerShape;
using exec::testing::runOnce;

std::string describe(const TransformerShape &s) {
    return "L=" + std::to_string(s.layers) + " h=" + std::to_string(s.hidden) + " a=" + std::to_string(s.heads) +
           " s=" + std::to_string(s.seq) + " b=" + std::to_string(s.batch);
}

std::shared_ptr<const TransformerParameters> parametersFor(const TransformerShape &s) {
    return std::make_shared<const TransformerParameters>(TransformerParameters::generate(s));
}

Outcome agreesWithCpu(const TransformerShape &shape) {
    const auto params = parametersFor(shape);
    exec::TransformerCpuBackend cpu(params);
    const auto cuda = makeCudaTransformerBackend(params);
    return agreesWithCpuOn(cpu, *cuda, exec::transformerModel(shape), kTransformerCpuAgreementTolerance);
}

Outcome strategiesAgree(const TransformerShape &shape) {
    const Model model = exec::transformerModel(shape);
    const auto cuda = makeCudaTransformerBackend(parametersFor(shape));
    return strategiesAgreeOn(*cuda, model);
}

Outcome devicePeakCovers(const TransformerShape &shape) {
    const Model model = exec::transformerModel(shape);
    const auto cuda = makeCudaTransformerBackend(parametersFor(shape));
    return devicePeakCoversOn(*cuda, model);
}

} // namespace

CheckList transformerBackendChecks() {
    CheckList out;
    // Odd sizes (h 24 with 3 heads, seq 5, batch 3 or 7), one head, and
    // shapes where h, s and b all differ, so that a transposed GEMM or a
    // wrong head offset cannot pass.
    for (const TransformerShape &s :
         {TransformerShape{1, 8, 2, 3, 2}, TransformerShape{2, 24, 3, 5, 3}, TransformerShape{3, 64, 4, 33, 7},
          TransformerShape{1, 96, 1, 17, 1}, TransformerShape{2, 256, 4, 128, 4}})
        out.push_back({"transformer/agrees-with-cpu " + describe(s), [s] { return agreesWithCpu(s); }});
    for (const TransformerShape &s :
         {TransformerShape{6, 32, 4, 16, 2}, TransformerShape{5, 24, 3, 7, 3}, kTransformerWholePagesShape})
        out.push_back({"transformer/strategies " + describe(s), [s] { return strategiesAgree(s); }});
    for (const TransformerShape &s : {TransformerShape{4, 256, 4, 128, 8}, kTransformerWholePagesShape})
        out.push_back({"transformer/device-peak " + describe(s), [s] { return devicePeakCovers(s); }});
    return out;
}

} // namespace remat::gpu::check
