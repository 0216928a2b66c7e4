"""remat_torch trace: sizes a user can check by hand or against PyTorch's own
saved-tensor hooks, and files remat reads."""
import subprocess

import torch
from torch import nn

from helpers import MODELS, Workdir, remat_cli
from models import BATCH, BLOCKS, HIDDEN, WIDTH


class TraceTest(Workdir):
    def test_linear_tanh_chain_has_the_analytic_bytes(self):
        doc = self.trace(f"{MODELS}:linear_tanh", f"{BATCH}x{WIDTH}")
        nodes = doc["nodes"]
        self.assertEqual([n["name"] for n in nodes], ["input"] + [str(i) for i in range(BLOCKS)])
        self.assertEqual(nodes[0]["bytes"], BATCH * WIDTH * 4)
        for node in nodes[1:]:
            self.assertEqual(node["module"], node["name"])
            self.assertTrue(node["chained"])
            self.assertEqual(node["bytes"], BATCH * WIDTH * 4)          # the block's output
            self.assertEqual(node["saved_bytes"], BATCH * HIDDEN * 4)   # the tanh output, once
            self.assertEqual(node["flops"], 2 * 2 * BATCH * WIDTH * HIDDEN)
            self.assertGreater(node["forward_cost"], 0)
        self.assertNotIn("edges", doc)  # a chain
        self.assertEqual(doc["units"], {"bytes": "B", "cost": "us"})
        self.assertEqual(doc["trace"]["input"], [BATCH, WIDTH])
        self.assertIn("python3 -m remat_torch trace", doc["source"])

    def test_encoder_layer_saved_bytes_match_saved_tensors_hooks(self):
        d_model, heads, seq = 32, 4, 16
        spec = f"torch:transformer-encoder:d_model={d_model},nhead={heads},layers=2,dim_feedforward=64"
        doc = self.trace(spec, f"2x{seq}x{d_model}")
        traced = {n["name"]: n for n in doc["nodes"]}
        # The same layer on its own, counted here with the hooks directly.
        layer = nn.TransformerEncoderLayer(d_model, heads, 64, batch_first=True).train()
        weights = {p.storage().data_ptr() for p in layer.parameters()}
        x = torch.randn(2, seq, d_model)
        storages = {}

        def pack(t):
            storages[t.storage().data_ptr()] = t.storage().nbytes()
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = layer(x)
        own = {x.storage().data_ptr(), y.storage().data_ptr()} | weights
        expected = sum(size for key, size in storages.items() if key not in own)
        self.assertGreater(expected, 0)
        self.assertEqual(traced["layers.0"]["saved_bytes"], expected)
        self.assertEqual(traced["layers.1"]["saved_bytes"], expected)

    def test_pitfalls_in_place_views_dicts_count_each_storage_once(self):
        doc = self.trace(f"{MODELS}:pitfalls", f"{BATCH}x{WIDTH}")
        nodes = {n["name"]: n for n in doc["nodes"]}
        # ReLU(inplace=True) rewrites the Linear's output: one storage, one node.
        self.assertEqual(nodes["0+1"]["module"], ["0", "1"])
        self.assertEqual(nodes["0+1"]["bytes"], BATCH * HIDDEN * 4)
        # A dict output: both tensors.
        self.assertEqual(nodes["4"]["bytes"], 2 * BATCH * HIDDEN * 4)
        # Residual, as PyTorch 1.13 saves on the CPU: the Linear's output
        # (BatchNorm's input), the in-place ReLU's output, dropout's float
        # noise and its output (the multiply's input; the expanded scale is a
        # view of a parameter), BatchNorm's mean and inverse deviation. The
        # sum is the output (viewed): not saved again.
        activation = BATCH * HIDDEN * 4
        statistics = 2 * HIDDEN * 4
        self.assertEqual(nodes["2"]["saved_bytes"], 4 * activation + statistics)
        for name in ("3", "6"):
            self.assertEqual(nodes[name]["saved_bytes"], nodes["2"]["saved_bytes"])

    def test_block_patterns_choose_the_nodes(self):
        doc = self.trace("torchvision:resnet18", "2x3x32x32", "resnet.json", "--blocks", "layer3.*")
        names = [n["name"] for n in doc["nodes"]]
        self.assertIn("layer3.0", names)
        self.assertIn("layer3.1", names)
        self.assertIn("layer4", names)      # the rest is covered by the coarsest modules around the blocks
        self.assertNotIn("layer4.0", names)

    def test_a_long_skip_becomes_an_edge(self):
        doc = self.trace(f"{MODELS}:skipnet", f"{BATCH}x{WIDTH}")
        self.assertEqual([n["name"] for n in doc["nodes"]], ["input", "a", "b", "c", "d"])
        self.assertEqual(sorted(map(tuple, doc["edges"])),
                         [("a", "b"), ("a", "d"), ("b", "c"), ("c", "d"), ("input", "a")])
        self.assertFalse(doc["nodes"][4]["chained"])  # torch.cat runs between c and d

    def test_remat_reads_a_traced_file_and_plans_it(self):
        self.trace("torchvision:resnet18", "2x3x32x32", "resnet.json")
        simulate = subprocess.run([remat_cli(), "simulate", "--model", self.path("resnet.json"), "--strategy",
                                   "store-all,periodic"], capture_output=True, text=True, timeout=60)
        self.assertEqual(simulate.returncode, 0, simulate.stderr)
        self.assertIn("store-all", simulate.stdout)
        plan = self.plan("resnet.json", "plan.json", "--strategy", "periodic", "--every", "1")
        self.assertTrue(plan["apply"]["appliable"])
        names = [s["first"] for s in plan["apply"]["segments"]]
        self.assertIn("layer1.0", names)
        self.assertEqual(plan["trace"]["model"], "torchvision:resnet18")

    def test_the_median_resists_one_slow_step(self):
        # Block 1 sleeps 0.4 s in the second of five timed steps, and only there;
        # its cost is the median of the runs of all four identical blocks.
        from models import SlowOnce
        doc = self.trace(f"{MODELS}:slow_once", f"{BATCH}x{WIDTH}")
        timing = doc["trace"]["timing"]
        self.assertEqual((timing["steps"], timing["statistic"]), (5, "median"))
        median, fastest, slowest = timing["forward_ms"]["1"]
        self.assertGreaterEqual(slowest, 1000 * SlowOnce.SLOW_SECONDS)   # the slow step was timed...
        self.assertLess(median, 1000 * SlowOnce.SLOW_SECONDS / 4)          # ...and did not set the cost
        self.assertLessEqual(fastest, median)
        nodes = {n["name"]: n for n in doc["nodes"]}
        self.assertEqual(nodes["1"]["forward_cost"], round(1000 * median))  # whole microseconds
        # The four blocks compute the same thing: one cost, whatever each one's noise.
        self.assertEqual(timing["identical"], [["0", "1", "2", "3"]])
        self.assertEqual(len({(n["forward_cost"], n["backward_cost"]) for n in doc["nodes"][1:]}), 1)

    def test_flop_costs_give_the_same_plan_on_every_trace(self):
        first = self.trace(f"{MODELS}:linear_tanh", f"{BATCH}x{WIDTH}", "a.json", "--cost", "flops")
        second = self.trace(f"{MODELS}:linear_tanh", f"{BATCH}x{WIDTH}", "b.json", "--cost", "flops")
        self.assertEqual(first["units"]["cost"], "FLOP")
        for a, b in zip(first["nodes"][1:], second["nodes"][1:]):
            self.assertEqual(a["forward_cost"], a["flops"])
            self.assertEqual(a["backward_cost"], 2 * a["flops"])
            self.assertEqual((a["forward_cost"], a["backward_cost"]), (b["forward_cost"], b["backward_cost"]))
        store_all = self.plan("a.json", "store-all.plan", "--strategy", "store-all")
        budget = store_all["plan"]["peak_bytes"] * 3 // 4
        plans = [self.plan(name, f"{name}.plan", "--budget", f"{budget}B") for name in ("a.json", "b.json")]
        self.assertGreater(len(plans[0]["apply"]["segments"]), 0)
        self.assertEqual(plans[0]["apply"]["segments"], plans[1]["apply"]["segments"])
