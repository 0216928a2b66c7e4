"""remat_torch apply and verify: PyTorch runs exactly remat's schedule (forward
evaluations per node), gradients equal the plain model's, and the peak it
holds is remat's prediction."""
import json
import subprocess

import torch
from torch import nn

from helpers import MODELS, Workdir, remat_cli, run_main

import remat_torch


class ApplyVerifyTest(Workdir):
    def verify_three_plans(self, spec, shape, tolerance):
        self.trace(spec, shape)
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")
        per_block = self.plan("model.json", "per-block.json", "--strategy", "periodic", "--every", "1")
        self.assertEqual(store_all["apply"]["segments"], [])
        self.assertGreater(len(per_block["apply"]["segments"]), 1)
        # Halfway between the two peaks: a budget plan that checkpoints some blocks, not all.
        budget = (store_all["plan"]["peak_bytes"] + per_block["plan"]["peak_bytes"]) // 2
        planned = self.plan("model.json", "budget.json", "--budget", f"{budget}B")
        self.assertGreater(len(planned["apply"]["segments"]), 0)
        self.assertLess(planned["apply"]["predicted_peak_bytes"], store_all["plan"]["peak_bytes"])
        status, out, err = run_main("verify", "--plan", self.path("store-all.json"), "--plan",
                                    self.path("per-block.json"), "--plan", self.path("budget.json"), "--json")
        self.assertEqual(status, 0, err)
        runs = json.loads(out)["runs"]
        self.assertEqual(len(runs), 4)  # the plain model, then each plan
        for run in runs:
            evaluations = run["forward_evaluations"]
            self.assertEqual(evaluations["observed"], evaluations["predicted"], run["plan"])
            self.assertEqual(run["max_grad_diff"], 0.0, run["plan"])
            ratio = run["observed_peak_bytes"] / run["predicted_peak_bytes"]
            self.assertLess(abs(ratio - 1), tolerance, run["plan"])
        self.assertGreater(sum(runs[2]["forward_evaluations"]["observed"].values()),
                           sum(runs[0]["forward_evaluations"]["observed"].values()))
        self.assertLess(runs[2]["observed_peak_bytes"], runs[0]["observed_peak_bytes"])
        return runs

    def test_resnet(self):
        self.verify_three_plans("torchvision:resnet18", "2x3x64x64", 0.10)

    def test_transformer_encoder_with_dropout(self):
        self.verify_three_plans("torch:transformer-encoder:d_model=64,nhead=4,layers=4,dim_feedforward=128",
                                "4x64x64", 0.10)

    def test_pitfalls(self):
        self.verify_three_plans(f"{MODELS}:pitfalls", "8x16", 0.10)

    def test_autocast_bf16_counts_what_mixed_precision_holds(self):
        """Traced and verified under torch.autocast(bf16): saved tensors at
        the dtype autocast gives them, and the weights' bf16 copies, which
        autocast caches for the whole forward pass even in a checkpointed
        layer, counted as held (without them, per-layer checkpointing was
        observed 44 % above its prediction)."""
        spec = "torch:transformer-encoder:d_model=32,nhead=4,layers=3,dim_feedforward=64"
        fp32 = self.trace(spec, "2x8x32", "fp32.json")
        mixed = self.trace(spec, "2x8x32", "model.json", "--autocast", "bf16")
        self.assertEqual(mixed["trace"]["autocast"], "bf16")
        self.assertIn("bf16 copies", mixed["nodes"][0]["comment"])
        layers = [n for n in mixed["nodes"] if n["name"].startswith("layers.")]
        layers32 = [n for n in fp32["nodes"] if n["name"].startswith("layers.")]
        self.assertLess(sum(n["saved_bytes"] for n in layers), sum(n["saved_bytes"] for n in layers32))
        self.plan("model.json", "store-all.json", "--strategy", "store-all")
        self.plan("model.json", "per-block.json", "--strategy", "periodic", "--every", "1")
        status, out, err = run_main("verify", "--plan", self.path("store-all.json"), "--plan",
                                    self.path("per-block.json"), "--json")
        self.assertEqual(status, 0, err)
        result = json.loads(out)
        self.assertEqual(result["autocast"], "bf16")
        for run in result["runs"]:
            evaluations = run["forward_evaluations"]
            self.assertEqual(evaluations["observed"], evaluations["predicted"], run["plan"])
            self.assertEqual(run["max_grad_diff"], 0.0, run["plan"])
            self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.02, run["plan"])
        status, _, err = run_main("trace", "--granularity", "op", "--autocast", "bf16", "--model", spec,
                                  "--input", "2x8x32", "-o", self.path("ops.json"))
        self.assertOneLineError(status, err, "--autocast at op level is not supported yet")

    def test_a_llama_style_decoder_written_here(self):
        """A Llama-style decoder not from transformers (models.py:llama_style,
        rotary cos and sin made once and handed to every layer, loss inside):
        the rotary node, which needs no gradient, feeds its first reader only,
        so that a budget plan does not keep two checkpointed layers' internals
        at once; verified at module level on both PyTorch versions."""
        status, _, err = run_main("trace", "--model", f"{MODELS}:llama_style", "--inputs",
                                  f"{MODELS}:llama_style_inputs", "-o", self.path("model.json"))
        self.assertEqual(status, 0, err)
        with open(self.path("model.json")) as f:
            model = json.load(f)
        rotary = next(n for n in model["nodes"] if n["name"] == "rotary")
        self.assertEqual(rotary["grad_bytes"], 1)
        self.assertEqual([e for e in model["edges"] if e[0] == "rotary"], [["rotary", "layers.0"]])
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")["plan"]["peak_bytes"]
        least = self.plan("model.json", "least.json", "--strategy", "recompute-all")["plan"]["peak_bytes"]
        self.plan("model.json", "budget.json", "--budget", f"{(store_all + least) // 2}B")
        runs = self.verify_strict("store-all.json", "budget.json")
        for run, ratio in runs:
            # Within 1 % on 1.13 (+0.003 % on the budget plan), 6.8 % below it on PyTorch 2.15 (budget plan).
            self.assertLessEqual(ratio, 1.01, run["plan"])
            self.assertGreater(ratio, 0.9, run["plan"])
        self.assertLess(runs[-1][0]["observed_peak_bytes"], runs[0][0]["observed_peak_bytes"])

    def test_a_graph_with_a_long_skip(self):
        self.trace(f"{MODELS}:skipnet", "64x16")
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")
        smallest = self.plan("model.json", "auto.json", "--strategy", "recompute-all")
        # Halfway, every plan PyTorch can run peaks above the budget there (the
        # segments keep their inputs): refused in one line, not handed over.
        budget = (store_all["plan"]["peak_bytes"] + smallest["plan"]["peak_bytes"]) // 2
        refused = subprocess.run([remat_cli(), "plan", "--model", self.path("model.json"), "--json", "--budget",
                                  f"{budget}B"], capture_output=True, text=True, timeout=120)
        self.assertEqual(refused.returncode, 2, refused.stdout[:200])
        self.assertIn("no plan of the budget planner runs in PyTorch within it", refused.stderr)
        planned = self.plan("model.json", "budget.json", "--strategy", "checkpoints", "--checkpoints", "3")
        self.assertTrue(planned["apply"]["appliable"], planned["apply"].get("reason"))
        self.assertGreater(planned["plan"]["recomputations"], 0)
        status, out, err = run_main("verify", "--plan", self.path("budget.json"), "--json")
        self.assertEqual(status, 0, err)
        for run in json.loads(out)["runs"]:
            evaluations = run["forward_evaluations"]
            self.assertEqual(evaluations["observed"], evaluations["predicted"], run["plan"])
            self.assertEqual(run["max_grad_diff"], 0.0)
            self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.10, run["plan"])

    def test_apply_keeps_modules_and_hooks_and_removes_cleanly(self):
        self.trace(f"{MODELS}:linear_tanh", "8x16")
        self.plan("model.json", "plan.json", "--strategy", "periodic", "--every", "2")
        from models import linear_tanh
        model = linear_tanh()
        blocks = list(model)
        calls = []
        blocks[0].register_forward_hook(lambda m, i, o: calls.append("0"))
        keys = list(model.state_dict())
        segments = remat_torch.apply(model, self.path("plan.json"))
        self.assertEqual(segments[0], ["0", "1"])  # one checkpoint around blocks 0 and 1
        self.assertEqual(list(model), blocks)
        self.assertEqual(list(model.state_dict()), keys)
        self.assertIsInstance(model[0], nn.Sequential)
        model(torch.randn(8, 16)).sum().backward()
        self.assertEqual(calls, ["0", "0"])  # the user's hook fired in the forward and in the re-run
        remat_torch.remove(model)
        self.assertIs(type(model[0]), nn.Sequential)

    def test_apply_print_shows_the_wrapping(self):
        self.trace(f"{MODELS}:linear_tanh", "8x16")
        self.plan("model.json", "plan.json", "--strategy", "periodic", "--every", "2")
        status, out, err = run_main("apply", "--plan", self.path("plan.json"), "--print")
        self.assertEqual(status, 0, err)
        self.assertIn("checkpoint(0 -> 1, use_reentrant=False, preserve_rng_state=True)", out)
