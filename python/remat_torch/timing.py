"""Costs that do not follow the machine's noise: each node's time is the
median of several timed steps, with the fastest and slowest kept beside it
(docs/pytorch.md, "Stable costs")."""
import statistics

COST_KINDS = ("time", "flops")


def median_costs(steps):
    """steps: per timed step, a list of per-node milliseconds. Returns the
    per-node medians and [fastest, slowest] of each node."""
    if not steps:
        raise ValueError("no timed steps")
    medians, spreads = [], []
    for per_node in zip(*steps):
        medians.append(statistics.median(per_node))
        spreads.append([round(min(per_node), 3), round(max(per_node), 3)])
    return medians, spreads
