"""Release files: LICENSE, CHANGELOG.md, CITATION.cff and py.typed agree with pyproject.toml; the
wheel carries the shipped models, the configs and the play page, and works from any folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomllib is 3.11+, tomli is the same parser
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]


def test_license_is_mit_as_pyproject_says():
    assert PYPROJECT["project"]["license"] == "MIT"  # an SPDX expression
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Hollywood Gin RL contributors" in text


def test_changelog_has_the_current_version_and_unreleased():
    text = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert versions[0] == "Unreleased" and VERSION in versions


def test_citation_cff_is_cff_1_2_0():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):  # required by the CFF 1.2.0 schema
        assert cff[key]
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert str(cff["version"]) == VERSION and cff["license"] == "MIT"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))


def test_py_typed_in_every_package_and_shipped():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for pkg in ("hollywood_env", "agents", "experiments"):
        assert (ROOT / pkg / "py.typed").is_file()
        assert "py.typed" in data.get(pkg, [])


# --- the wheel --------------------------------------------------------------------------------

SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
#: what the wheel is built from: pyproject.toml, the files it names and the packages' folders
BUILD_FILES = ["pyproject.toml", "README.md", "LICENSE"]


def _source_dirs() -> set[str]:
    mapped = SETUPTOOLS.get("package-dir", {})
    return {mapped.get(pkg, pkg.split(".")[0]).split("/")[0] for pkg in SETUPTOOLS["packages"]}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built as a release is (an sdist, then the wheel from it) from a copy of the
    checkout: no build/ or egg-info left in the checkout, nothing downloaded."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, src / name)
    for name in _source_dirs():
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    code = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    out = subprocess.run([sys.executable, "-c", code, str(tmp / "dist")], cwd=src, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    sdist = tmp / "dist" / out.stdout.strip().splitlines()[-1]
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                          "-q", "-w", str(tmp / "dist"), str(sdist)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    (whl,) = (tmp / "dist").glob("*.whl")
    return whl


def test_every_package_is_listed():
    """pyproject.toml names its packages (it maps models/ and configs/ into agents/): a new package
    folder must be added there, or the wheel lacks it."""
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for top in ("hollywood_env", "agents", "experiments") for p in (ROOT / top).rglob("__init__.py")}
    assert found <= set(SETUPTOOLS["packages"]), sorted(found - set(SETUPTOOLS["packages"]))


def test_wheel_ships_the_models_configs_and_play_page(wheel):
    with zipfile.ZipFile(wheel) as z:
        info = {i.filename: i for i in z.infolist()}
        expected = {f"agents/_models/{p.name}": p for p in (ROOT / "models").iterdir() if p.suffix in (".pt", ".md")}
        expected |= {f"agents/_configs/{p.name}": p for p in (ROOT / "configs").glob("*.yaml")}
        expected |= {f"experiments/play/static/{p.name}": p for p in (ROOT / "experiments/play/static").iterdir()}
        expected |= {f"{pkg}/py.typed": ROOT / pkg / "py.typed" for pkg in ("hollywood_env", "agents", "experiments")}
        expected |= {str(p.relative_to(ROOT)): p for top in ("hollywood_env", "agents", "experiments")
                     for p in (ROOT / top).rglob("*.py")}  # every module of every subpackage
        assert {"agents/_models/ppo_hollywood.pt", "agents/_models/belief_hollywood.pt",
                "agents/_configs/ppo_tiny.yaml", "experiments/play/static/index.html"} <= set(expected)
        for name, path in sorted(expected.items()):
            assert name in info, f"{name} is not in {wheel.name}"
            assert info[name].file_size == path.stat().st_size, name
            if path.suffix != ".pt":
                assert z.read(name) == path.read_bytes(), name
        assert "experiments/cli.py" in info and "hollywood_env/rules.py" in info
        # nothing at the top of site-packages besides the three packages and the metadata
        assert {n.split("/")[0] for n in info} == {"hollywood_env", "agents", "experiments",
                                                   f"{wheel.name.split('-')[0]}-{VERSION}.dist-info"}


def test_paths_find_the_checkout_folders_and_shipped_names(tmp_path, monkeypatch):
    from agents import paths
    from experiments.config.loader import ConfigError, load_config
    from experiments.config.schema import TrainConfig

    assert paths.CONFIGS_DIR == ROOT / "configs"
    if not os.environ.get("HOLLYWOOD_MODELS"):
        assert paths.MODELS_DIR == ROOT / "models"
    tiny = ROOT / "configs" / "ppo_tiny.yaml"
    monkeypatch.chdir(tmp_path)  # not the checkout: names and configs/NAME.yaml are the shipped files
    for name in ("ppo_tiny", "ppo_tiny.yaml", "configs/ppo_tiny.yaml"):
        assert paths.find_config(name) == tiny, name
    assert load_config(TrainConfig, "ppo_tiny").log.name == "ppo_tiny"
    assert paths.find_model("models/belief_hollywood.pt") == paths.MODELS_DIR / "belief_hollywood.pt"
    assert paths.find_model("nope.pt") == Path("nope.pt") and paths.find_config("x/ppo_tiny.yaml") == Path("x/ppo_tiny.yaml")
    (tmp_path / "ppo_tiny.yaml").write_text("seed: 3\n")  # a file of that name here wins
    assert paths.find_config("ppo_tiny.yaml") == Path("ppo_tiny.yaml")
    assert "ppo_tiny" in paths.shipped_configs()
    with pytest.raises(ConfigError, match="config file not found: nope.yaml .*ppo_tiny"):
        load_config(TrainConfig, "nope.yaml")


def _venv_with_wheel(wheel: Path, where: Path) -> Path:
    """A fresh venv with the wheel installed (--no-deps) that sees this interpreter's site-packages
    for the dependencies (a .pth line, after its own: the wheel's packages come first)."""
    import site
    import sysconfig

    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    parents = [p for p in [*site.getsitepackages(), sysconfig.get_paths()["purelib"]] if Path(p).is_dir()]
    Path(purelib, "_parent_site_packages.pth").write_text("\n".join(dict.fromkeys(parents)) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "-q", str(wheel)], check=True, timeout=300)
    return venv


