"""CTest's entry to the remat_torch tests: exit 77 (skipped) where this
Python has no PyTorch, else the named unittest module's result."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import torch  # noqa: F401
except ImportError:
    print(f"skipped: no PyTorch for {sys.executable} (scripts/deps.sh installs python3-torch)")
    sys.exit(77)
torch.set_num_threads(1)  # small models; two test processes share two cores
suite = unittest.defaultTestLoader.loadTestsFromName(sys.argv[1])
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
