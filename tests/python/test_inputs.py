"""Any inputs and a loss inside: token ids, several positional inputs, a dict
of keyword arguments, a model returning its loss; trace, verify and
remat_torch.inputs_of build the same batch; the budget column of verify."""
import json
import os
import subprocess

import torch

from helpers import MODELS, ROOT, Workdir, remat_cli, run_main

import remat_torch
from remat_torch.inputs import build_inputs, parse_tensor, recorded_inputs
from remat_torch.steps import LOSS, OUTPUT_GRADIENT, differentiated_from

GPT = os.path.join(ROOT, "python", "examples", "gpt.py")
ROBERTA = os.path.join(ROOT, "python", "examples", "roberta.py")


class InputsTest(Workdir):
    def trace_with(self, spec, *input_args, name="model.json"):
        status, _, err = run_main("trace", "--model", spec, *input_args, "--timing-steps", "1", "-o", self.path(name))
        self.assertEqual(status, 0, err)
        with open(self.path(name)) as f:
            return json.load(f)

    def verify(self, *plans, strict=False):
        argv = ["verify", "--json"] + [a for p in plans for a in ("--plan", self.path(p))]
        status, out, err = run_main(*argv, *(["--strict"] if strict else []))
        return status, (json.loads(out) if out.strip().startswith("{") else out), err

    def test_tensor_specs_parse_and_build_reproducibly(self):
        self.assertEqual(parse_tensor("8x512:int64:0..50257"), {"shape": [8, 512], "dtype": "int64", "range": [0, 50257]})
        self.assertEqual(parse_tensor("2x3"), {"shape": [2, 3], "dtype": None, "range": None})
        record = recorded_inputs(["64x8:int64:3..7", "64x8:bool", "64x8:float32:-2..-1", "64x8"])
        (ids, mask, uniform, normal), kwargs = build_inputs(record, torch.float64, torch.device("cpu"))
        self.assertEqual(kwargs, {})
        self.assertEqual(ids.dtype, torch.int64)
        self.assertEqual((ids.min().item(), ids.max().item()), (3, 6))  # HIGH is excluded
        self.assertEqual(mask.dtype, torch.bool)
        self.assertTrue(mask.any() and not mask.all())
        self.assertEqual(uniform.dtype, torch.float32)  # its own dtype, not the model's
        self.assertTrue(((uniform >= -2) & (uniform < -1)).all())
        self.assertEqual(normal.dtype, torch.float64)   # no dtype given: the model's
        self.assertFalse(any(t.requires_grad for t in (ids, mask, uniform, normal)))
        again, _ = build_inputs(record, torch.float64, torch.device("cpu"))
        self.assertTrue(all(torch.equal(a, b) for a, b in zip(again, (ids, mask, uniform, normal))))

    def test_token_ids_trace_plan_and_verify(self):
        # GPT fed token ids only: no labels, so logits out and a random gradient of them.
        doc = self.trace_with(f"{GPT}:tiny", "--input", "4x16:int64:0..96")
        self.assertEqual(doc["trace"]["inputs"], {"tensors": ["4x16:int64:0..96"]})
        self.assertEqual(doc["trace"]["differentiated_from"], OUTPUT_GRADIENT)
        self.assertEqual(doc["nodes"][0]["bytes"], 4 * 16 * 8)  # int64 ids, no gradient
        self.assertEqual([n["name"] for n in doc["nodes"]][:3], ["input", "embeddings", "h.0"])
        self.plan("model.json", "per-block.json", "--strategy", "periodic", "--every", "1")
        status, result, err = self.verify("per-block.json")
        self.assertEqual(status, 0, err)
        for run in result["runs"]:
            self.assertEqual(run["forward_evaluations"]["observed"], run["forward_evaluations"]["predicted"])
            self.assertEqual(run["max_grad_diff"], 0.0)
            self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.02, run["plan"])

    def test_dict_inputs_with_a_loss_inside_hold_their_budget(self):
        # Seed 002's RoBERTa: input_ids, attention_mask (padding), labels -> {"loss", "logits"}.
        doc = self.trace_with(f"{ROBERTA}:tiny", "--inputs", f"{ROBERTA}:tiny_inputs")
        self.assertEqual(doc["trace"]["inputs"], {"function": f"{ROBERTA}:tiny_inputs"})
        self.assertEqual(doc["trace"]["differentiated_from"], LOSS)
        self.assertIn("own loss", doc["source"])
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")
        per_block = self.plan("model.json", "per-block.json", "--strategy", "periodic", "--every", "1")
        budget = (store_all["plan"]["peak_bytes"] + per_block["plan"]["peak_bytes"]) // 2
        planned = self.plan("model.json", "budget.json", "--budget", f"{budget}B")
        # The tightest budget remat claims for that plan: its own predicted peak.
        tight = self.plan("model.json", "tight.json", "--budget", f"{planned['apply']['predicted_peak_bytes']}B")
        self.assertLessEqual(tight["apply"]["predicted_peak_bytes"], tight["budget"]["bytes"])
        status, result, err = self.verify("store-all.json", "per-block.json", "budget.json", "tight.json", strict=True)
        self.assertEqual(status, 0, err)
        runs = result["runs"]
        self.assertEqual([r["within_budget"] for r in runs], [None, None, None, True, True])
        for run in runs:
            self.assertEqual(run["forward_evaluations"]["observed"], run["forward_evaluations"]["predicted"])
            self.assertEqual(run["max_grad_diff"], 0.0, run["plan"])
            self.assertLess(abs(run["observed_peak_bytes"] / run["predicted_peak_bytes"] - 1), 0.02, run["plan"])
            if run["budget_bytes"] is not None:
                self.assertLessEqual(run["observed_peak_bytes"], run["budget_bytes"], run["plan"])
        # The same inputs in a script: remat_torch.inputs_of rebuilds them from the plan.
        args, kwargs = remat_torch.inputs_of(self.path("budget.json"))
        self.assertEqual(args, ())
        self.assertEqual(sorted(kwargs), ["attention_mask", "input_ids", "labels"])
        self.assertTrue((kwargs["attention_mask"] == 0).any())

    def test_a_plan_over_its_budget_fails_strict(self):
        self.trace_with(f"{MODELS}:token_blocks", "--inputs", f"{MODELS}:token_inputs")
        planned = self.plan("model.json", "budget.json", "--strategy", "periodic", "--every", "1")
        # A budget below what the plan needs: verify must say so, not trust the plan.
        planned["budget"] = {"bytes": planned["apply"]["predicted_peak_bytes"] // 2}
        with open(self.path("budget.json"), "w") as f:
            json.dump(planned, f)
        status, result, err = self.verify("budget.json", strict=True)
        self.assertEqual(status, 1, err)
        self.assertIn("over budget", err)
        self.assertFalse(result["runs"][1]["within_budget"])
        status, out, _ = run_main("verify", "--plan", self.path("budget.json"))
        self.assertEqual(status, 0)  # without --strict: reported, not failed
        self.assertIn("NO (", out)
        self.assertIn("within budget", out.splitlines()[1])

    def test_a_mask_fed_to_every_block_keeps_every_budget(self):
        # The input reaches every block, but PyTorch never makes its gradient:
        # no edge from it beyond its first consumer, so per-block checkpointing
        # holds one block's internals, not all of them.
        doc = self.trace_with(f"{MODELS}:mask_every_block", "--inputs", f"{MODELS}:mask_inputs")
        self.assertEqual([e for e in doc.get("edges", []) if e[0] == "input" and e[1] != "embed"], [])
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")
        least = store_all["plan"]["peak_bytes"]
        # Every budget from store-all's peak down: a plan PyTorch runs within it, or exit 2 in one line.
        plans = []
        for k in range(8):
            budget = least - k * least // 10
            r = subprocess.run([remat_cli(), "plan", "--model", self.path("model.json"), "--json", "--budget",
                                f"{budget}B"], capture_output=True, text=True, timeout=120)
            if r.returncode == 2:
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                continue
            self.assertEqual(r.returncode, 0, r.stderr)
            planned = json.loads(r.stdout)
            if not planned["apply"]["appliable"]:  # nested checkpoints: said, not run
                continue
            self.assertLessEqual(planned["apply"]["predicted_peak_bytes"], budget)
            plans.append(f"budget-{k}.json")
            with open(self.path(plans[-1]), "w") as f:
                f.write(r.stdout)
        self.assertGreater(len(plans), 2)
        status, result, err = self.verify(*plans, strict=True)
        self.assertEqual(status, 0, err)
        self.assertEqual([r["within_budget"] for r in result["runs"][1:]], [True] * len(plans))
        for run in result["runs"]:
            self.assertEqual(run["forward_evaluations"]["observed"], run["forward_evaluations"]["predicted"])

    def test_positional_inputs_and_a_scalar_loss(self):
        doc = self.trace_with(f"{MODELS}:scalar_loss", "--inputs", f"{MODELS}:positional_inputs")
        self.assertEqual(doc["trace"]["differentiated_from"], LOSS)
        self.assertEqual(doc["nodes"][0]["bytes"], 2 * 8 * 16 * 4)  # both inputs
        doc = self.trace_with(f"{MODELS}:scalar_loss", "--input", "8x16", "--input", "8x16", name="two.json")
        self.assertEqual(doc["trace"]["inputs"], {"tensors": ["8x16", "8x16"]})

    def test_which_output_is_differentiated(self):
        logits = torch.randn(2, 3, requires_grad=True)
        loss = logits.sum()
        self.assertEqual(differentiated_from(loss, "m"), LOSS)
        self.assertEqual(differentiated_from((loss, logits), "m"), LOSS)
        self.assertEqual(differentiated_from({"loss": loss, "logits": logits}, "m"), LOSS)
        self.assertEqual(differentiated_from({"loss": None, "logits": logits}, "m"), OUTPUT_GRADIENT)
        self.assertEqual(differentiated_from(logits, "m"), OUTPUT_GRADIENT)
        self.assertEqual(differentiated_from((logits, loss), "m"), OUTPUT_GRADIENT)  # a loss comes first or by name
        import sys
        sys.path.insert(0, os.path.dirname(GPT))
        from gpt import GPTOutput
        self.assertEqual(differentiated_from(GPTOutput(loss=loss, logits=logits), "m"), LOSS)
