"""Hugging Face transformers models as shipped (python/examples/hf_*.py, tiny
configs, no download): traced, planned, applied and verified at module and
op level; apply cooperates with transformers' own checkpointing; bad input
is one line. Skipped where this Python has no transformers (Debian's 1.13)."""
import json
import os
import subprocess
import sys
import unittest

from helpers import MODELS, ROOT, Workdir, remat_cli, run_main

try:
    import transformers  # noqa: F401
except ImportError:
    transformers = None

EXAMPLES = os.path.join(ROOT, "python", "examples")
FAMILIES = ("gpt2", "roberta", "llama", "qwen2")


def example(family):
    path = os.path.join(EXAMPLES, f"hf_{family}.py")
    return f"{path}:tiny", f"{path}:tiny_inputs"


@unittest.skipIf(transformers is None, "transformers is not installed here (scripts/torch2-python has it)")
class HuggingFaceTest(Workdir):
    def trace(self, family, *extra, name="model.json"):
        spec, inputs = example(family)
        status, _, err = run_main("trace", "--model", spec, "--inputs", inputs, "--timing-steps", "1",
                                  "-o", self.path(name), *extra)
        self.assertEqual(status, 0, err)
        with open(self.path(name)) as f:
            return json.load(f)

    def test_every_family_module_level_within_one_percent(self):
        """Store-all and two budget plans per family: forward evaluations as
        planned, gradients bit for bit, every budget held, the observed peak
        within 1 % of the prediction. The loss, computed inside forward, is
        a node of its own that keeps none of the logits (before, the tiny
        GPT-2's store-all was predicted 3.1 % above PyTorch and a budget plan
        4.7 %; docs/pytorch.md, Limits)."""
        for family in FAMILIES:
            with self.subTest(family=family):
                model = self.trace(family)
                self.assertEqual(model["trace"]["differentiated_from"], "loss")  # the output dataclass's .loss
                self.assertEqual((model["nodes"][-1]["name"], model["nodes"][-1]["saves"]), ("loss", []))
                store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")
                least = self.plan("model.json", "least.json", "--strategy", "recompute-all")
                top, bottom = store_all["plan"]["peak_bytes"], least["plan"]["peak_bytes"]
                plans = ["store-all.json"]
                for fraction in (0.5, 0.2):
                    budget = int(bottom + (top - bottom) * fraction)
                    planned = self.plan("model.json", f"budget-{fraction}.json", "--budget", f"{budget}B")
                    self.assertTrue(planned["apply"]["segments"])
                    plans.append(f"budget-{fraction}.json")
                runs = self.verify_strict(*plans)
                for run, ratio in runs:
                    self.assertLess(abs(ratio - 1), 0.01, (family, run["plan"], ratio))
                    self.assertIn(run["within_budget"], (None, True), (family, run["plan"]))
                self.assertLess(runs[-1][0]["observed_peak_bytes"], runs[0][0]["observed_peak_bytes"])

    def test_op_level_reruns_as_planned(self):
        for family in ("gpt2", "llama"):
            with self.subTest(family=family):
                self.trace(family, "--granularity", "op", name="ops.json")
                frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                           "--frontier", "--samples", "3", "--effort", "5e5", "--solver-nodes", "200", "--json"],
                                          capture_output=True, text=True, timeout=120)
                self.assertEqual(frontier.returncode, 0, frontier.stderr)
                budget = json.loads(frontier.stdout)["curve"][1]["budget_bytes"]
                self.plan("ops.json", "plan.json", "--granularity", "op", "--effort", "5e5", "--solver-nodes", "200", "--budget", str(budget))
                status, out, err = run_main("verify", "--strict", "--json", "--plan", self.path("plan.json"))
                self.assertEqual(status, 0, err)
                run = json.loads(out)["runs"][1]
                self.assertTrue(run["recomputations"]["predicted"])
                self.assertEqual(run["recomputations"]["observed"], run["recomputations"]["predicted"])
                self.assertEqual(run["max_grad_diff"], 0.0)
                self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.01)

    def test_op_level_tied_head_within_one_percent(self):
        """GPT-2 (4 layers, d 256, vocabulary 4096) ties its LM head to its
        token embedding: autograd's engine holds the head's gradient of that
        4 MiB weight until the embedding's is added, through the whole
        backward. The tightest op-level plan PyTorch's run fits in (FLOP
        costs: the same plan on every trace) is within 1 % of its prediction
        and its budget (before the trace carried that gradient: 28,985,353 B
        predicted, 32,659,464 B held, over its budget)."""
        status, _, err = run_main("trace", "--granularity", "op", "--cost", "flops", "--model",
                                  f"{MODELS}:tied_gpt2", "--inputs", f"{MODELS}:tied_gpt2_inputs",
                                  "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        # The frontier's least peak, or the least budget remat plan names when it refuses that one.
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--frontier", "--samples", "2", "--json"],
                                  capture_output=True, text=True, timeout=120)
        self.assertEqual(frontier.returncode, 0, frontier.stderr)
        tightest = int(json.loads(frontier.stdout)["curve"][0]["budget_bytes"])
        refused = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                  "--budget", str(tightest)], capture_output=True, text=True, timeout=120)
        if refused.returncode:
            self.assertIn("the tightest runs at", refused.stderr)
            tightest = int(refused.stderr.split("--budget ")[-1])
        self.plan("ops.json", "plan.json", "--granularity", "op", "--budget", str(tightest))
        status, out, err = run_main("verify", "--strict", "--json", "--plan", self.path("plan.json"))
        self.assertEqual(status, 0, err)
        run = json.loads(out)["runs"][1]
        self.assertTrue(run["within_budget"])
        self.assertEqual(run["max_grad_diff"], 0.0)
        self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.01,
                        (run["predicted_peak_bytes"], run["observed_peak_bytes"]))

    def test_op_level_wide_head_backward_within_one_percent(self):
        """Llama's untied LM head (vocabulary 4096, d 128): its backward makes
        the step's peak, the weight's 2 MiB gradient beside the logits'. The
        trace measured that window from a start that still counted the
        gradient flowing into the loss's log_softmax, which the engine drops
        right after, and so missed 512 KiB of the weight's gradient: store-all
        and every budget plan were 524,287 B above their prediction (16 to 22 %,
        over their budgets); now within 1 % and within budget."""
        status, _, err = run_main("trace", "--granularity", "op", "--model", f"{MODELS}:wide_head_llama",
                                  "--inputs", f"{MODELS}:wide_head_llama_inputs", "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--effort", "5e5", "--solver-nodes", "200", "--frontier", "--samples", "4", "--json"],
                                  capture_output=True, text=True, timeout=120)
        self.assertEqual(frontier.returncode, 0, frontier.stderr)
        plans = []
        for point in json.loads(frontier.stdout)["curve"][1:]:
            name = f"plan-{point['budget_bytes']}.json"
            self.plan("ops.json", name, "--granularity", "op", "--effort", "5e5", "--solver-nodes", "200", "--budget", str(point["budget_bytes"]))
            plans.append(self.path(name))
        status, out, err = run_main("verify", "--strict", "--json", *[a for p in plans for a in ("--plan", p)])
        self.assertEqual(status, 0, err)
        for run in json.loads(out)["runs"]:
            self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.01,
                            (run["plan"], run["predicted_peak_bytes"], run["observed_peak_bytes"]))

    def test_op_level_llama_checkpoint_arguments_to_the_byte(self):
        """Llama hands every layer its position_ids (128 B), which only the
        rotary embedding before the layers reads; a checkpointed layer's
        checkpoint keeps them until the layer's backward is over, through the
        LM head's backward. Counted by no node, every plan but store-all was
        127 B above its prediction and the tightest over its budget. Now the
        frontier's plans (FLOP costs: the same plans on every trace) are
        within their budgets and, but for the two tightest, within 8 B of
        their prediction. Those two stay over-predicted (0.5 %): the plan's
        schedule re-runs the last layer before the final RMSNorm's backward,
        PyTorch after (docs/pytorch.md, "Op level")."""
        spec, inputs = example("llama")
        status, _, err = run_main("trace", "--granularity", "op", "--cost", "flops", "--model", spec,
                                  "--inputs", inputs, "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--frontier", "--samples", "8", "--json"], capture_output=True, text=True, timeout=300)
        self.assertEqual(frontier.returncode, 0, frontier.stderr)
        plans = []
        for point in json.loads(frontier.stdout)["curve"]:
            budget = point["budget_bytes"]
            plan = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--budget", str(budget), "--json"], capture_output=True, text=True, timeout=120)
            if plan.returncode and "the tightest runs at" in plan.stderr:
                budget = int(plan.stderr.strip().rsplit("--budget ", 1)[1])
                plan = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                       "--budget", str(budget), "--json"], capture_output=True, text=True, timeout=120)
            self.assertEqual(plan.returncode, 0, plan.stderr)
            plans.append(self.path(f"plan-{budget}.json"))
            with open(plans[-1], "w") as f:
                f.write(plan.stdout)
        status, out, err = run_main("verify", "--strict", "--json", *[a for p in plans for a in ("--plan", p)])
        self.assertEqual(status, 0, err)
        runs = json.loads(out)["runs"][1:]
        self.assertEqual(len(runs), 8)
        for index, run in enumerate(runs):
            self.assertTrue(run["within_budget"], (run["plan"], run["observed_peak_bytes"]))
            self.assertEqual(run["max_grad_diff"], 0.0)
            missed = run["observed_peak_bytes"] - run["predicted_peak_bytes"]
            if index < 2:
                self.assertLess(abs(missed) / run["predicted_peak_bytes"], 0.01, run["plan"])
            else:
                self.assertLessEqual(abs(missed), 8, run["plan"])
        with open(self.path("ops.json")) as f:
            held = {a["node"] for a in json.load(f)["trace"].get("checkpoint_arguments", [])}
        self.assertIn("#2:add", held)  # position_ids

    def test_op_level_encoder_decoder_planned_whole(self):
        """T5 (bench/models/hf_t5.py): the encoder's output, made between
        the encoder's and the decoder's blocks, is read by every decoder
        layer, which op-level planning refused; the op-level MILP now plans
        the model whole, and PyTorch's run of a mid-frontier plan is within
        its budget, its gradients exact, as predicted within 1 %."""
        path = os.path.join(ROOT, "bench", "models", "hf_t5.py")
        status, _, err = run_main("trace", "--granularity", "op", "--cost", "flops", "--model", f"{path}:tiny",
                                  "--inputs", f"{path}:tiny_inputs", "-o", self.path("ops.json"))
        self.assertEqual(status, 0, err)
        frontier = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                                   "--frontier", "--samples", "3", "--solver-nodes", "200", "--json"],
                                  capture_output=True, text=True, timeout=300)
        self.assertEqual(frontier.returncode, 0, frontier.stderr)
        result = json.loads(frontier.stdout)
        self.assertIn("not searched one by one", result["solver"])
        budget = result["curve"][1]["budget_bytes"]
        plan = subprocess.run([remat_cli(), "plan", "--model", self.path("ops.json"), "--granularity", "op",
                               "--solver-nodes", "200", "--budget", str(budget), "--json"],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(plan.returncode, 0, plan.stderr)
        with open(self.path("plan.json"), "w") as f:
            f.write(plan.stdout)
        status, out, err = run_main("verify", "--strict", "--json", "--plan", self.path("plan.json"))
        self.assertEqual(status, 0, err)
        run = json.loads(out)["runs"][1]
        self.assertTrue(run["within_budget"], run["observed_peak_bytes"])
        self.assertEqual(run["max_grad_diff"], 0.0)
        self.assertEqual(run["recomputations"]["observed"], run["recomputations"]["predicted"])
        self.assertLess(abs(run["observed_peak_bytes"] - run["predicted_peak_bytes"]) / run["predicted_peak_bytes"],
                        0.01)

    def test_apply_takes_over_transformers_checkpointing(self):
        """With model.gradient_checkpointing_enable() on, a plan's layer runs
        under one wrapper: twice per step if the plan checkpoints it (not
        three times), once if the plan keeps it; remove() gives the flags back."""
        import torch
        import remat_torch
        from remat_torch.hf import checkpointing_layers
        from remat_torch.steps import step
        self.trace("gpt2")
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")["plan"]["peak_bytes"]
        least = self.plan("model.json", "least.json", "--strategy", "recompute-all")["plan"]["peak_bytes"]
        plan = self.plan("model.json", "plan.json", "--budget", f"{(store_all + least) // 2}B")
        wrapped = {m for s in plan["apply"]["segments"] for m in s["modules"]}
        sys.path.insert(0, EXAMPLES)
        try:
            import hf_gpt2
        finally:
            sys.path.remove(EXAMPLES)
        model = hf_gpt2.tiny().train()
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        layers = [n for n, m in model.named_modules() if m in checkpointing_layers(model) and n.startswith("transformer.h.")]
        self.assertTrue(layers and all(m.gradient_checkpointing for m in checkpointing_layers(model)))
        remat_torch.apply(model, self.path("plan.json"))
        self.assertFalse(any(m.gradient_checkpointing for m in checkpointing_layers(model)))
        runs = {name: 0 for name in layers}
        named = dict(model.named_modules())
        for name in layers:
            named[name].register_forward_pre_hook(lambda m, a, name=name: runs.__setitem__(name, runs[name] + 1))
        batch = ((), remat_torch.inputs_of(self.path("plan.json"))[1])
        step(model, batch, "hf_gpt2")
        self.assertEqual(runs, {name: 2 if name in wrapped else 1 for name in layers})
        remat_torch.remove(model)
        self.assertTrue(all(m.gradient_checkpointing for m in checkpointing_layers(model)))
        self.assertIsInstance(torch.tensor(0), torch.Tensor)

    def test_hf_spec_and_its_bad_input(self):
        status, _, err = run_main("trace", "--model", "hf:gpt2:n_layer=2,n_embd=32,n_head=4,vocab_size=64",
                                  "--input", "2x8:int64:0..64", "--timing-steps", "1", "-o", self.path("spec.json"))
        self.assertEqual(status, 0, err)
        with open(self.path("spec.json")) as f:
            self.assertEqual(json.load(f)["trace"]["differentiated_from"], "output gradient")  # no labels, no loss
        status, _, err = run_main("trace", "--model", "hf:gpt2:n_layers=2", "--input", "2x8:int64:0..64",
                                  "-o", self.path("bad.json"))
        self.assertOneLineError(status, err, "unknown config key 'n_layers'", "n_layer")
        status, _, err = run_main("trace", "--model", "hf:gpt5:n_layer=2", "--input", "2x8:int64:0..64",
                                  "-o", self.path("bad.json"))
        self.assertOneLineError(status, err, "unknown Hugging Face family 'gpt5'")
        self.assertFalse(os.path.exists(self.path("bad.json")))


class WithoutTransformersTest(Workdir):
    def test_transformers_missing_is_one_line(self):
        """As on Debian's Python: an hf: model where transformers cannot be imported."""
        saved = sys.modules.get("transformers")
        sys.modules["transformers"] = None  # makes `import transformers` raise ImportError
        try:
            status, _, err = run_main("trace", "--model", "hf:gpt2:n_layer=2", "--input", "2x8:int64:0..64",
                                      "-o", self.path("model.json"))
        finally:
            if saved is None:
                del sys.modules["transformers"]
            else:
                sys.modules["transformers"] = saved
        self.assertOneLineError(status, err, "transformers is not importable", "scripts/torch2-python")
        self.assertFalse(os.path.exists(self.path("model.json")))


if __name__ == "__main__":
    unittest.main()
