"""The package reads in one direction: no two modules of remat_torch import
each other, directly or around a loop, counting the imports inside
functions too (a lazy import hides a circle, it does not break it)."""
import ast
import os
import unittest

from helpers import ROOT

PACKAGE = os.path.join(ROOT, "python", "remat_torch")


def imports_of(path):
    """The package modules one file imports, anywhere in it."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:  # from . import calls
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("remat_torch."):
                found.add(node.module.split(".")[1])
    return found


def package_graph():
    modules = {name[:-3] for name in os.listdir(PACKAGE) if name.endswith(".py")}
    return {m: imports_of(os.path.join(PACKAGE, m + ".py")) & modules - {m} for m in modules}


def find_cycle(graph):
    """One import loop as a list of modules, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                loop = visit(nxt, path + [nxt])
                if loop:
                    return loop
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            loop = visit(start, [start])
            if loop:
                return loop
    return None


class StructureTest(unittest.TestCase):
    def test_no_import_circles(self):
        graph = package_graph()
        self.assertIn("op_verify", graph)
        self.assertIsNone(find_cycle(graph), "an import loop")

    def test_the_cycle_finder_finds_one(self):
        # The check above could not fail if this did not.
        self.assertEqual(find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"])
        self.assertIsNone(find_cycle({"a": {"b"}, "b": set()}))

    def test_version_shims_live_in_compat(self):
        """What differs between PyTorch versions is asked in compat.py only:
        no other module probes torch for a feature (hasattr / getattr on torch)."""
        probes = []
        for name in sorted(os.listdir(PACKAGE)):
            if name.endswith(".py") and name != "compat.py":
                with open(os.path.join(PACKAGE, name)) as f:
                    text = f.read()
                probes += [name for probe in ("hasattr(torch", "getattr(torch") if probe in text]
        self.assertEqual(probes, [])


if __name__ == "__main__":
    unittest.main()
