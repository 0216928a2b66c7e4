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

from helpers import MODELS, ROOT, Workdir, remat_cli, run_main
from models import BATCH, SEQ

import remat_torch
from remat_torch.ops import run_op
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


def one_step(plan=None, spec=ENCODER, inputs=None):
    model = build_model(spec).train()
    batch = build_inputs(inputs or {"tensors": ["2x8x32"]}, torch.float32, "cpu")
    if plan is not None:
        remat_torch.apply(model, plan)
    preallocate_gradients(model)
    torch.manual_seed(3)
    calls = Calls()
    with calls:
        step(model, batch, spec)
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
        return self.plan("ops.json", "plan.json", "--granularity", "op", "--effort", "5e5", "--solver-nodes", "200", *options)

    def plan_at(self, budget, model="ops.json"):
        """remat plan --granularity op --budget BUDGET: (exit status, stdout, stderr)."""
        r = subprocess.run([remat_cli(), "plan", "--model", self.path(model), "--granularity", "op",
                            "--effort", "5e5", "--solver-nodes", "200", "--budget", str(budget), "--json"], capture_output=True, text=True)
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
        # PyTorch 2 runs a masked attention's softmax as _safe_softmax (rows all masked give 0, not NaN).
        softmax_op = "aten::_safe_softmax" if "aten::_safe_softmax" in kinds else "aten::_softmax"
        for kind in ("aten::bmm", softmax_op, "aten::native_layer_norm", "aten::addmm"):
            self.assertIn(kind, kinds)
        softmax = next(n for n in nodes if n["op"] == softmax_op)
        self.assertEqual(softmax["saves"], ["output"])  # what autograd keeps: its result
        norm = next(n for n in nodes if n["op"] == "aten::native_layer_norm")
        self.assertEqual(norm["saved_bytes"], 2 * 2 * 8 * 4)  # mean and rstd, fp32, per token

    def test_apply_reruns_exactly_the_planned_ops(self):
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--frontier", "--samples", "3", "--effort", "5e5", "--solver-nodes", "200", "--json"], capture_output=True, text=True)
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

    def test_bottlenecks_with_a_downsample_branch_plan_and_verify(self):
        """torchvision's Bottleneck adds its downsample branch's BatchNorm, made
        after bn3, into bn3's output in place; the file lists bn3's node after
        it. (Before, that edge went backwards and remat refused the file:
        ResNet-50 could not be planned at op level.) Store-all and a budget
        plan run in PyTorch at their prediction within 1 %."""
        status, _, err = run_main("trace", "--granularity", "op", "--model", f"{MODELS}:bottlenecks",
                                  "--blocks", "layer*.*", "--input", "2x3x32x32", "-o", self.path("bottlenecks.json"))
        self.assertEqual(status, 0, err)
        with open(self.path("bottlenecks.json")) as f:
            model = json.load(f)
        position = {n["name"]: i for i, n in enumerate(model["nodes"])}
        for source, target in model["edges"]:
            self.assertLess(position[source], position[target], (source, target))
        status, out, err = self.plan_at("1GiB", "bottlenecks.json")
        self.assertEqual(status, 0, err)
        store_all = json.loads(out)["store_all"]["peak_bytes"]
        plans = []
        for budget in (store_all, int(store_all * 0.95)):
            status, out, err = self.plan_at(budget, "bottlenecks.json")
            self.assertEqual(status, 0, err)
            plans.append(self.path(f"plan-{budget}.json"))
            with open(plans[-1], "w") as f:
                f.write(out)
        status, out, err = run_main("verify", *[a for p in plans for a in ("--plan", p)], "--json")
        self.assertEqual(status, 0, err)
        runs = json.loads(out)["runs"]
        self.assertTrue(runs[2]["recomputations"]["predicted"])
        for run in runs:
            self.assertEqual(run["recomputations"]["observed"], run["recomputations"]["predicted"], run["plan"])
            self.assertEqual(run["max_grad_diff"], 0.0, run["plan"])
            self.assertAlmostEqual(run["observed_peak_bytes"] / run["predicted_peak_bytes"], 1, delta=0.01,
                                   msg=run["plan"])

    def assertBudgetsHold(self, model):
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path(model), "--granularity", "op",
                                   "--frontier", "--samples", "6", "--effort", "5e5", "--solver-nodes", "200", "--json"],
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
                                                  "--effort", "5e5", "--solver-nodes", "200", "--budget", "1KiB"))
        self.assertIn("--time-limit must be", plan("--model", self.path("ops.json"), "--granularity", "op",
                                                   "--time-limit", "soon", "--budget", "1GiB"))
        self.assertIn("--effort must be a whole number of replayed ops", plan("--model", self.path("ops.json"),
                                                                          "--granularity", "op", "--effort", "soon",
                                                                          "--budget", "1GiB"))
        self.assertIn("not at op level", plan("--model", self.block_model(), "--granularity", "op", "--budget", "1GiB"))
        self.assertIn("--samples", plan("--model", self.path("ops.json"), "--granularity", "op", "--frontier",
                                        "--samples", "many"))
        self.assertIn("--granularity must be block or op", plan("--n", "4", "--granularity", "ops", "--budget", "3"))

    def test_inputs_a_model_does_not_take_are_one_line_exit_2(self):
        out = self.path("ids.json")
        status, _, err = run_main("trace", "--granularity", "op", "--model", ENCODER, "--input", "2x8:int64:0..10",
                                  "-o", out)
        self.assertOneLineError(status, err, "does not run on input 2x8 int64")
        status, _, err = run_main("trace", "--granularity", "op", "--model", f"{MODELS}:token_blocks",
                                  "--inputs", f"{MODELS}:inputs_unknown_key", "-o", out)
        self.assertOneLineError(status, err, "takes no argument 'token_type_ids'")
        self.assertFalse(os.path.exists(out))

    def test_a_block_that_runs_twice_is_refused_naming_why(self):
        out = self.path("shared.json")
        status, _, err = run_main("trace", "--granularity", "op", "--model", f"{MODELS}:shared_block",
                                  "--input", "4x16", "-o", out)
        self.assertOneLineError(status, err, "block blocks.0 runs 2 times in one forward pass",
                                "needs each block to run once")
        self.assertFalse(os.path.exists(out))

    def block_model(self):
        status, _, err = run_main("trace", "--model", ENCODER, "--input", SHAPE, "-o", self.path("blocks.json"))
        self.assertEqual(status, 0, err)
        return self.path("blocks.json")


