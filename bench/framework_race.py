"""remat's plans against the framework's own checkpointing on one model,
measured in one run: store-all, per-layer checkpointing, PyTorch's selective
policies (save the matmuls; re-run the attention core), torch.compile's
activation_memory_budget at several fractions, PyTorch's private auto-SAC
(bench/race_autosac.py) at each eager peer's measured peak, and remat's
block-level and op-level plans at budgets equal to each eager peer's
measured peak (plus --curve budgets between the lowest peer and store-all,
to draw remat's curves).

    scripts/torch2-python bench/framework_race.py --model FILE.py:fn --inputs FILE.py:fn \\
        [--json OUT] [--png OUT] [--rounds 3] [--compile-budgets 0.1,0.3,0.5,0.7,0.9] [--curve 2]
        [--no-auto-sac]

Every configuration is measured the same way (bench/race_measure.py): peak
bytes by the project's CPU counter, re-run FLOPs as the step's FLOPs
(torch.utils.flop_counter) minus store-all's, step time as the median of
--rounds paired rounds. A configuration that cannot run is listed under
"not_run" with the reason, and the rest goes on. Bad --model / --inputs:
one line on stderr, exit 2."""
import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
import torch._functorch.config as functorch_config  # noqa: E402

from remat_torch.errors import UsageError  # noqa: E402
from remat_torch.inputs import build_inputs  # noqa: E402
from remat_torch.spec import build_model  # noqa: E402

import race_autosac  # noqa: E402
import race_measure  # noqa: E402
import race_peers  # noqa: E402
import race_remat  # noqa: E402

DEFAULT_FRACTIONS = "0.1,0.3,0.5,0.7,0.9"


def _fractions(text):
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"--compile-budgets {text!r}: expected fractions such as {DEFAULT_FRACTIONS}") from None
    if not values or any(not 0 < v <= 1 for v in values):
        raise UsageError(f"--compile-budgets {text!r}: each fraction must lie in (0, 1]")
    return values


class Race:
    def __init__(self, model_spec, inputs_spec, rounds, log):
        self.model_spec, self.rounds, self.log = model_spec, rounds, log
        self.reference = self.fresh()
        self.state = self.reference.state_dict()
        self.batch = build_inputs({"function": inputs_spec}, torch.float32, torch.device("cpu"))
        self.points, self.not_run = [], []
        self.store_all_flops = None

    def fresh(self):
        model = build_model(self.model_spec).train()
        if getattr(self, "state", None) is not None:
            model.load_state_dict(self.state)
        return model

    def run(self, who, kind, make, **extra):
        """Measures make(fresh model); a NotRun, or a failure of a compile
        configuration, goes to not_run with its reason."""
        self.log(f"{who} ...")
        start = time.perf_counter()
        try:
            model = make(self.fresh())
            measured = race_measure.measure(model, self.batch, self.reference, self.rounds)
        except race_peers.NotRun as e:
            self.not_run.append({"who": who, "reason": str(e)})
            return None
        except Exception as e:  # torch.compile or a policy failing on this model: reported, the race goes on
            if kind == "store-all":
                raise
            self.not_run.append({"who": who, "reason": f"{type(e).__name__}: {str(e).strip().splitlines()[0]}"
                                 if str(e).strip() else type(e).__name__})
            return None
        if self.store_all_flops is None:
            self.store_all_flops = measured["flops"]
        point = {"who": who, "kind": "peer" if kind == "store-all" else kind,
                 "observed_peak_bytes": measured["observed_peak_bytes"],
                 "recompute_flops": measured["flops"] - self.store_all_flops,
                 "step_seconds": measured["step_seconds"],
                 "store_all_step_seconds": measured["store_all_step_seconds"],
                 "wall_seconds": round(time.perf_counter() - start, 2), **extra}
        self.points.append(point)
        self.log(f"{who}: peak {point['observed_peak_bytes'] / 2**20:.2f} MiB, re-run "
                 f"{point['recompute_flops'] / 1e9:.3f} GFLOP, step {point['step_seconds']:.3f} s")
        return point

    def peers(self):
        self.run("store-all", "store-all", lambda m: m)
        eager = [self.run(race_peers.per_layer_name(self.reference), "peer", race_peers.per_layer),
                 self.run("SAC save-matmuls", "peer", race_peers.save_matmuls),
                 self.run("SAC attention-core re-run", "peer", race_peers.recompute_attention_core)]
        return [p for p in eager if p is not None]

    def compiled(self, fractions):
        for fraction in fractions:
            torch._dynamo.reset()  # each budget compiles afresh; the partitioner reads it at compile time
            with functorch_config.patch(activation_memory_budget=fraction):
                self.run(f"torch.compile budget {fraction:g}", "compile", race_peers.compiled(fraction),
                         activation_memory_budget=fraction, backend="aot_eager_decomp_partition")
        torch._dynamo.reset()
        self.not_run.append({"who": "torch.compile (inductor)", "reason": (
            "inductor's CPU kernels allocate their buffers outside aten dispatch, so the project's CPU counter "
            "cannot measure their peak; the compile points use aot_eager_decomp_partition, the same AOT "
            "partitioner and activation_memory_budget with the graphs run as aten ops (no fusion)")})

    def auto_sac(self, eager):
        """PyTorch's auto-SAC (bench/race_autosac.py) at each eager peer's
        measured peak: statistics gathered once, both MILPs per budget."""
        self.log("auto-SAC: estimating ...")
        try:
            estimator = race_autosac.AutoSAC(self.fresh(), self.batch, self.points[0]["observed_peak_bytes"])
        except race_autosac.Missing as e:
            self.not_run.append({"who": "PyTorch auto-SAC (torch.distributed._tools)", "reason": str(e)})
            return
        except Exception as e:  # the private estimators failing on this model: reported, the race goes on
            self.not_run.append({"who": "PyTorch auto-SAC (torch.distributed._tools)",
                                 "reason": f"estimating: {type(e).__name__}: {str(e).strip()[:300]}"})
            return
        for p in eager:
            who = f"auto-SAC @ {p['who']} peak"
            try:
                policies, facts = estimator.plan(p["observed_peak_bytes"])
            except race_autosac.NoPlan as e:
                self.not_run.append({"who": who, "reason": str(e)})
                continue
            self.run(who, "auto-sac", lambda m, policies=policies: race_autosac.applied(m, policies),
                     budget_bytes=int(p["observed_peak_bytes"]), **facts)

    def remat(self, budgets):
        """budgets: [(label, bytes)]; one traced file per granularity."""
        for name, granularity in race_remat.GRANULARITIES:
            self.log(f"remat {name}: tracing ...")
            try:
                doc, cost = race_remat.trace(self.fresh(), self.batch, granularity)
            except Exception as e:  # the tracer refusing this model: reported, the race goes on
                self.not_run.append({"who": f"remat {name}", "reason": f"trace: {type(e).__name__}: {e}"})
                continue
            for label, budget in budgets:
                who = f"remat {name} @ {label}"
                try:
                    plan, predicted = race_remat.planned(doc, granularity, budget)
                except UsageError as e:
                    self.not_run.append({"who": who, "reason": f"remat plan refused {budget} B: {e}"})
                    continue
                self.run(who, "remat", lambda m, plan=plan: race_remat.applied(m, plan), budget_bytes=int(budget),
                         predicted_peak_bytes=predicted, granularity=granularity, planned_cost=cost)


