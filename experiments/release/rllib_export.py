"""``hollywood rllib-export CHECKPOINT OUT [--rules PRESET]``: an RLlib policy as a weights-only file.

RLlib saves an ``Algorithm`` as a checkpoint folder in its own format, which loading unpickles.
This command loads one (:func:`hollywood_env.rllib.export_policy`; export only checkpoints you
made or trust) and writes the actor of its module ``shared`` as plain tensors, which the agent
spec ``rllib:OUT`` plays greedily without Ray (:mod:`agents.interop.rllib_support`), in ``hollywood
evaluate``, ``tournament`` and ``play``. Needs the ``rllib`` extra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hollywood rllib-export",
        description="Export the module 'shared' of an RLlib checkpoint folder as a weights-only file, "
                    "played by the agent spec rllib:OUT (needs the rllib extra).")
    parser.add_argument("checkpoint", help="the folder algo.save() wrote (loading it unpickles it: only one you trust)")
    parser.add_argument("out", help="the .pt file to write")
    parser.add_argument("--rules", default=None,
                        help="the rules preset it was trained with (recorded, checked when the file is loaded)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not Path(args.checkpoint).is_dir():
        parser.error(f"checkpoint {args.checkpoint!r} is not a folder (give the folder algo.save() wrote)")
    if Path(args.out).is_dir():
        parser.error(f"out {args.out!r} is a folder; give the path of the .pt file to write")
    if args.rules is not None:
        from hollywood_env.rules import resolve_rules

        try:
            resolve_rules(args.rules)
        except (ValueError, TypeError) as e:
            parser.error(f"--rules: {e}")
    try:
        from hollywood_env.rllib import export_policy
    except ImportError as e:
        parser.error(str(e))
    try:
        out = export_policy(args.checkpoint, args.out, rules=args.rules)
    except (ValueError, OSError, RuntimeError) as e:
        parser.error(f"cannot export {args.checkpoint!r}: {type(e).__name__}: {e}")
    print(f"wrote {out}: play it with the agent spec rllib:{out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