@pytest.mark.slow
def test_installed_wheel_evaluates_plays_and_trains_from_any_folder(wheel, tmp_path):
    """``pip install`` the wheel, then from a folder that is not the checkout: ``hollywood evaluate``
    with a shipped model, ``hollywood play`` (the page, its assets and the API) and ``hollywood
    train`` of a shipped config by name."""
    venv = _venv_with_wheel(wheel, tmp_path)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    hollywood, python = str(bindir / "hollywood"), str(bindir / "python")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HOLLYWOOD_MODELS", "VIRTUAL_ENV")}
    env |= {"HOME": str(tmp_path / "home"), "PYTHONDONTWRITEBYTECODE": "1"}

    def run(*args, timeout=600):
        r = subprocess.run(list(args), cwd=elsewhere, env=env, capture_output=True, text=True, timeout=timeout)
        assert r.returncode == 0, f"{args}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
        return r.stdout

    where = json.loads(run(python, "-c", "import json, agents, agents.paths as p; print(json.dumps("
                                         "[agents.__file__, str(p.MODELS_DIR), str(p.CONFIGS_DIR)]))"))
    for path in where:  # the installed copy, not the checkout
        assert Path(path).resolve().is_relative_to(venv.resolve()), where

    out = run(hollywood, "evaluate", "ppo-hollywood", "random", "--matches", "2")
    assert "match" in out

    out = run(hollywood, "train", "ppo_tiny", "--total_steps", "2048")
    run_dir = Path(out.split("run folder:")[1].split()[0])
    run_dir = run_dir if run_dir.is_absolute() else elsewhere / run_dir
    assert run_dir.is_relative_to(elsewhere / "runs") and (run_dir / "checkpoints" / "latest.pt").is_file()

    proc = subprocess.Popen([hollywood, "play", "--port", "0", "--no-browser", "--data-dir", str(tmp_path / "play")],
                            cwd=elsewhere, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # "Hollywood Gin at http://127.0.0.1:PORT/ ..." once it listens
        assert "http://" in line, (line, proc.poll() is not None and proc.stderr.read()[-3000:])
        url = re.search(r"http://\S+/", line).group(0)
        for _ in range(100):  # the socket is bound before the line; uvicorn starts serving just after
            try:
                page = urllib.request.urlopen(url, timeout=10).read().decode()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise AssertionError(f"no answer from {url}")
        assert "<html" in page.lower()
        assert urllib.request.urlopen(url + "static/app.js", timeout=10).status == 200
        config = json.loads(urllib.request.urlopen(url + "api/config", timeout=10).read())
        assert config["opponent"] == "search"  # the default: it loads the shipped belief model
        req = urllib.request.Request(url + "api/matches", data=b'{"seed": 1}', method="POST",
                                     headers={"Content-Type": "application/json"})
        assert json.loads(urllib.request.urlopen(req, timeout=30).read())
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
