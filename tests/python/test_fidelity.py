"""Predicted against observed peaks where they used to part (issue 31): a
causal LM whose loss is computed inside `forward` right after its head, and
a torchvision RegNet whose budget plan checkpoints its stem and first block
together. Each within 1 % of remat's prediction, every budget held; the
observed peaks are LiveTensors', not a sum of what the plan asked for."""
import json

import torch

from helpers import MODELS, Workdir, run_main


class FidelityTest(Workdir):
    def check(self, *plans):
        runs = self.verify_strict(*plans)
        for run, ratio in runs:
            self.assertLess(abs(ratio - 1), 0.01, (run["plan"], run["predicted_peak_bytes"],
                                                    run["observed_peak_bytes"]))
            if run["budget_bytes"] is not None:
                self.assertTrue(run["within_budget"], (run["plan"], run["budget_bytes"], run["observed_peak_bytes"]))
        return runs

    def test_a_causal_lm_with_its_loss_inside_forward(self):
        """The loss is a node of its own that keeps none of the logits: PyTorch
        frees them when the step lets go of the output, and the loss's
        log-softmax at the end of the loss's own backward (store-all was
        predicted 4.0 % above PyTorch on this model when the head held both)."""
        status, _, err = run_main("trace", "--model", f"{MODELS}:causal_lm", "--inputs", f"{MODELS}:causal_lm_inputs",
                                  "--timing-steps", "1", "-o", self.path("model.json"))
        self.assertEqual(status, 0, err)
        with open(self.path("model.json")) as f:
            model = json.load(f)
        self.assertEqual(model["trace"]["differentiated_from"], "loss")
        loss, head = model["nodes"][-1], model["nodes"][-2]
        self.assertEqual((loss["name"], loss.get("module"), loss["saves"]), ("loss", None, []))
        self.assertEqual(head["name"], "head")
        self.assertGreaterEqual(loss["saved_bytes"], head["bytes"] * 15 // 16)  # the log-softmax of 15 of 16 positions
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")["plan"]["peak_bytes"]
        least = self.plan("model.json", "least.json", "--strategy", "recompute-all")["plan"]["peak_bytes"]
        plans = ["store-all.json"]
        for fraction in (0.5, 0.2):
            planned = self.plan("model.json", f"budget-{fraction}.json", "--budget",
                                f"{int(least + (store_all - least) * fraction)}B")
            self.assertTrue(planned["apply"]["segments"])
            plans.append(f"budget-{fraction}.json")
        runs = self.check(*plans)
        self.assertLess(runs[-1][0]["observed_peak_bytes"], runs[0][0]["observed_peak_bytes"])

    def test_regnet_stem_and_first_block_under_one_checkpoint(self):
        """torchvision's regnet_y_400mf, 8x3x128x128: the plan checkpoints the
        stem and block1 as one segment, and the stem's output is the input of
        the trunk, a Sequential, whose argument tuple would keep it alive to
        the end of block4, where PyTorch peaks (63,738,432 B observed for a
        61,175,008 B prediction before apply handed the trunk a stand-in).
        Costs are the trace's FLOPs so that the plan is the same on every
        machine."""
        self.trace("torchvision:regnet_y_400mf", "8x3x128x128")
        with open(self.path("model.json")) as f:
            model = json.load(f)
        for node in model["nodes"][1:]:
            node["forward_cost"] = node.get("flops", 1)
            node["backward_cost"] = 2 * node["forward_cost"]
        model["units"]["cost"] = "FLOP"
        with open(self.path("model.json"), "w") as f:
            json.dump(model, f)
        store_all = self.plan("model.json", "store-all.json", "--strategy", "store-all")["plan"]["peak_bytes"]
        least = self.plan("model.json", "least.json", "--strategy", "recompute-all")["plan"]["peak_bytes"]
        planned = self.plan("model.json", "plan.json", "--budget", f"{int(least + (store_all - least) * 0.3)}B")
        self.assertEqual(len(planned["apply"]["segments"]), 1)
        segment = planned["apply"]["segments"][0]
        self.assertEqual(segment["modules"], ["stem", "trunk_output.block1"])
        self.assertEqual(segment["internal_outputs"], ["stem"])
        self.check("store-all.json", "plan.json")

    def test_the_stand_in_refuses_to_be_computed_with(self):
        """What apply hands the model's code for a segment's inner output has
        its shape and dtype, and any computation with it is an error naming
        the module, not a result from garbage."""
        from remat_torch.applying import _stand_in
        real = torch.randn(2, 3, requires_grad=True) * 2
        stand_in = _stand_in(real, "stem")
        self.assertEqual((stand_in.shape, stand_in.dtype, stand_in.requires_grad, stand_in.dim()),
                         (real.shape, real.dtype, True, 2))
        with torch._C.DisableTorchFunction():
            storage = stand_in.untyped_storage() if hasattr(stand_in, "untyped_storage") else stand_in.storage()
            self.assertEqual(storage.nbytes(), 4)
        with self.assertRaisesRegex(RuntimeError, "output of stem"):
            stand_in + 1
