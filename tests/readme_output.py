"""README.md's sample output: the command each sample names, and what it prints today.

A sample is a ```text block right after a sentence ending in "(`rdbscope ...`):".
tests/test_docs.py fails when a sample is stale; rewrite them all with

    python tests/readme_output.py
"""

import os
import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SAMPLE = re.compile(r"\(`(rdbscope [^`]+)`\):\n\n```text\n(.*?)```", re.DOTALL)


def samples(readme):
    """``(command, text shown, match)`` for every sample output in the README text."""
    return [(m.group(1), m.group(2), m) for m in SAMPLE.finditer(readme)]


def output_of(command):
    """What ``command`` prints on stdout today, run from the checkout as a user would (not on a terminal)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
    done = subprocess.run([sys.executable, "-m", "rdbscope", *shlex.split(command)[1:]], cwd=ROOT, env=env,
                          check=False, capture_output=True, text=True, timeout=300)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{command} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def rewritten(readme):
    """The README text with every sample replaced by what its command prints today."""
    pieces, end = [], 0
    for command, _text, match in samples(readme):
        pieces += [readme[end:match.start(2)], output_of(command)]
        end = match.end(2)
    return "".join(pieces) + readme[end:]


if __name__ == "__main__":
    text = README.read_text(encoding="utf-8")
    new = rewritten(text)
    README.write_text(new, encoding="utf-8")
    print(f"README.md: {len(samples(text))} sample output(s) {'rewritten' if new != text else 'already current'}")