EXAMPLES = os.path.join(ROOT, "python", "examples")
LM = f"{MODELS}:masked_token_lm"
LM_INPUTS = {"function": f"{MODELS}:masked_token_inputs"}


class LanguageModelOpLevelTest(Workdir):
    """Language models fed token ids, a padding mask and labels, with the
    loss inside: traced at op level, planned, applied and verified."""

    def test_mask_handed_to_every_block_and_loss_in_a_dict(self):
        # tests/python/models.py: MaskedTokenLM.
        status, _, err = run_main("trace", "--granularity", "op", "--model", LM, "--inputs",
                                  LM_INPUTS["function"], "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        model = json.load(open(self.path("ops.json")))
        nodes = {n["name"]: n for n in model["nodes"]}
        readers = collections.defaultdict(list)
        for source, target in model["edges"]:
            readers[target].append(source)
        # The input node is the three tensors, held all step: 8x12 int64 each.
        self.assertEqual(nodes["input"]["bytes"], 3 * 8 * 12 * 8)
        # The mask reaches every block, but an edge from the input only goes
        # to nodes that read nothing else (the embedding, each block's mask == 0).
        fed = [target for source, target in model["edges"] if source == "input"]
        self.assertTrue(all(readers[t] == ["input"] for t in fed), fed)
        self.assertEqual({nodes[t].get("module") for t in fed}, {None, "blocks.0", "blocks.1", "blocks.2"})
        # The mask multiplies each block's MLP output: that node reads it, yet
        # neither has an edge from the input nor counts it as saved.
        # (The block's last mul; its call index differs between PyTorch versions.)
        last_mul = {}
        for n in model["nodes"]:
            if n.get("op") == "aten::mul" and n.get("module", "").startswith("blocks."):
                last_mul[n["module"]] = n
        masked = list(last_mul.values())
        self.assertEqual(len(masked), 3)
        self.assertTrue(all("input" not in readers[n["name"]] and "saved_bytes" not in n for n in masked))
        # Differentiated from the model's own loss: the last node.
        self.assertEqual(model["trace"]["differentiated_from"], "loss")
        self.assertEqual(model["nodes"][-1]["op"], "aten::nll_loss_forward")
        self.assertEqual(model["nodes"][-1]["bytes"], 4)

        self.plan_apply_verify(LM, LM_INPUTS)

    def test_roberta_mask_made_once_and_read_by_every_layer(self):
        # python/examples/roberta.py: the padding mask turned into an additive
        # mask before the encoder (outside the blocks), read by every layer.
        spec, inputs = f"{EXAMPLES}/roberta.py:tiny", {"function": f"{EXAMPLES}/roberta.py:tiny_inputs"}
        status, _, err = run_main("trace", "--granularity", "op", "--model", spec, "--inputs", inputs["function"],
                                  "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        self.plan_apply_verify(spec, inputs)

    def test_a_mask_that_skips_a_block_is_planned_whole_and_verifies(self):
        # tests/python/models.py: AlternatingMaskLM, Gemma2's pattern of layers.
        spec = f"{MODELS}:alternating_mask_lm"
        status, _, err = run_main("trace", "--granularity", "op", "--model", spec, "--inputs",
                                  LM_INPUTS["function"], "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        plan = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                               "--solver-nodes", "200", "--budget", "1GiB"], capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(plan.returncode, 0, plan.stderr)
        self.assertIn("by nothing nearer, so the blocks are not searched one by one", plan.stdout)
        # Below every plan with the MILP off: one line, exit 2, the least found not called the least.
        refused = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                  "--solver-nodes", "0", "--budget", "1B"], capture_output=True, text=True, timeout=120)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertEqual(len(refused.stderr.strip().splitlines()), 1, refused.stderr)
        self.assertIn("is below the least peak of any op-level plan found", refused.stderr)
        self.assertIn("(not proven the least: ", refused.stderr)
        self.plan_apply_verify(spec, LM_INPUTS)

    def test_pytorch_run_of_language_models_within_one_percent(self):
        """PyTorch's run of a plan (app/cli/op_plan_command.cpp, pytorchRun;
        FLOP costs, so the same plans on every trace): gpt.py:tiny's tightest
        plan and roberta.py:tiny's mid-frontier plan, both with the LM head
        tied to the token embedding, within 1 % of what PyTorch holds and
        within their budgets. Both failed one way or the other before:
        holding each kept tensor to the end of its block's re-run predicted
        them 12.4 % and 9.4 % above PyTorch (1.13 and 2.15 alike); releasing
        it where the re-run reaches it, without the tied head's gradient in
        the re-runs and with the model's own locals in them, ran both over
        their budgets (by 2.7 % and 0.7 %)."""
        def plan_at(budget, model):
            return subprocess.run([remat_cli(), "plan", "--model", self.path(model), "--granularity", "op",
                                   "--effort", "5e5", "--solver-nodes", "200", "--budget", str(budget), "--json"],
                                  capture_output=True, text=True, timeout=120)

        for name, point in (("gpt", 0), ("roberta", 1)):
            with self.subTest(name):
                model = f"{name}.json"
                status, _, err = run_main("trace", "--granularity", "op", "--cost", "flops",
                                          "--model", f"{EXAMPLES}/{name}.py:tiny",
                                          "--inputs", f"{EXAMPLES}/{name}.py:tiny_inputs", "-o", self.path(model))
                self.assertEqual(status, 0, err)
                frontier = subprocess.run([remat_cli(), "plan", "--model", self.path(model), "--granularity", "op",
                                           "--frontier", "--samples", "3", "--effort", "5e5", "--solver-nodes", "200",
                                           "--json"], capture_output=True, text=True, timeout=120)
                self.assertEqual(frontier.returncode, 0, frontier.stderr)
                budget = json.loads(frontier.stdout)["curve"][point]["budget_bytes"]
                plan = plan_at(budget, model)
                if plan.returncode and "the tightest runs at" in plan.stderr:  # the least peak, refused: the budget it names
                    budget = int(plan.stderr.strip().rsplit("--budget ", 1)[1])
                    plan = plan_at(budget, model)
                self.assertEqual(plan.returncode, 0, plan.stderr)
                with open(self.path(f"plan-{name}.json"), "w") as f:
                    f.write(plan.stdout)
                status, out, err = run_main("verify", "--strict", "--json", "--plan", self.path(f"plan-{name}.json"))
                self.assertEqual(status, 0, err)
                run = json.loads(out)["runs"][1]
                self.assertEqual(run["max_grad_diff"], 0.0)
                self.assertLessEqual(run["observed_peak_bytes"], budget)
                self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.01,
                                (run["predicted_peak_bytes"], run["observed_peak_bytes"]))

    def test_token_ids_alone_differentiate_the_logits(self):
        # python/examples/gpt.py called without labels: no loss, so the step
        # starts from a random gradient of the logits, the file's last node.
        status, _, err = run_main("trace", "--granularity", "op", "--model", f"{EXAMPLES}/gpt.py:tiny",
                                  "--input", "4x16:int64:0..96", "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        model = json.load(open(self.path("ops.json")))
        self.assertEqual(model["trace"]["differentiated_from"], "output gradient")
        self.assertEqual(model["nodes"][0]["bytes"], 4 * 16 * 8)
        self.assertEqual(model["nodes"][-1]["op"], "aten::mm")  # the tied head
        self.assertEqual(model["nodes"][-1]["bytes"], 4 * 16 * 96 * 4)
        self.assertEqual(model["trace"]["inputs"], {"tensors": ["4x16:int64:0..96"]})

    def test_labels_shifted_in_place_plan_apply_and_verify(self):
        """tests/python/models.py: ShiftedLabelsLM builds its decoder's ids from
        the labels as BART and T5 do: new_zeros, a slice assigned, then
        `shifted.masked_fill_(shifted == -100, 0)`. The masked_fill_ reads the
        eq that reads the new_zeros it writes into: it is a node of its own,
        after both, and the embedding reads it. (Before, it joined new_zeros'
        node, whose edge from eq went backwards: remat refused the file, and
        BART and T5 given labels alone could not be planned at op level.)"""
        spec, inputs = f"{MODELS}:shifted_labels_lm", {"function": f"{MODELS}:shifted_labels_inputs"}
        status, _, err = run_main("trace", "--granularity", "op", "--model", spec, "--inputs", inputs["function"],
                                  "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        model = json.load(open(self.path("ops.json")))
        position = {n["name"]: i for i, n in enumerate(model["nodes"])}
        for source, target in model["edges"]:
            self.assertLess(position[source], position[target], (source, target))
        by_op = {n.get("op"): n["name"] for n in model["nodes"] if not n.get("module")}
        made, mask, fill = by_op["aten::new_zeros"], by_op["aten::eq"], by_op["aten::masked_fill_"]
        self.assertIn([made, mask], model["edges"])
        self.assertIn([made, fill], model["edges"])
        self.assertIn([mask, fill], model["edges"])
        self.assertEqual(model["nodes"][position[fill]]["bytes"], BATCH * SEQ * 8)  # the int64 ids it rewrote
        readers = [t for s, t in model["edges"] if s == fill]
        self.assertEqual([model["nodes"][position[t]].get("op") for t in readers], ["aten::embedding"])
        self.assertNotIn(made, [s for s, t in model["edges"] if t in readers])
        self.plan_apply_verify(spec, inputs)

    def plan_apply_verify(self, spec, inputs):
        """A budget plan from the middle of the frontier: apply re-runs what it
        planned (this test's own count), gradients bit for bit, and verify
        sees the same, at or below the budget."""
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--frontier", "--samples", "3", "--effort", "5e5", "--solver-nodes", "200", "--json"],
                                  capture_output=True, text=True, timeout=120)
        self.assertEqual(frontier.returncode, 0, frontier.stderr)
        budget = json.loads(frontier.stdout)["curve"][1]["budget_bytes"]
        plan = self.plan("ops.json", "plan.json", "--granularity", "op", "--effort", "5e5", "--solver-nodes", "200",
                         "--budget", str(budget))
        planned = plan["selective"]["recomputations"]
        self.assertTrue(planned)
        plain_calls, plain_grads = one_step(spec=spec, inputs=inputs)
        calls, grads = one_step(self.path("plan.json"), spec=spec, inputs=inputs)
        kinds = {n["op"] for b in plan["selective"]["blocks"] for n in b["nodes"]}
        self.assertEqual({k: calls[k] - plain_calls[k] for k in kinds if calls[k] != plain_calls[k]}, planned)
        self.assertEqual(len(grads), len(plain_grads))
        for g, r in zip(grads, plain_grads):
            self.assertTrue(torch.equal(g, r))

        status, out, err = run_main("verify", "--plan", self.path("plan.json"), "--json")
        self.assertEqual(status, 0, err)
        result = json.loads(out)
        self.assertEqual(result["inputs"], inputs)  # rebuilt from the plan's record
        run = result["runs"][1]
        self.assertEqual(run["recomputations"]["observed"], run["recomputations"]["predicted"])
        self.assertEqual(run["max_grad_diff"], 0.0)
        self.assertLessEqual(run["observed_peak_bytes"], budget)
        self.assertLess(run["observed_peak_bytes"], result["runs"][0]["observed_peak_bytes"])

if __name__ == "__main__":
    unittest.main()
