"""Shared by the remat_torch tests: the remat CLI, traced files, plans."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
MODELS = os.path.join(ROOT, "tests", "python", "models.py")

from remat_torch.__main__ import main  # noqa: E402


def remat_cli():
    path = os.environ.get("REMAT_CLI", os.path.join(ROOT, "build", "dev", "app", "cli", "remat"))
    if not os.path.exists(path):
        raise unittest.SkipTest(f"no remat command at {path} (set REMAT_CLI)")
    return path


def run_main(*argv):
    """python3 -m remat_torch ARGV in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as e:
            status = e.code
    return status, out.getvalue(), err.getvalue()


class Workdir(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def trace(self, spec, shape, name="model.json", *extra):
        status, _, err = run_main("trace", "--model", spec, "--input", shape, "-o", self.path(name), *extra)
        self.assertEqual(status, 0, err)
        with open(self.path(name)) as f:
            return json.load(f)

    def plan(self, model_name, plan_name, *options):
        """remat plan --model MODEL --json OPTIONS, written to PLAN."""
        result = subprocess.run([remat_cli(), "plan", "--model", self.path(model_name), "--json", *options],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.path(plan_name), "w") as f:
            f.write(result.stdout)
        return json.loads(result.stdout)

    def verify_strict(self, *plan_names):
        """verify --strict --json on the plans: the runs, each checked to run
        as planned (forward evaluations as remat's schedule, gradients bit for
        bit) and every budget held. Returns (run, observed / predicted peak) pairs."""
        status, out, err = run_main("verify", "--strict", "--json",
                                    *[a for name in plan_names for a in ("--plan", self.path(name))])
        self.assertEqual(status, 0, err)
        checked = []
        for run in json.loads(out)["runs"]:
            evaluations = run["forward_evaluations"]
            self.assertEqual(evaluations["observed"], evaluations["predicted"], run["plan"])
            self.assertEqual(run["max_grad_diff"], 0.0, run["plan"])
            checked.append((run, run["observed_peak_bytes"] / run["predicted_peak_bytes"]))
        return checked

    def assertOneLineError(self, status, err, *fragments):
        self.assertEqual(status, 2, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("remat_torch: "), lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])
