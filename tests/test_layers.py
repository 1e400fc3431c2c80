"""The layers hollywood_env < agents < experiments hold: no upward import, no import cycle.

``tools/check_layers.py`` reads the imports of every module (lazy imports inside functions
included) without running them; its last line is the count.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_upward_imports_and_no_cycles():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "check_layers.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    last = proc.stdout.strip().splitlines()[-1]
    m = re.fullmatch(r"layers: (\d+) upward imports, (\d+) import cycles over (\d+) modules", last)
    assert m, proc.stdout + proc.stderr
    upward, cycles, modules = map(int, m.groups())
    assert modules > 50, last  # it did read the packages
    assert (upward, cycles) == (0, 0), proc.stdout
    assert proc.returncode == 0
