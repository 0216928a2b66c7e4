"""Bad input: one line on stderr naming the value, exit status 2."""
import json
import os
import subprocess
import sys

from helpers import MODELS, ROOT, Workdir, run_main


class ErrorsTest(Workdir):
    def test_bad_spec(self):
        for spec, fragment in [("torchvision:resnet5000", "not a torchvision classification model"),
                               ("keras:resnet50", "expected torchvision:NAME"),
                               ("torch:transformer-encoder:d_model=10,nhead=3,layers=1", "not divisible"),
                               (f"{MODELS}:no_such_function", "defines no callable"),
                               (f"{MODELS}:not_a_module", "not a torch.nn.Module"),
                               ("/nonexistent/model.py:build", "no such file")]:
            with self.subTest(spec=spec):
                status, _, err = run_main("trace", "--model", spec, "--input", "2x3x32x32", "-o", self.path("m.json"))
                self.assertOneLineError(status, err, fragment)
                self.assertFalse(os.path.exists(self.path("m.json")))

    def test_bad_shape(self):
        for shape, fragment in [("32x3xfoo", "expected a shape"), ("0x3x8x8", "at least 1"), ("", "expected a shape"),
                                ("2x4x32x32", "does not run on input 2x4x32x32")]:
            with self.subTest(shape=shape):
                status, _, err = run_main("trace", "--model", "torchvision:resnet18", "--input", shape,
                                          "-o", self.path("m.json"))
                self.assertOneLineError(status, err, fragment)

    def test_bad_inputs(self):
        tokens = f"{MODELS}:token_blocks"
        for model, argv, fragment in [
                (tokens, ["--input", "8x12:int64"], "'8x12:int64': an int64 input needs a range"),
                (tokens, ["--input", "8x12:int65:0..5"], "dtype 'int65' is not one of"),
                (tokens, ["--input", "8x12:int64:5..2"], "range '5..2' is empty"),
                (tokens, ["--input", "8x12:int64:a..b"], "range 'a..b' is not LOW..HIGH"),
                (tokens, ["--input", "8x12:int64:0.5..3"], "takes whole numbers"),
                (tokens, ["--input", "8xq:int64:0..5"], "'8xq': expected a shape"),
                (tokens, ["--inputs", f"{MODELS}:inputs_that_raise"], "inputs_that_raise() raised KeyError"),
                (tokens, ["--inputs", f"{MODELS}:inputs_none"], "inputs_none() returned NoneType"),
                (tokens, ["--inputs", f"{MODELS}:no_such_inputs"], "defines no callable 'no_such_inputs'"),
                (tokens, ["--inputs", f"{MODELS}:inputs_unknown_key"], "takes no argument 'token_type_ids'"),
                (tokens, ["--inputs", "inputs.txt"], "expected path/to/file.py:callable"),
                (f"{MODELS}:token_blocks_unreduced_loss", ["--inputs", f"{MODELS}:token_inputs"],
                 "the model's loss is 96 float32, not a floating scalar"),
                (tokens, ["--input", "8x12:int64:0..50", "--inputs", f"{MODELS}:token_inputs"], "not both"),
                (tokens, [], "no input"),
                (tokens, ["--input", "8x12:int64:0..50", "--cost", "watts"], "--cost 'watts'"),
                (tokens, ["--input", "8x12:int64:0..50", "--cost", "flops"], "embed"),
                (tokens, ["--input", "8x12:int64:0..50", "--timing-steps", "0"], "--timing-steps 0")]:
            with self.subTest(argv=argv, model=model):
                status, _, err = run_main("trace", "--model", model, *argv, "-o", self.path("m.json"))
                self.assertOneLineError(status, err, fragment)
                self.assertFalse(os.path.exists(self.path("m.json")))
        self.assertFalse(os.listdir(self.dir))  # not even a temporary file

    def test_missing_torch(self):
        blocker = self.path("blocker")
        os.mkdir(blocker)
        with open(os.path.join(blocker, "torch.py"), "w") as f:
            f.write("raise ImportError('No module named torch')\n")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([blocker, os.path.join(ROOT, "python")]))
        result = subprocess.run([sys.executable, "-m", "remat_torch", "trace", "--model", "torchvision:resnet18",
                                 "--input", "2x3x32x32", "-o", self.path("m.json")],
                                capture_output=True, text=True, env=env, timeout=60)
        self.assertOneLineError(result.returncode, result.stderr, "PyTorch is not installed", "python3-torch")

    def test_plan_for_another_model(self):
        self.trace("torchvision:resnet18", "2x3x32x32")
        self.plan("model.json", "plan.json", "--strategy", "periodic", "--every", "1")
        for argv, fragment in [(["--model", "torchvision:resnet34"], "planned for torchvision:resnet18"),
                               (["--input", "4x3x32x32"], "planned for input 2x3x32x32")]:
            with self.subTest(argv=argv):
                status, _, err = run_main("verify", "--plan", self.path("plan.json"), *argv)
                self.assertOneLineError(status, err, fragment)
        from models import linear_tanh
        import remat_torch
        with self.assertRaisesRegex(remat_torch.UsageError, "which this model does not have"):
            remat_torch.apply(linear_tanh(), self.path("plan.json"))

    def test_plans_that_cannot_run(self):
        self.trace(f"{MODELS}:linear_tanh", "8x16")
        revolve = self.plan("model.json", "revolve.json", "--strategy", "revolve", "--slots", "1")
        self.assertFalse(revolve["apply"]["appliable"])
        self.assertTrue(revolve["apply"]["needs_nesting"])
        status, _, err = run_main("verify", "--plan", self.path("revolve.json"))
        self.assertOneLineError(status, err, "cannot run in PyTorch", "nested checkpoints")
        with open(self.path("junk.json"), "w") as f:
            json.dump({"nodes": []}, f)
        status, _, err = run_main("apply", "--plan", self.path("junk.json"))
        self.assertOneLineError(status, err, "not the output of remat plan")
        status, _, err = run_main("verify", "--plan", self.path("missing.json"))
        self.assertOneLineError(status, err, "cannot read the plan")
