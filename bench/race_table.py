"""bench/framework_race.py's JSON as the Markdown table docs/pytorch.md
shows, and each eager peer's verdict: matched or beaten by a remat plan
(peak no higher and re-run FLOPs no higher, each with 1 % slack) or not.

    python3 bench/race_table.py RACE.json [RACE.json ...]
"""
import json
import sys

SLACK = 1.01


def fmt_point(p):
    budget = ""
    if p["kind"] in ("remat", "auto-sac"):
        budget = f" (budget {p['budget_bytes'] / 2**20:.2f} MiB"
        if "predicted_peak_bytes" in p:
            budget += f", predicted {p['predicted_peak_bytes'] / 2**20:.2f}"
        if "auto_sac_estimated_peak_bytes" in p:
            budget += (f"; sac_milp's budget {p['auto_sac_budget_bytes'] / 2**20:.2f}, of its store-all estimate "
                       f"{p['auto_sac_store_all_estimate_bytes'] / 2**20:.2f}")
        budget += ")"
    over = p["kind"] in ("remat", "auto-sac") and p["observed_peak_bytes"] > p["budget_bytes"]
    peak = f"{p['observed_peak_bytes'] / 2**20:.2f}"
    return (f"| {p['who']}{budget} | {p['kind']} | {'**' + peak + '**' if over else peak} | "
            f"{p['recompute_flops'] / 1e9:.3f} | {p['step_seconds']:.3f} / {p['store_all_step_seconds']:.3f} |")


def matched(peer, plans):
    """The remat plans that match or beat `peer` within the slack."""
    return [r for r in plans if r["observed_peak_bytes"] <= peer["observed_peak_bytes"] * SLACK
            and r["recompute_flops"] <= max(peer["recompute_flops"] * SLACK, peer["recompute_flops"] + 1e6)]


def table(doc):
    lines = ["| configuration | kind | peak MiB | re-run GFLOP | step s / paired store-all s |",
             "|---|---|---:|---:|---:|"]
    lines += [fmt_point(p) for p in doc["points"]]
    lines.append("")
    plans = [p for p in doc["points"] if p["kind"] == "remat"]
    for peer in doc["points"]:
        if peer["kind"] == "remat" or peer["who"] == "store-all":
            continue
        found = matched(peer, plans)
        best = min(found, key=lambda r: (r["recompute_flops"], r["observed_peak_bytes"])) if found else None
        lines.append(f"- {peer['who']} ({peer['observed_peak_bytes'] / 2**20:.2f} MiB, "
                     f"{peer['recompute_flops'] / 1e9:.3f} GFLOP): " +
                     (f"matched by {best['who']} ({best['observed_peak_bytes'] / 2**20:.2f} MiB, "
                      f"{best['recompute_flops'] / 1e9:.3f} GFLOP)" if best else "NOT matched"))
    lines.append("")
    lines += [f"- not run: {e['who']}: {e['reason']}" for e in doc["not_run"]]
    lines.append(f"\nwall {doc['wall_seconds']} s, PyTorch {doc['torch']}, {doc['threads']} threads, {doc['date']}")
    return "\n".join(lines)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path) as f:
            print(f"## {path}\n\n{table(json.load(f))}\n")
