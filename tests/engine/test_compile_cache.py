"""numba's disk cache of the compiled kernels: the first process compiles (and says so on stderr,
once), the next one loads them and says nothing."""

import os
import subprocess
import sys

import pytest

from hollywood_env import kernels

# compiles one small kernel (and what it calls), not the whole engine
SCRIPT = "from hollywood_env import kernels; assert kernels.is_big_gin((1 << 11) - 1) in (True, False)"


def _run(env_extra: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "HOLLYWOOD_GIN_COMPILE_NOTICE_GIVEN"}
    env.update(env_extra)
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return p


@pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is switched off (HOLLYWOOD_GIN_NUMBA=0) or missing")
def test_first_process_compiles_and_says_so_once_the_next_loads_the_cache(tmp_path):
    cache = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    first = _run(cache)
    assert first.stderr.count(kernels.COMPILE_NOTICE) == 1, first.stderr
    assert list((tmp_path / "numba").rglob("kernels.*.nbi")), "nothing was cached"
    second = _run(cache)
    assert "compiling" not in second.stderr, second.stderr
    # without numba's kernels nothing is compiled, and nothing is said
    off = _run({**cache, "NUMBA_CACHE_DIR": str(tmp_path / "other"), "HOLLYWOOD_GIN_NUMBA": "0"})
    assert "compiling" not in off.stderr, off.stderr
