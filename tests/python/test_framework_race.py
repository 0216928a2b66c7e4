"""bench/framework_race.py on a tiny model (three blocks of Linear-Tanh-Linear
over an embedding): every kind of configuration that runs here is measured
(two compile budgets, two or more eager peers, two or more remat plans), each
point's numbers are the counter's, remat's plans hold their budgets, and what
does not run says why. Bad --model / --inputs: one line, exit 2."""
import importlib.util
import json
import os
import subprocess
import sys
import unittest

from helpers import MODELS, ROOT, Workdir, remat_cli

SCRIPT = os.path.join(ROOT, "bench", "framework_race.py")
TINY = ["--model", f"{MODELS}:token_blocks", "--inputs", f"{MODELS}:token_inputs"]


def race(*argv):
    env = dict(os.environ, REMAT=remat_cli())
    return subprocess.run([sys.executable, SCRIPT, "--quiet", *argv], capture_output=True, text=True, env=env,
                          timeout=300)


class FrameworkRaceTest(Workdir):
    @classmethod
    def setUpClass(cls):
        cls.done = race(*TINY, "--compile-budgets", "0.1,0.5", "--curve", "1", "--rounds", "1")

    def doc(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        return json.loads(self.done.stdout)

    def test_each_kind_measured_twice_or_more(self):
        doc = self.doc()
        import torch
        self.assertEqual(doc["torch"], torch.__version__)
        self.assertIn("LiveTensors", doc["counter"])
        whos = [p["who"] for p in doc["points"]]
        self.assertEqual(len(whos), len(set(whos)), whos)
        self.assertEqual(whos[0], "store-all")
        for kind in ("peer", "compile", "remat"):
            self.assertGreaterEqual(sum(p["kind"] == kind for p in doc["points"]), 2, (kind, whos))
        self.assertEqual({p["activation_memory_budget"] for p in doc["points"] if p["kind"] == "compile"}, {0.1, 0.5})
        self.assertEqual({p["granularity"] for p in doc["points"] if p["kind"] == "remat"}, {"op", "module"})

    def test_points_are_what_was_measured(self):
        doc = self.doc()
        points = {p["who"]: p for p in doc["points"]}
        store_all = points["store-all"]
        self.assertEqual(store_all["recompute_flops"], 0)
        for p in doc["points"]:
            self.assertIsInstance(p["observed_peak_bytes"], int)
            self.assertGreater(p["observed_peak_bytes"], 0, p["who"])
            self.assertGreater(p["step_seconds"], 0, p["who"])
            self.assertGreaterEqual(p["recompute_flops"], 0, p["who"])
        # Per-block checkpointing re-runs every block's forward: its re-run FLOPs are
        # the blocks' matmuls (3 blocks x 2 Linear), and it holds less than store-all.
        per_layer = points["per-layer (torch.utils.checkpoint per block)"]
        self.assertGreater(per_layer["recompute_flops"], 0)
        self.assertLess(per_layer["observed_peak_bytes"], store_all["observed_peak_bytes"])

    def test_remat_holds_each_budget_and_budgets_are_the_peers_peaks(self):
        doc = self.doc()
        peaks = {p["observed_peak_bytes"] for p in doc["points"] if p["kind"] == "peer" and p["who"] != "store-all"}
        remat = [p for p in doc["points"] if p["kind"] == "remat"]
        for p in remat:
            self.assertLessEqual(p["observed_peak_bytes"], p["budget_bytes"], p["who"])
            self.assertLessEqual(p["predicted_peak_bytes"], p["budget_bytes"], p["who"])
        self.assertTrue(peaks & {p["budget_bytes"] for p in remat}, "no remat plan at a peer's measured peak")
        for entry in doc["not_run"]:
            self.assertTrue(entry["who"] and len(entry["reason"]) > 20, entry)
        self.assertIn("torch.compile (inductor)", [e["who"] for e in doc["not_run"]])

    def test_auto_sac_runs_or_says_why(self):
        """PyTorch's auto-SAC at each eager peer's peak where PuLP and pwlf are
        installed (scripts/torch2-python installs them): its plans are
        measured like the others, the MILPs' facts beside each; else one
        not_run entry says what is missing."""
        doc = self.doc()
        points = [p for p in doc["points"] if p["kind"] == "auto-sac"]
        reasons = [e["reason"] for e in doc["not_run"] if e["who"].startswith("PyTorch auto-SAC")]
        if importlib.util.find_spec("pulp") is None or importlib.util.find_spec("pwlf") is None:
            self.assertEqual(points, [])
            self.assertEqual(len(reasons), 1, doc["not_run"])
            return
        self.assertEqual(reasons, [])
        peers = {p["observed_peak_bytes"] for p in doc["points"] if p["kind"] == "peer" and p["who"] != "store-all"}
        self.assertGreaterEqual(len(points), 2, [p["who"] for p in doc["points"]])
        for p in points:
            self.assertIn(p["budget_bytes"], peers)
            self.assertIn("NVIDIA H100", p["runtime_estimate"])
            self.assertIsInstance(p["auto_sac_discard"], dict)
        # At per-layer's peak it checkpoints some block and holds less than store-all.
        store_all = doc["points"][0]["observed_peak_bytes"]
        tightest = min(points, key=lambda p: p["budget_bytes"])
        self.assertTrue(tightest["auto_sac_discard"], tightest)
        self.assertLess(tightest["observed_peak_bytes"], store_all)

    def test_png_written(self):
        done = race(*TINY, "--compile-budgets", "0.5,0.9", "--curve", "0", "--rounds", "1", "--no-auto-sac",
                    "--json", self.path("race.json"), "--png", self.path("race.png"))
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.path("race.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(self.path("race.json")) as f:
            self.assertTrue(json.load(f)["points"])

    def test_bad_model_or_inputs_one_line_exit_2(self):
        for argv in (["--model", "nowhere.py:model", "--inputs", f"{MODELS}:token_inputs"],
                     ["--model", f"{MODELS}:no_such_function", "--inputs", f"{MODELS}:token_inputs"],
                     ["--model", "torchvision", "--inputs", f"{MODELS}:token_inputs"],
                     ["--model", f"{MODELS}:token_blocks", "--inputs", f"{MODELS}:inputs_that_raise"],
                     ["--model", f"{MODELS}:token_blocks", "--inputs", f"{MODELS}:positional_inputs"]):
            with self.subTest(argv=argv):
                done = race(*argv)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    unittest.main()
