"""The CPU race's peer (bench/torch_threads.py through bench/torch_reference.py): at two cores PyTorch runs in
each split of them between its own threads and its BLAS's, each split really runs with the counts it names, and
the peer of each step is the fastest split."""
import json
import os
import subprocess
import sys
import unittest

from helpers import ROOT, remat_cli

SCRIPT = os.path.join(ROOT, "bench", "torch_reference.py")
TINY = ["--device", "cpu", "--n", "4", "--width", "32", "--batch", "8", "--every", "2", "--rounds", "1",
        "--repeat", "1"]


def race(*argv):
    return subprocess.run([sys.executable, SCRIPT, "--remat", remat_cli(), *TINY, *argv], capture_output=True,
                          text=True, check=False)


class BenchRaceTest(unittest.TestCase):
    def test_every_split_runs_as_named_and_the_fastest_is_the_peer(self):
        done = race("--threads", "2", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        doc = json.loads(done.stdout)
        self.assertEqual([(s["torch_threads"], s["blas_threads"]) for s in doc["splits"]], [(2, 1), (1, 2), (2, 2)])
        for split in doc["splits"]:
            self.assertEqual(split["torch_threads_seen"], split["torch_threads"])
            if split["blas"]["openblas"]:  # OpenBLAS's own count, read from the library
                self.assertEqual(split["blas"]["openblas"]["threads"], split["blas_threads"])
        for label in ("store_all", "checkpoints"):
            entry = doc[label]
            self.assertEqual(len(entry["every_split"]), 3)
            fastest = min(entry["every_split"], key=lambda s: s["torch_seconds"])
            self.assertEqual(entry["peer"]["name"], fastest["name"])
            self.assertEqual(entry["torch_seconds"], fastest["torch_seconds"])

    def test_one_thread_is_one_split(self):
        done = race("--threads", "1", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        doc = json.loads(done.stdout)
        self.assertNotIn("splits", doc)
        self.assertEqual((doc["torch_threads"], doc["blas_threads"], doc["torch_threads_seen"]), (1, 1, 1))

    def test_bad_split_is_refused_naming_it(self):
        for argv, fragment in [(["--threads", "2", "--split", "1,3"], "uses more than --threads 2"),
                               (["--threads", "2", "--split", "2"], "--split takes TORCH,BLAS"),
                               (["--threads", "2", "--split", "0,1"], "must be >= 1")]:
            with self.subTest(argv=argv):
                done = race(*argv)
                self.assertEqual(done.returncode, 2)
                self.assertIn(fragment, done.stderr)
                self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    unittest.main()
