// Every kernel of gpu/transformer_kernels.h against its CPU reference in
// core/executor/transformer_math.h (llm.c's dev/cuda style), on sizes that
// are not multiples of a block, wider than a block (c > 256 threads), and
// with a single token or column. The tolerances are what fp32 with another
// summation order (a tree instead of a sequential loop) and the device's own
// expf / tanhf allow; bias and residual adds are one rounding: bitwise.
#include "gpu/check/check.h"
#include "gpu/check/device_data.h"
#include "gpu/transformer_kernels.h"

#include "core/executor/transformer_math.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace remat::gpu::check {

namespace {

namespace math = exec::math;

std::vector<float> zeros(std::int64_t count) {
    return std::vector<float>(static_cast<std::size_t>(count));
}

Outcome within(const char *what, const std::vector<float> &gpu, const std::vector<float> &cpu, double allowed) {
    const double w = worstRelative(gpu, cpu);
    return expect(w <= allowed,
                  std::string(what) + ": max relative difference " + number(w) + " (allowed " + number(allowed) + ")");
}

// The first failing outcome of several, or all their messages.
Outcome all(std::initializer_list<Outcome> outcomes) {
    std::string messages;
    for (const Outcome &o : outcomes) {
        if (!o.passed)
            return o;
        messages += (messages.empty() ? "" : "; ") + o.message;
    }
    return pass(messages);
}

// LayerNorm over c features of n tokens: forward, apply and backward.
CheckList layerNorm(int c, int n) {
    const std::string size = " " + matrixSize(c, n);
    const std::int64_t count = std::int64_t{c} * n;
    CheckList out;
    out.push_back(
        {"kernel/layernorm-forward" + size, [c, n, count] {
             const auto x = randomValues(count, 2.0f, 21), gamma = randomValues(c, 1.5f, 22),
                        beta = randomValues(c, 0.5f, 23);
             std::vector<float> y = zeros(count), mean = zeros(n), rstd = zeros(n);
             math::layerNormForward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), c, n);
             const DeviceBuffer dx = toDevice(x), dg = toDevice(gamma), db = toDevice(beta),
                                dy = toDevice(zeros(count)), dm = toDevice(zeros(n)), dr = toDevice(zeros(n)),
                                dapply = toDevice(zeros(count));
             launchLayerNormForward(dx.data(), dg.data(), db.data(), dy.data(), dm.data(), dr.data(), c, n, nullptr);
             launchLayerNormApply(dx.data(), dm.data(), dr.data(), dg.data(), db.data(), dapply.data(), c, n, nullptr);
             const auto gy = toHost(dy);
             if (toHost(dapply) != gy)
                 return fail("layerNormApply from the saved statistics differs from the forward's y");
             return all({within("mean", toHost(dm), mean, 1e-6), within("rstd", toHost(dr), rstd, 1e-5),
                         within("y", gy, y, 1e-5), pass("apply bitwise equal to forward")});
         }});
    out.push_back(
        {"kernel/layernorm-backward" + size, [c, n, count] {
             const auto x = randomValues(count, 2.0f, 24), gamma = randomValues(c, 1.5f, 25),
                        dy = randomValues(count, 1.0f, 26), dxStart = randomValues(count, 1.0f, 27);
             std::vector<float> mean = zeros(n), rstd = zeros(n), y = zeros(count);
             math::layerNormForward(x.data(), gamma.data(), gamma.data(), y.data(), mean.data(), rstd.data(), c, n);
             std::vector<float> dx = dxStart, dgamma = zeros(c), dbeta = zeros(c);
             math::layerNormBackward(dy.data(), x.data(), mean.data(), rstd.data(), gamma.data(), dx.data(),
                                     dgamma.data(), dbeta.data(), c, n);
             const DeviceBuffer ddy = toDevice(dy), dxs = toDevice(x), dm = toDevice(mean), dr = toDevice(rstd),
                                dg = toDevice(gamma), ddx = toDevice(dxStart), ddg = toDevice(zeros(c)),
                                ddb = toDevice(zeros(c));
             launchLayerNormBackward(ddy.data(), dxs.data(), dm.data(), dr.data(), dg.data(), ddx.data(), ddg.data(),
                                     ddb.data(), c, n, nullptr);
             const auto first = toHost(ddg);
             launchLayerNormBackward(ddy.data(), dxs.data(), dm.data(), dr.data(), dg.data(), ddx.data(), ddg.data(),
                                     ddb.data(), c, n, nullptr);
             if (toHost(ddg) != first)
                 return fail("two launches on the same data gave different dgamma bits");
             // dx accumulates: after two launches, dxStart + 2 dL/dx.
             std::vector<float> twice = dx;
             for (std::size_t k = 0; k < twice.size(); ++k)
                 twice[k] += dx[k] - dxStart[k];
             // Sums over n tokens: the error grows with n.
             const double sums = 2e-6 * std::sqrt(static_cast<double>(n)) + 1e-6;
             return all({within("dx (two launches)", toHost(ddx), twice, 2e-5), within("dgamma", first, dgamma, sums),
                         within("dbeta", toHost(ddb), dbeta, sums), pass("dgamma bitwise equal across launches")});
         }});
    return out;
}

