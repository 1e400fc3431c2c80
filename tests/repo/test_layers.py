"""The layers hollywood_env < agents < experiments hold, and the floors inside agents/ (bots <
registry < matches < search < rl < interop): no upward import, no import cycle.

``tools/check_layers.py`` reads the imports of every module (lazy imports inside functions
included) without running them; its last line is the count.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
    assert re.search(r"^agents floors: .*; 0 modules on no floor$", proc.stdout, re.M), proc.stdout


def test_agents_floors_are_checked(tmp_path):
    """Inside agents/, an import from a lower floor up to a higher one (bots -> rl) and a module on
    no floor are reported; downward imports are not."""
    for rel, text in {
        "hollywood_env/__init__.py": "", "experiments/__init__.py": "", "agents/__init__.py": "",
        "agents/bots/__init__.py": "", "agents/rl/__init__.py": "", "agents/search/__init__.py": "",
        "agents/bots/base.py": "def f():\n    from agents.rl import ppo\n",
        "agents/rl/ppo.py": "from agents.bots import base\nfrom agents.search import belief\n",
        "agents/search/belief.py": "from agents.bots.base import f\n",
        "agents/elsewhere.py": "",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "check_layers.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    upward = [line for line in proc.stdout.splitlines() if line.startswith("upward:")]
    assert len(upward) == 1 and "agents/bots/base.py:2 imports agents.rl" in upward[0], proc.stdout
    assert "unplaced: agents.elsewhere" in proc.stdout