def remat_budgets(store_all, eager, curve):
    """Each eager peer's measured peak, then `curve` budgets evenly between
    the lowest of them and store-all's peak (the shape of remat's curves)."""
    budgets = [(f"{p['who']} peak", p["observed_peak_bytes"]) for p in eager]
    if eager and curve > 0:
        low, high = min(b for _, b in budgets), store_all["observed_peak_bytes"]
        for k in range(1, curve + 1):
            budget = int(low + (high - low) * k / (curve + 1))
            # none where the peers hold as much as store-all (then every curve budget is the same one)
            if budget not in {b for _, b in budgets}:
                budgets.append((f"{budget / 2**20:.2f} MiB", budget))
    return budgets


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="path/to/file.py:callable returning the nn.Module")
    parser.add_argument("--inputs", required=True, help="path/to/file.py:callable returning the batch")
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--png", metavar="OUT")
    parser.add_argument("--rounds", type=int, default=3, help="paired timing rounds per configuration")
    parser.add_argument("--compile-budgets", default=DEFAULT_FRACTIONS, help="activation_memory_budget fractions")
    parser.add_argument("--curve", type=int, default=2, help="extra remat budgets between the peers and store-all")
    parser.add_argument("--no-auto-sac", action="store_true", help="leave PyTorch's auto-SAC out (listed as not run)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    log = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    start = time.perf_counter()
    try:
        fractions = _fractions(args.compile_budgets)
        if args.rounds < 1:
            raise UsageError(f"--rounds {args.rounds}: expected at least 1")
        if not args.model.rpartition(":")[0].endswith(".py"):
            raise UsageError(f"--model {args.model!r}: expected path/to/file.py:callable")
        race = Race(args.model, args.inputs, args.rounds, log)
        race_measure.counted_step(race.reference, race.batch)  # the model runs on the inputs: else one line, exit 2
    except UsageError as e:
        print(f"framework_race: {e}", file=sys.stderr)
        return 2
    eager = race.peers()
    race.compiled(fractions)
    if args.no_auto_sac:
        race.not_run.append({"who": "PyTorch auto-SAC (torch.distributed._tools)", "reason": "left out (--no-auto-sac)"})
    else:
        race.auto_sac(eager)
    race.remat(remat_budgets(race.points[0], eager, args.curve))
    result = {"model": args.model, "inputs": args.inputs, "torch": torch.__version__,
              "threads": torch.get_num_threads(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "counter": race_measure.COUNTER, "flop_counter": "torch.utils.flop_counter.FlopCounterMode",
              "rounds": args.rounds, "points": race.points, "not_run": race.not_run,
              "wall_seconds": round(time.perf_counter() - start, 1)}
    text = json.dumps(result, indent=2)
    if args.json:
        with open(args.json + ".tmp", "w") as f:
            f.write(text + "\n")
        os.replace(args.json + ".tmp", args.json)
    else:
        print(text)
    if args.png:
        import race_chart
        reason = race_chart.draw(result, args.png)
        if reason:
            log(f"no PNG: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
