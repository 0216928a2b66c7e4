"""PyTorch's peak activation bytes of one CPU step, for the CPU races in bench/.

The CPU allocator keeps no high-water mark, so the peak is read from
torch.profiler with profile_memory=True, which charges every allocation and
free to the op running at the time: each op's own bytes (children excluded)
summed in the order the ops started, the highest running total. It sees op
granularity, so a transient inside one op that is freed before the op ends is
missed: the figure is a lower bound. Only what the step allocates counts; what
exists before it (parameters, gradients a warm-up step allocated, inputs) does
not.
"""


def cpu_step_peak(torch, step):
    """Highest bytes allocated above the start while `step()` runs on the CPU."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    # "[memory]" events are allocations and frees outside any op.
    events = sorted(prof.events(), key=lambda e: (e.time_range.start, -e.time_range.end))
    total = peak = 0
    for e in events:
        total += e.cpu_memory_usage if e.name == "[memory]" else e.self_cpu_memory_usage
        peak = max(peak, total)
    return peak