// Softmax of scaled scores down rows x cols columns, forward and backward.
CheckList softmax(int rows, int cols) {
    const std::string size = " " + matrixSize(rows, cols);
    const std::int64_t count = std::int64_t{rows} * cols;
    const float scale = 1.0f / std::sqrt(24.0f);
    CheckList out;
    out.push_back({"kernel/softmax-forward" + size, [rows, cols, count, scale] {
                       const auto z = randomValues(count, 8.0f, 31);
                       std::vector<float> p = z;
                       for (float &v : p)
                           v *= scale; // the CPU's `p *= scale`
                       math::softmaxForward(p.data(), rows, cols);
                       const DeviceBuffer dp = toDevice(z);
                       launchScaledSoftmaxForward(dp.data(), scale, rows, cols, nullptr);
                       return within("p", toHost(dp), p, 1e-6);
                   }});
    out.push_back({"kernel/softmax-backward" + size, [rows, cols, count, scale] {
                       std::vector<float> p = randomValues(count, 4.0f, 32);
                       math::softmaxForward(p.data(), rows, cols);
                       const auto dp = randomValues(count, 1.0f, 33);
                       std::vector<float> dz = zeros(count);
                       math::softmaxBackward(p.data(), dp.data(), dz.data(), rows, cols);
                       for (float &v : dz)
                           v *= scale; // the CPU's `dp *= scale`
                       const DeviceBuffer dprobs = toDevice(p), dgrad = toDevice(dp);
                       launchScaledSoftmaxBackward(dprobs.data(), dgrad.data(), scale, rows, cols, nullptr);
                       return within("dz", toHost(dgrad), dz, 1e-6);
                   }});
    return out;
}

// GELU forward and backward, bias and residual adds on count values.
CheckList elementwise(int c, int n) {
    const std::string size = " " + matrixSize(c, n);
    const std::int64_t count = std::int64_t{c} * n;
    CheckList out;
    out.push_back({"kernel/gelu-forward" + size, [count] {
                       const auto u = randomValues(count, 5.0f, 41);
                       std::vector<float> g = zeros(count);
                       math::geluForward(u.data(), g.data(), count);
                       const DeviceBuffer du = toDevice(u), dg = toDevice(zeros(count));
                       launchGeluForward(du.data(), dg.data(), count, nullptr);
                       return within("gelu", toHost(dg), g, 1e-6);
                   }});
    out.push_back({"kernel/gelu-backward" + size, [count] {
                       const auto u = randomValues(count, 5.0f, 42), dg = randomValues(count, 1.0f, 43);
                       std::vector<float> du = zeros(count);
                       math::geluBackward(u.data(), dg.data(), du.data(), count);
                       const DeviceBuffer deviceU = toDevice(u), deviceG = toDevice(dg);
                       launchGeluBackward(deviceU.data(), deviceG.data(), deviceG.data(), count, nullptr); // in place
                       return within("gelu'", toHost(deviceG), du, 2e-6);
                   }});
    out.push_back({"kernel/bias-add" + size, [c, n, count] {
                       const auto y = randomValues(count, 3.0f, 44), bias = randomValues(c, 1.0f, 45);
                       std::vector<float> ref = y;
                       math::biasAdd(ref.data(), bias.data(), c, n);
                       const DeviceBuffer dy = toDevice(y), db = toDevice(bias);
                       launchBiasAdd(dy.data(), db.data(), c, n, nullptr);
                       return expect(toHost(dy) == ref, "bitwise equal to math::biasAdd");
                   }});
    out.push_back({"kernel/residual-add" + size, [count] {
                       const auto y = randomValues(count, 3.0f, 46), x = randomValues(count, 3.0f, 47);
                       std::vector<float> ref = y;
                       math::residualAdd(ref.data(), x.data(), count);
                       const DeviceBuffer dy = toDevice(y), dx = toDevice(x);
                       launchResidualAdd(dy.data(), dx.data(), count, nullptr);
                       return expect(toHost(dy) == ref, "bitwise equal to math::residualAdd");
                   }});
    return out;
}

} // namespace

CheckList transformerKernelChecks() {
    CheckList out;
    // Features x tokens: one feature, fewer features than a warp, odd sizes,
    // GPT-2's 768 and 4h = 3072, wider than a block with one token.
    for (const auto &[c, n] : {std::pair{1, 3}, {24, 5}, {33, 7}, {768, 130}, {3072, 17}, {4100, 1}})
        for (CheckList part : {layerNorm(c, n), elementwise(c, n)})
            for (Check &check : part)
                out.push_back(std::move(check));
    // Rows (sequence) x columns (queries x heads x batch).
    for (const auto &[rows, cols] : {std::pair{1, 1}, {5, 15}, {33, 99}, {128, 1536}, {1000, 3}})
        for (Check &check : softmax(rows, cols))
            out.push_back(std::move(check));
    return out;
}

} // namespace remat::gpu::check
