"""Costs that do not follow the machine's noise (docs/pytorch.md, "Stable
costs"): each node's time is the median of several timed steps, with the
fastest and slowest kept beside it, and nodes that compute the same thing
(identical blocks: same module classes, parameter shapes and measured sizes)
share one cost, the median of all their timed runs, so that a plan never
prefers one of them over another by noise."""
import statistics

COST_KINDS = ("time", "flops")


def median_costs(steps, groups=()):
    """steps: per timed step, a list of per-node milliseconds; groups: lists
    of node indices that compute the same thing. Returns per-node costs (the
    node's median, or its group's median over every run of every member) and
    [fastest, slowest] of each node's own runs."""
    if not steps:
        raise ValueError("no timed steps")
    per_node = [list(runs) for runs in zip(*steps)]
    costs = [statistics.median(runs) for runs in per_node]
    for group in groups:
        pooled = statistics.median([t for i in group for t in per_node[i]])
        for i in group:
            costs[i] = pooled
    spreads = [[round(min(runs), 3), round(max(runs), 3)] for runs in per_node]
    return costs, spreads


def identical_groups(signatures):
    """Indices sharing a signature (None: never grouped), groups of two or more."""
    by_signature = {}
    for index, signature in enumerate(signatures):
        if signature is not None:
            by_signature.setdefault(signature, []).append(index)
    return [group for group in by_signature.values() if len(group) > 1]
