"""verify's report in words: the table of each run (block level and op
level) and the over-budget line of --strict; pure formatting of the dicts
verifying.py and op_verify.py return."""


def _mib(value):
    return f"{value / 2**20:.1f} MiB"


def heading(result, level=""):
    """The first line of verify's report: model, inputs, PyTorch, counter."""
    mixed = f" under autocast {result['autocast']}" if result.get("autocast") else ""
    return (f"{result['model']}, {result['input']} {result['dtype']}{mixed} on {result['device']} "
            f"(PyTorch {result['torch']}, {result['threads']} threads){level}; observed: {result['counter']}")


def report_text(result):
    if result.get("granularity") == "op":
        return report_ops_text(result)
    lines = [heading(result)]
    header = f"{'plan':<48} {'predicted peak':>15} {'observed peak':>15} {'difference':>10}  " \
             f"{'within budget':<24} {'forward evaluations':<22} {'max |grad diff|':>15}"
    lines += [header, "-" * len(header)]
    for run in result["runs"]:
        evaluations = run["forward_evaluations"]
        same = evaluations["predicted"] == evaluations["observed"]
        total_predicted = sum(evaluations["predicted"].values())
        total_observed = sum(evaluations["observed"].values())
        evaluation_text = f"{total_observed} of {total_predicted} " + ("(equal)" if same else "(DIFFER)")
        title = run["plan"] if len(run["plan"]) <= 48 else run["plan"][:45] + "..."
        lines.append(f"{title:<48} {peak_cells(run)} {evaluation_text:<22} {run['max_grad_diff']:>15.3g}")
        if not same:
            differ = [f"{n}: predicted {evaluations['predicted'][n]}, observed {evaluations['observed'].get(n)}"
                      for n in evaluations["predicted"] if evaluations["predicted"][n] != evaluations["observed"].get(n)]
            lines.append("    " + "; ".join(differ))
    return "\n".join(lines)


def peak_cells(run):
    """The columns every verify table shares: predicted peak, observed peak, difference, within budget."""
    predicted, observed = run["predicted_peak_bytes"], run["observed_peak_bytes"]
    return (f"{_mib(predicted):>15} {_mib(observed):>15} {(observed - predicted) / predicted:>+10.1%}  "
            f"{budget_text(run):<24}")


def budget_text(run):
    """The "within budget" column: yes or NO with the budget, "-" without one."""
    budget = run.get("budget_bytes")
    return "-" if budget is None else f"{'yes' if run['within_budget'] else 'NO'} ({_mib(budget)})"


def over_budget(result):
    """One line naming the plans whose observed peak is above their budget ("" if none)."""
    over = [f"{run['file']} observed {run['observed_peak_bytes']} B > budget {run['budget_bytes']} B"
            for run in result["runs"] if run.get("within_budget") is False]
    return ("over budget: " + "; ".join(over)) if over else ""


def report_ops_text(result):
    lines = [heading(result, ", op level")]
    header = f"{'plan':<44} {'predicted peak':>15} {'observed peak':>15} {'difference':>10}  " \
             f"{'within budget':<24} {'re-runs per op':<16} {'max |grad diff|':>15}"
    lines += [header, "-" * len(header)]
    for run in result["runs"]:
        reruns = run["recomputations"]
        same = reruns["predicted"] == {k: v for k, v in reruns["observed"].items() if k in reruns["predicted"] or v}
        lines.append(f"{run['plan'][:44]:<44} {peak_cells(run)} {'equal' if same else 'DIFFER':<16} "
                     f"{run['max_grad_diff']:>15.3g}")
        for kind in sorted(set(reruns["predicted"]) | set(reruns["observed"])):
            p, o = reruns["predicted"].get(kind, 0), reruns["observed"].get(kind, 0)
            if p or o:
                lines.append(f"    {kind:<32} planned {p:>4}  observed {o:>4}" + ("" if p == o else "  (DIFFER)"))
    return "\n".join(lines)
