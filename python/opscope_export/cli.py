"""Command line of the export helper; see `python -m opscope_export --help`.

Protocol (what `opscope export` relies on):
  exit 0: the archive is written; stdout is one JSON line describing it.
  exit 1: nothing written; the last line of stderr is the message, one line:
          `opscope-export: error: WHAT: what is wrong; what to do` (nothing else is printed
          unless OPSCOPE_DEBUG=1).
  `--probe`: stdout is one JSON line {"ok", "python", "executable", "torch", "min_torch",
  "error"}; exit 0 when torch is usable, else 1.
OPSCOPE_DEBUG=1 adds Python tracebacks and keeps warnings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
import warnings
from dataclasses import asdict

from opscope_export.errors import ExportError, describe, one_line
from opscope_export.specs import SPEC_SYNTAX, parse_input_spec
from opscope_export.target import TARGET_SYNTAX

PROG = "opscope-export"
MODES = ("graph", "eager")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one message, exit 1, like every other failure
        raise ExportError(f"{message} (see --help)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Export a PyTorch model to a torch.export .pt2 archive for opscope.",
        epilog=f"{TARGET_SYNTAX}. --input: {SPEC_SYNTAX}; NAME=SPEC passes a keyword argument.",
    )
    parser.add_argument("target", nargs="?", help="package.module:factory or file.py:factory")
    parser.add_argument("--input", "-i", action="append", default=[], metavar="SPEC",
                        help="one example input per forward() argument, in order")
    parser.add_argument("-o", "--output", metavar="MODEL.pt2", help="archive to write")
    parser.add_argument("--mode", choices=MODES, action="append",
                        help="graph (default): the torch.export archive; eager: run the model "
                             "once and store what coreai-opt's eager mode sees "
                             "(extra/opscope_eager.json), without torch.export: the archive "
                             "serves `--mode eager` only; give both (--mode graph --mode eager) "
                             "for an archive that serves both modes")
    parser.add_argument("--seed", type=int, default=0, help="torch seed (default 0)")
    parser.add_argument("--eval", action="store_true",
                        help="call model.eval() before exporting (default: keep the factory's mode,"
                             " as coreai-opt does)")
    weights = parser.add_mutually_exclusive_group()
    weights.add_argument("--with-weights", action="store_true",
                         help="build the model with real (random) weights, for models that "
                              "read tensor values; never for hf:CONFIG targets (a config has "
                              "no weights). Default: weightless: the model is built on fake "
                              "tensors (no data), so no weight data is made or saved (names, "
                              "shapes and dtypes are the same); a model that cannot be built "
                              "or run there is exported with weights instead, with a warning")
    weights.add_argument("--weightless", action="store_true",
                         help="the default (kept so older command lines still work)")
    parser.add_argument("--hf-class", metavar="CLASS",
                        help="for hf:CONFIG targets: the transformers class to build, e.g. "
                             "AutoModelForCausalLM or LlamaModel (default: the config's "
                             "architectures, else the first auto class that fits)")
    parser.add_argument("--probe", "--check", action="store_true", dest="probe",
                        help="print this interpreter's torch version as JSON and exit")
    return parser


def _run(argv: list[str]) -> int:
    if argv[:1] == ["schema"]:  # `schema [-o FILE]`: coreai-opt's config models as JSON
        from opscope_export.schema_dump import main as schema_main

        return schema_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.probe:
        from opscope_export.torch_check import probe

        info = probe()
        print(json.dumps(info), flush=True)
        if not info["ok"]:
            raise ExportError(info["error"])
        return 0
    if not args.target:
        raise ExportError(f"missing TARGET; {TARGET_SYNTAX}")
    if not args.output:
        raise ExportError("missing -o MODEL.pt2 (the archive to write)")

    from opscope_export.export import ExportRequest, export_archive

    request = ExportRequest(
        target=args.target,
        output=args.output,
        inputs=[parse_input_spec(text) for text in args.input],
        seed=args.seed,
        eval_mode=args.eval,
        record_eager="eager" in (args.mode or ()),
        export_graph="graph" in (args.mode or ("graph",)),
        weightless=not args.with_weights,
        hf_class=args.hf_class,
    )
    if args.hf_class and not args.target.startswith("hf:"):
        raise ExportError(f"--hf-class {args.hf_class}: only hf:CONFIG targets take it")
    if args.with_weights and args.target.startswith("hf:"):
        raise ExportError(f"{args.target}: --with-weights: an hf:CONFIG target is only a config, "
                          "with no weights to keep, so it is always exported without weight "
                          "data; drop --with-weights (or `weightless: false` in opscope.yaml)")
    from opscope_export.quiet import captured_output

    try:
        with captured_output(replay=os.environ.get("OPSCOPE_DEBUG") == "1"):
            result = export_archive(request)
    except SystemExit as exc:
        # The model's code (the exported forward, a hook) ended the program: no archive.
        raise ExportError(f"{args.target}: the model code called sys.exit({exc.code!r}) while "
                          "it was exported; nothing was written") from exc
    if result.fallback:
        # Once, after the captured output: `opscope` relays warning lines to the user.
        print(f"{PROG}: warning: {args.target}: cannot export without weights "
              f"({one_line(result.fallback)}); exported with real weights instead",
              file=sys.stderr, flush=True)
    if result.untraced:
        print(f"{PROG}: warning: {args.target}: torch.export cannot trace it "
              f"({one_line(result.untraced)}); wrote its module names and parameters only: "
              "PEFT and llm-compressor configs are checked against them, coreai-opt configs "
              "need the graph", file=sys.stderr, flush=True)
    if result.built_instead:
        print(f"{PROG}: warning: {args.target}: {one_line(result.built_instead)}",
              file=sys.stderr, flush=True)
    print(json.dumps(asdict(result)), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    debug = os.environ.get("OPSCOPE_DEBUG") == "1"
    if not debug:
        warnings.simplefilter("ignore")
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except ExportError as exc:
        if debug:
            traceback.print_exc()
        sys.stdout.flush()
        print(f"{PROG}: error: {one_line(str(exc))}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: error: interrupted", file=sys.stderr, flush=True)
        return 1
    except Exception as exc:  # a bug in the helper itself: still one message
        if debug:
            traceback.print_exc()
        print(f"{PROG}: error: internal error: {describe(exc)} (re-run with OPSCOPE_DEBUG=1 "
              "for a traceback)", file=sys.stderr, flush=True)
        return 1
