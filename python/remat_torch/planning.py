"""Running the `remat plan` command from Python: the planner is remat's C++
binary, found through $REMAT, then PATH, then the build tree of the clone
this package sits in (build/dev, build/release)."""
import json
import os
import shutil
import subprocess
import tempfile

from .errors import UsageError

_HERE = os.path.dirname(os.path.abspath(__file__))
_BUILD_TREES = ("build/dev", "build/release", "build/asan")


def find_remat():
    """The path of the remat binary, or a UsageError naming where it looked."""
    given = os.environ.get("REMAT")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        raise UsageError(f"$REMAT is {given!r}, which is not an executable file")
    on_path = shutil.which("remat")
    if on_path:
        return on_path
    root = os.path.dirname(os.path.dirname(_HERE))  # python/remat_torch -> the clone
    for tree in _BUILD_TREES:
        candidate = os.path.join(root, tree, "app", "cli", "remat")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError("no remat binary: set $REMAT, put remat on PATH, or build it "
                     "(cmake --preset dev && cmake --build --preset dev --target remat)")


def budget_text(budget):
    """remat's --budget: bytes as an int, or text with a unit ("8GiB")."""
    if isinstance(budget, bool) or not isinstance(budget, (int, str)):
        raise UsageError(f"budget {budget!r}: expected bytes (an int) or text such as \"8GiB\"")
    if isinstance(budget, int):
        if budget < 1:
            raise UsageError(f"budget {budget}: expected a positive number of bytes")
        return f"{budget}B"
    if budget.strip().isdigit():  # remat reads a bare number as a count of nodes; here it means bytes
        return f"{budget.strip()}B"
    return budget.strip()


def plan(model_file_doc, budget, granularity="module", options=()):
    """`remat plan --model FILE --budget B --json` on a traced model (a dict;
    budget None: OPTIONS name the strategy):
    the plan as a dict. remat's refusal (a budget below the least peak, ...)
    becomes a UsageError with its one line."""
    from .tracing import model_file_text
    remat = find_remat()
    with tempfile.TemporaryDirectory(prefix="remat-auto-") as directory:
        path = os.path.join(directory, "model.json")
        with open(path, "w") as f:
            f.write(model_file_text(model_file_doc))
        command = [remat, "plan", "--model", path, "--json"]
        if budget is not None:
            command += ["--budget", budget_text(budget)]
        if granularity == "op":
            command += ["--granularity", "op"]
        command += list(options)
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines()
        raise UsageError(lines[-1] if lines else f"remat plan failed with status {result.returncode}")
    return json.loads(result.stdout)
