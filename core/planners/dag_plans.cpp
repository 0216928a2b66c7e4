#include "core/planners/dag_plans.h"

#include <algorithm>

namespace remat::planners {

namespace {

// Appends, in topological order, every node of `targets` that is not available
// together with the unavailable ancestors it needs, and marks them available.
// One sweep down and one up over indices (inputs come first), no sorting.
// `scratch` is a per-node marker array, all zero on entry and on exit.
// `made` (optional) collects the nodes marked available, so the caller can undo
// them in time proportional to the work done.
void recomputeClosure(const Model &model, const std::vector<int> &targets, std::vector<std::uint8_t> &available,
                      std::vector<std::uint8_t> &scratch, std::vector<NodeId> *order, double *evaluations,
                      std::vector<int> *made = nullptr) {
    int top = 0;
    for (int x : targets)
        if (!available[x]) {
            scratch[x] = 1;
            top = std::max(top, x);
        }
    for (int x = top; x > 0; --x)
        if (scratch[x])
            for (int in : model.inputs(x))
                if (!available[in])
                    scratch[in] = 1;
    for (int x = 1; x <= top; ++x)
        if (scratch[x]) {
            if (order)
                order->push_back(model.forwardNode(x));
            if (evaluations)
                *evaluations += 1;
            available[x] = 1;
            scratch[x] = 0;
            if (made)
                made->push_back(x);
        }
}

// The segment walk shared by segmentOrder and its count.
void walkSegments(const Model &model, const std::vector<int> &checkpoints, std::vector<NodeId> *order,
                  double *evaluations) {
    const int n = model.layers();
    for (int i = 1; i <= n; ++i)
        if (order)
            order->push_back(model.forwardNode(i));
    if (evaluations)
        *evaluations += n;
    if (order)
        order->push_back(model.backwardNode(n));
    std::vector<std::uint8_t> available(model.forwardCount(), 0), scratch(model.forwardCount(), 0);
    available[0] = 1;
    for (int c : checkpoints)
        available[c] = 1;
    std::vector<int> starts{0};
    starts.insert(starts.end(), checkpoints.begin(), checkpoints.end());
    std::vector<int> targets, made;
    int end = n;
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
        const int start = *it;
        targets.clear();
        for (int i = start + 1; i < end; ++i)
            targets.push_back(i);
        recomputeClosure(model, targets, available, scratch, order, evaluations, &made);
        // What one segment recomputed is gone before the next one starts.
        for (int x : made)
            available[x] = 0;
        made.clear();
        if (order)
            for (int j = end - 1; j >= start; --j)
                order->push_back(model.backwardNode(j));
        end = start;
    }
}

} // namespace

std::vector<int> articulationPoints(const Model &model) {
    const int f = model.forwardCount();
    // jumped[v] > 0: some edge p -> c has p < v < c.
    std::vector<int> jumped(f + 1, 0);
    for (int c = 1; c < f; ++c)
        for (int p : model.inputs(c))
            if (c - p > 1) {
                ++jumped[p + 1];
                --jumped[c];
            }
    std::vector<int> out;
    int open = 0;
    for (int v = 1; v + 1 < f; ++v) {
        open += jumped[v];
        if (open == 0)
            out.push_back(v);
    }
    return out;
}

std::vector<NodeId> recomputeAllOrder(const Model &model) {
    const int n = model.layers();
    std::vector<NodeId> order;
    for (int i = 1; i <= n; ++i)
        order.push_back(model.forwardNode(i));
    order.push_back(model.backwardNode(n));
    std::vector<std::uint8_t> scratch(model.forwardCount(), 0), available(model.forwardCount(), 0);
    available[0] = 1;
    std::vector<int> target(1);
    for (int j = n - 1; j >= 0; --j) {
        target[0] = j;
        recomputeClosure(model, target, available, scratch, &order, nullptr);
        order.push_back(model.backwardNode(j));
        std::fill(available.begin() + 1, available.begin() + j + 1, std::uint8_t{0});
    }
    return order;
}

std::vector<NodeId> segmentOrder(const Model &model, const std::vector<int> &checkpoints) {
    std::vector<NodeId> order;
    walkSegments(model, checkpoints, &order, nullptr);
    return order;
}

double segmentOrderForwardEvaluations(const Model &model, const std::vector<int> &checkpoints) {
    double evaluations = 0;
    walkSegments(model, checkpoints, nullptr, &evaluations);
    return evaluations;
}

} // namespace remat::planners
