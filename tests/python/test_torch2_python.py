"""scripts/torch2-python: where the PyTorch 2 venv lives, that a test never
creates it, and that a venv which cannot be made says why in one line,
exits 2 and leaves nothing that later looks complete."""
import os
import subprocess
import tempfile
import unittest

from helpers import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "torch2-python")


def run(*args, cache, **env):
    environment = {k: v for k, v in os.environ.items() if k != "REMAT_TORCH2_NO_CREATE"}
    environment.update(REMAT_VENV_CACHE=cache, **env)
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=environment, timeout=240)


class Torch2PythonTest(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.cache = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def venv(self):
        return run("--venv-path", cache=self.cache).stdout.strip()

    def test_the_venv_lives_in_the_cache_named_by_its_pins(self):
        path = self.venv()
        self.assertEqual(os.path.dirname(path), self.cache)
        self.assertRegex(os.path.basename(path), r"^venv-torch2\.[0-9.]+-tf[0-9.]+$")

    def test_a_half_made_venv_is_not_taken_for_complete(self):
        """A venv directory without its marker (an interrupted creation) is
        missing: under CTest (REMAT_TORCH2_NO_CREATE) that is skipped, 77."""
        os.makedirs(os.path.join(self.venv(), "bin"))
        os.symlink("/usr/bin/python3", os.path.join(self.venv(), "bin", "python"))
        result = run("-c", "print('ran')", cache=self.cache, REMAT_TORCH2_NO_CREATE="1")
        self.assertEqual(result.returncode, 77, result.stderr)
        self.assertIn("scripts/torch2-python --ensure", result.stdout)
        self.assertNotIn("ran", result.stdout)

    def fake_base_venv(self, pip_status=0):
        """A venv whose marker holds the base pins only (made before the
        extras were pinned); its python logs each call, its pip exits
        `pip_status`."""
        bin_dir = os.path.join(self.venv(), "bin")
        os.makedirs(bin_dir)
        log = os.path.join(self.cache, "calls.log")
        with open(os.path.join(bin_dir, "python"), "w") as f:
            f.write(f'#!/bin/sh\necho "$*" >> {log}\n'
                    f'[ "$1 $2" = "-m pip" ] && exit {pip_status}\nexit 0\n')
        os.chmod(os.path.join(bin_dir, "python"), 0o755)
        with open(SCRIPT) as f:
            text = f.read()
        pins = {k: text.split(f"{k}_version=")[1].split()[0] for k in ("torch", "torchvision", "transformers")}
        with open(os.path.join(self.venv(), ".remat-complete"), "w") as f:
            f.write(f"torch=={pins['torch']} torchvision=={pins['torchvision']} "
                    f"transformers=={pins['transformers']}")
        return log

    def test_extras_are_added_to_a_base_venv_once_without_a_rebuild(self):
        """Under CTest too: pip installs the pinned extras (pulp, pwlf, scipy)
        into the venv, a second marker then names them, and the next run
        installs nothing."""
        log = self.fake_base_venv()
        for _ in range(2):
            result = run("-c", "print('ran')", cache=self.cache, REMAT_TORCH2_NO_CREATE="1")
            self.assertEqual(result.returncode, 0, result.stderr)
        with open(log) as f:
            calls = f.read().splitlines()
        installs = [c for c in calls if c.startswith("-m pip install")]
        self.assertEqual(len(installs), 1, calls)
        self.assertRegex(installs[0], r"pulp==[0-9.]+ pwlf==[0-9.]+ scipy==[0-9.]+$")
        self.assertEqual(calls.count("-c print('ran')"), 2, calls)
        # The base marker is left as it was: a clone whose script predates the
        # extras still takes the venv for complete (and never rebuilds it).
        with open(os.path.join(self.venv(), ".remat-complete")) as f:
            self.assertRegex(f.read(), r"^torch==\S+ torchvision==\S+ transformers==\S+$")
        with open(os.path.join(self.venv(), ".remat-extras")) as f:
            self.assertRegex(f.read(), r"^pulp==\S+ pwlf==\S+ scipy==\S+$")

    def test_extras_that_cannot_be_added_leave_the_base_venv_usable_under_ctest(self):
        log = self.fake_base_venv(pip_status=1)
        result = run("-c", "print('ran')", cache=self.cache, REMAT_TORCH2_NO_CREATE="1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("cannot add pulp", result.stderr)
        with open(log) as f:
            self.assertIn("-c print('ran')", f.read().splitlines())
        result = run("-c", "print('ran')", cache=self.cache)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 2, result.stderr)

    def test_no_network_is_one_line_exit_2_and_nothing_left(self):
        """PyPI unreachable (an index on a closed local port): one line naming
        the network, exit 2, and no venv directory left behind."""
        result = run("--ensure", cache=self.cache, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_RETRIES="0",
                     PIP_TIMEOUT="2", PIP_NO_CACHE_DIR="1")
        self.assertEqual(result.returncode, 2, result.stderr)
        lines = [line for line in result.stderr.splitlines() if "cannot create" in line]
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("network", lines[0])
        self.assertFalse(os.path.exists(self.venv()))


if __name__ == "__main__":
    unittest.main()
