"""Selective checkpointing at op level (docs/pytorch.md, "Op level"): trace
--granularity op, remat plan --granularity op, apply and verify; the re-runs
are counted by this test's own dispatch mode, not by the code under test."""
import collections
import json
import os
import subprocess
import unittest

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from helpers import MODELS, Workdir, remat_cli, run_main

import remat_torch
from remat_torch.op_trace import run_op
from remat_torch.inputs import build_inputs
from remat_torch.spec import build_model
from remat_torch.steps import preallocate_gradients, step

ENCODER = "torch:transformer-encoder:d_model=32,nhead=4,layers=2,dim_feedforward=64"
SHAPE = "2x8x32"


class Calls(TorchDispatchMode):
    """Every aten call by name. (run_op only runs the op: it turns the Python
    numbers 1.13's autograd hands to modes back into tensors.)"""

    def __init__(self):
        super().__init__()
        self.count = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count["aten::" + func.overloadpacket.__name__] += 1
        return run_op(func, args, kwargs)


def one_step(plan=None):
    model = build_model(ENCODER).train()
    batch = build_inputs({"tensors": ["2x8x32"]}, torch.float32, "cpu")
    if plan is not None:
        remat_torch.apply(model, plan)
    preallocate_gradients(model)
    torch.manual_seed(3)
    calls = Calls()
    with calls:
        step(model, batch, ENCODER)
    return calls.count, [p.grad.clone() for p in model.parameters()]


