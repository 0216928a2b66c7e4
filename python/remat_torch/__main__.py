"""python3 -m remat_torch trace | apply | verify (docs/pytorch.md).

Bad input (a SPEC, a shape, a plan for another model, PyTorch missing) is one
line on stderr and exit status 2."""
import argparse
import os
import shlex
import sys

PROGRAM = "remat_torch"


def _fail(message):
    print(f"{PROGRAM}: {message}", file=sys.stderr)
    return 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage block would be several lines
        command = self.prog.split()[-1]
        sys.exit(_fail(f"{message} (see python3 -m {PROGRAM}{'' if command == PROGRAM else ' ' + command} --help)"))


def _progress(command, wanted):
    def report(step, total, text):
        if not wanted:
            return
        print(f"{PROGRAM} {command}: step {step} of {total}: {text}", file=sys.stderr, flush=True)
    return report


def _parser():
    parser = _Parser(prog=PROGRAM, description="Trace a PyTorch model into a remat model file, apply a remat "
                     "plan as torch.utils.checkpoint wrappers, and verify it in a real training step.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    spec_help = ("torchvision:NAME, torch:transformer-encoder:d_model=768,nhead=12,layers=12, "
                 "or path/to/file.py:callable (returns a torch.nn.Module)")

    trace = commands.add_parser("trace", help="write a remat model file of a PyTorch model, sizes measured")
    trace.add_argument("--model", required=True, metavar="SPEC", help=spec_help)
    trace.add_argument("--input", action="append", metavar="SHAPE[:DTYPE[:LOW..HIGH]]",
                       help="an input tensor, e.g. 32x3x224x224 or 8x512:int64:0..50257; repeat for several "
                            "positional inputs")
    trace.add_argument("--inputs", metavar="FILE.py:callable",
                       help="a function returning the inputs: a tensor, a tuple (positional) or a dict (keyword)")
    trace.add_argument("--timing-steps", type=int, default=5, metavar="N",
                       help="timed training steps; each node's time is their median (default 5)")
    trace.add_argument("--cost", default="time", metavar="time|flops",
                       help="what plans weigh: measured time (default) or FLOPs (every node must have some)")
    trace.add_argument("--dtype", default="float32", help="float32 (default), float64, bfloat16, float16")
    trace.add_argument("--autocast", choices=["bf16", "fp16"],
                       help="run every forward pass under torch.autocast with this dtype (mixed precision); "
                            "verify and the plan follow")
    trace.add_argument("--blocks", default="auto", metavar="auto|PATTERN",
                       help="auto (default), or module-name patterns such as 'layer3.*,layer4.*'")
    trace.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    trace.add_argument("--granularity", default="module", choices=["module", "op"],
                       help="module (default): one node per block; op: one node per op inside the blocks")
    trace.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (default: its own)")
    trace.add_argument("-o", "--output", required=True, metavar="FILE", help="model file to write")
    trace.add_argument("--progress", action="store_true", help="say on stderr which step runs")

    apply = commands.add_parser("apply", help="show how a plan wraps a model's modules in checkpoints")
    apply.add_argument("--plan", required=True, metavar="PLAN", help="JSON of remat plan --json")
    apply.add_argument("--model", metavar="SPEC", help=spec_help + " (default: the plan's)")
    apply.add_argument("--print", action="store_true", help="print the wrapping (the default action)")

    verify = commands.add_parser("verify", help="one training step per plan against the plain model")
    verify.add_argument("--plan", required=True, action="append", metavar="PLAN",
                        help="JSON of remat plan --json (repeat for several plans)")
    verify.add_argument("--model", metavar="SPEC", help=spec_help + " (default: the plan's)")
    verify.add_argument("--input", action="append", metavar="SHAPE[:DTYPE[:LOW..HIGH]]",
                        help="input tensors (default: the plan's; others are refused)")
    verify.add_argument("--inputs", metavar="FILE.py:callable", help="inputs function (default: the plan's)")
    verify.add_argument("--strict", action="store_true",
                        help="exit status 1 when any budget plan's observed peak is above its budget")
    verify.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    verify.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (default: its own)")
    verify.add_argument("--json", action="store_true", help="print JSON")
    verify.add_argument("--progress", action="store_true", help="say on stderr which step runs")
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    try:
        import torch
    except ImportError as e:
        return _fail(f"PyTorch is not installed for {sys.executable} ({e}); on Debian 12: "
                     "apt install python3-torch python3-torchvision (scripts/deps.sh)")
    from .errors import UsageError
    try:
        if getattr(args, "threads", 0):
            if args.threads < 1:
                raise UsageError(f"--threads {args.threads}: expected at least 1")
            torch.set_num_threads(args.threads)
        if args.command == "trace":
            from .inputs import recorded_inputs
            from .tracing import trace, write_model_file
            command = "PYTHONPATH=python python3 -m remat_torch " + shlex.join(argv)
            from .steps import autocast
            recorded = recorded_inputs(args.input, args.inputs)
            with autocast(args.autocast):
                if args.granularity == "op":
                    from .op_trace import trace_ops
                    doc = trace_ops(args.model, recorded, args.dtype, args.device, args.blocks, command,
                                    _progress("trace", args.progress), args.cost)
                else:
                    doc = trace(args.model, recorded, args.dtype, args.device, args.blocks, command,
                                _progress("trace", args.progress), args.timing_steps, args.cost)
            write_model_file(doc, args.output)
            print(f"wrote {args.output}: {len(doc['nodes']) - 1} nodes")
        elif args.command == "apply":
            from .applying import describe_plan
            print(describe_plan(args.plan, args.model))
        else:
            from .verifying import verify_command
            text, over_budget = verify_command(args.plan, args.model, args.input, args.inputs, args.device, args.json,
                                               _progress("verify", args.progress))
            print(text)
            if args.strict and over_budget:
                print(f"{PROGRAM}: {over_budget}", file=sys.stderr)
                return 1
    except UsageError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        return _fail("interrupted")
    except Exception as e:  # a bug, or PyTorch failing mid-step: one line, the traceback on request
        if os.environ.get("REMAT_TORCH_DEBUG"):
            raise
        text = str(e).strip().splitlines()
        print(f"{PROGRAM}: {type(e).__name__}: {text[0] if text else ''} (REMAT_TORCH_DEBUG=1 shows where)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
