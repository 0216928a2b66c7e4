#include "core/strategies/segments.h"

namespace remat {

std::vector<NodeId> segmentComputeOrder(const Model &chain, const std::vector<int> &checkpoints) {
    const int n = chain.layers();
    std::vector<NodeId> order;
    order.reserve(static_cast<std::size_t>(segmentForwardEvaluations(n, checkpoints.size())) + n + 1);
    for (int i = 1; i <= n; ++i)
        order.push_back(chain.forwardNode(i));
    order.push_back(chain.backwardNode(n));
    std::vector<int> starts{0};
    starts.insert(starts.end(), checkpoints.begin(), checkpoints.end());
    int end = n;
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
        const int start = *it;
        for (int i = start + 1; i < end; ++i)
            order.push_back(chain.forwardNode(i));
        for (int j = end - 1; j >= start; --j)
            order.push_back(chain.backwardNode(j));
        end = start;
    }
    return order;
}

double segmentForwardEvaluations(int n, std::size_t checkpointCount) {
    return 2.0 * n - static_cast<double>(checkpointCount) - 1;
}

} // namespace remat