class OpLevelTest(Workdir):
    def setUp(self):
        super().setUp()
        status, _, err = run_main("trace", "--granularity", "op", "--model", ENCODER, "--input", SHAPE,
                                  "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        with open(self.path("ops.json")) as f:
            self.model = json.load(f)

    def plan_ops(self, *options):
        return self.plan("ops.json", "plan.json", "--granularity", "op", "--time-limit", "1", *options)

    def plan_at(self, budget, model="ops.json"):
        """remat plan --granularity op --budget BUDGET: (exit status, stdout, stderr)."""
        r = subprocess.run([remat_cli(), "plan", "--model", self.path(model), "--granularity", "op",
                            "--time-limit", "1", "--budget", str(budget), "--json"], capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr

    def tightest_budget(self, least, model="ops.json"):
        """The least budget a plan runs within in PyTorch: `least` (remat's
        least peak), or the one its refusal names."""
        status, _, err = self.plan_at(least, model)
        if status == 0:
            return least
        self.assertEqual(status, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("no op-level plan runs in PyTorch within it", err)
        return int(err.strip().rsplit("--budget ", 1)[1])

    def test_trace_has_ops_saves_and_blocks(self):
        nodes = self.model["nodes"][1:]
        self.assertTrue(all("op" in n and "saves" in n for n in nodes))
        self.assertEqual({n.get("module") for n in nodes}, {"layers.0", "layers.1"})
        kinds = {n["op"] for n in nodes}
        for kind in ("aten::bmm", "aten::_softmax", "aten::native_layer_norm", "aten::addmm"):
            self.assertIn(kind, kinds)
        softmax = next(n for n in nodes if n["op"] == "aten::_softmax")
        self.assertEqual(softmax["saves"], ["output"])  # what autograd keeps: its result
        norm = next(n for n in nodes if n["op"] == "aten::native_layer_norm")
        self.assertEqual(norm["saved_bytes"], 2 * 2 * 8 * 4)  # mean and rstd, fp32, per token

    def test_apply_reruns_exactly_the_planned_ops(self):
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--frontier", "--samples", "3", "--time-limit", "1", "--json"], capture_output=True, text=True)
        self.assertEqual(frontier.returncode, 0, frontier.stderr)
        curve = json.loads(frontier.stdout)["curve"]
        middle = curve[1]["budget_bytes"]
        plain_calls, plain_grads = one_step()
        for budget in (str(middle), str(self.tightest_budget(curve[0]["budget_bytes"]))):
            plan = self.plan_ops("--budget", budget)
            planned = plan["selective"]["recomputations"]
            self.assertTrue(planned)
            calls, grads = one_step(self.path("plan.json"))
            kinds = {n["op"] for b in plan["selective"]["blocks"] for n in b["nodes"]}
            observed = {k: calls[k] - plain_calls[k] for k in kinds if calls[k] != plain_calls[k]}
            self.assertEqual(observed, planned)
            for g, r in zip(grads, plain_grads):
                self.assertTrue(torch.equal(g, r))  # bit for bit

    def test_verify_reports_reruns_gradients_and_peak(self):
        self.plan_ops("--budget", str(self.plan_ops("--budget", "1GiB")["named"][2]["peak_bytes"]))
        status, out, err = run_main("verify", "--plan", self.path("plan.json"), "--json")
        self.assertEqual(status, 0, err)
        run = json.loads(out)["runs"][1]
        self.assertEqual(run["recomputations"]["observed"], run["recomputations"]["predicted"])
        self.assertEqual(run["max_grad_diff"], 0.0)
        self.assertGreater(run["observed_peak_bytes"], 0)
        status, out, err = run_main("apply", "--plan", self.path("plan.json"), "--model", ENCODER)
        self.assertEqual(status, 0, err)
        self.assertIn("under a selective checkpoint", out)
        self.assertIn("blocks found", out)

    def test_budget_plans_hold_in_pytorch_from_store_all_to_the_tightest(self):
        """The promise of --budget at op level: at every budget of the curve,
        from store-all's peak down to the least peak any plan reaches (or,
        where PyTorch's run of the tightest plan is above that, the budget its
        one-line refusal names), the plan PyTorch runs peaks at or below the
        budget (verify --strict) and at its prediction within 2 %. (Before the model's
        output, its gradient and the selective-checkpoint cache's hold on a
        block's output were counted, every plan here was 4 to 6 KiB, some 10 %,
        above its prediction and its budget.)"""
        self.assertBudgetsHold("ops.json")

    def test_budget_plans_hold_on_causal_attention_layers(self):
        """The same on GPT-2 blocks, whose Python locals hold the masked scores
        past the softmax and whose backward transposes saved tensors."""
        status, _, err = run_main("trace", "--granularity", "op", "--model", f"{MODELS}:causal_layers",
                                  "--input", "2x16x32", "-o", self.path("causal.json"))
        self.assertEqual(status, 0, err)
        self.assertBudgetsHold("causal.json")

    def assertBudgetsHold(self, model):
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path(model), "--granularity", "op",
                                   "--frontier", "--samples", "6", "--time-limit", "1", "--json"],
                                  capture_output=True, text=True)
        self.assertEqual(frontier.returncode, 0, frontier.stderr)
        budgets = sorted({p["budget_bytes"] for p in json.loads(frontier.stdout)["curve"]})
        self.assertEqual(budgets[-1], json.loads(frontier.stdout)["store_all"]["peak_bytes"])
        tightest = self.tightest_budget(budgets[0], model)
        self.assertLess(tightest, budgets[1])
        plans = []
        for budget in [tightest] + [b for b in budgets if b > tightest]:
            status, out, err = self.plan_at(budget, model)
            self.assertEqual(status, 0, err)
            plans.append(self.path(f"plan-{budget}.json"))
            with open(plans[-1], "w") as f:
                f.write(out)
        status, out, err = run_main("verify", *[a for p in plans for a in ("--plan", p)], "--strict", "--json")
        self.assertEqual(status, 0, err)
        runs = json.loads(out)["runs"]
        self.assertEqual(len(runs), len(plans) + 1)
        for run in runs:
            self.assertAlmostEqual(run["observed_peak_bytes"] / run["predicted_peak_bytes"], 1, delta=0.02,
                                   msg=run["plan"])
        for run in runs[1:]:
            self.assertTrue(run["within_budget"], run)
            self.assertLessEqual(run["observed_peak_bytes"], run["budget_bytes"])

    def test_plan_for_another_model_is_refused(self):
        self.plan_ops("--budget", "1GiB")
        status, _, err = run_main("verify", "--plan", self.path("plan.json"), "--model",
                                  "torch:transformer-encoder:d_model=32,nhead=4,layers=3")
        self.assertEqual(status, 2, err)
        self.assertIn("was planned for", err)
        plan = json.load(open(self.path("plan.json")))
        for block in plan["selective"]["blocks"]:
            block["checkpointed"] = True
            block["module"] = block["module"].replace("layers", "blocks")
        json.dump(plan, open(self.path("other.json"), "w"))
        with self.assertRaisesRegex(remat_torch.UsageError, "does not have: the plan was made for"):
            remat_torch.apply(build_model(ENCODER), self.path("other.json"))

    def test_plan_whose_kept_tensors_cannot_rebuild_the_rest_is_refused(self):
        plan = self.plan_ops("--budget", str(self.tightest_budget(self.plan_ops("--budget", "1GiB")["named"][1]["peak_bytes"])))
        block = next(b for b in plan["selective"]["blocks"] if b["checkpointed"])
        block["nodes"][-1]["keep"] = False
        json.dump(plan, open(self.path("broken.json"), "w"))
        status, _, err = run_main("apply", "--plan", self.path("broken.json"))
        self.assertOneLineError(status, err, "re-runs its output", "nothing could rebuild it")

    def test_cli_bad_inputs_are_one_line_exit_2(self):
        def plan(*options):
            r = subprocess.run([remat_cli(), "plan", *options], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            return r.stderr
        self.assertIn("below the least peak", plan("--model", self.path("ops.json"), "--granularity", "op",
                                                  "--time-limit", "1", "--budget", "1KiB"))
        self.assertIn("--time-limit must be", plan("--model", self.path("ops.json"), "--granularity", "op",
                                                   "--time-limit", "soon", "--budget", "1GiB"))
        self.assertIn("not at op level", plan("--model", self.block_model(), "--granularity", "op", "--budget", "1GiB"))
        self.assertIn("--samples", plan("--model", self.path("ops.json"), "--granularity", "op", "--frontier",
                                        "--samples", "many"))
        self.assertIn("--granularity must be block or op", plan("--n", "4", "--granularity", "ops", "--budget", "3"))

    def test_op_level_refuses_token_ids_in_one_line(self):
        out = self.path("ids.json")
        status, _, err = run_main("trace", "--granularity", "op", "--model", ENCODER, "--input", "2x8:int64:0..10",
                                  "-o", out)
        self.assertEqual(status, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("one floating input tensor", err)
        self.assertIn("2x8:int64:0..10", err)
        self.assertFalse(os.path.exists(out))

    def block_model(self):
        status, _, err = run_main("trace", "--model", ENCODER, "--input", SHAPE, "-o", self.path("blocks.json"))
        self.assertEqual(status, 0, err)
        return self.path("blocks.json")


if __name__ == "__main__":
    unittest.main()
