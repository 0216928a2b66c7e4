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
