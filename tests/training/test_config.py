"""Configs: YAML + overrides, unknown keys and wrong types rejected with clear messages."""

import pytest

from experiments.config.loader import ConfigError, apply_overrides, load_config
from experiments.config.schema import TrainConfig


def test_every_shipped_config_loads(tmp_path):
    from pathlib import Path

    configs = sorted(Path("configs").glob("*.yaml"))
    assert configs, "configs/ should hold the experiment configs"
    for path in configs:
        cfg = load_config(TrainConfig, path)
        assert cfg.total_steps > 0


def test_yaml_exponent_strings_become_floats(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("ppo:\n  lr: 3e-4\n")  # YAML 1.1 reads this as a string
    cfg = load_config(TrainConfig, p)
    assert cfg.ppo.lr == pytest.approx(3e-4) and isinstance(cfg.ppo.lr, float)


def test_overrides():
    cfg = apply_overrides(TrainConfig(), ["--ppo.lr", "1e-4", "--seed=3", "--league.bots", "random,simple",
                                          "--eval.greedy", "false", "--env.rule_options", "{knock_limit: 8}"])
    assert cfg.ppo.lr == pytest.approx(1e-4)
    assert cfg.seed == 3
    assert cfg.league.bots == ["random", "simple"]
    assert cfg.eval.greedy is False
    assert cfg.env.make_rules().knock_limit == 8


@pytest.mark.parametrize("text,match", [
    ("ppo:\n  lrr: 0.1\n", r"unknown key\(s\) \['lrr'\].*allowed keys: .*lr"),
    ("sed: 1\n", r"unknown key\(s\) \['sed'\]"),
    ("ppo:\n  num_games: many\n", r"ppo.num_games: expected an int, got str 'many'"),
    ("ppo:\n  lr: fast\n", r"ppo.lr: expected a number"),
    ("eval:\n  greedy: maybe\n", r"eval.greedy: expected true/false"),
    ("algo: sac\n", r"algo must be"),
    ("ppo:\n  num_games: 0\n", r"num_games must be >= 1"),
])
def test_bad_config_files(tmp_path, text, match):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(TrainConfig, p)


def test_bad_overrides_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown config key 'ppo.lrr'.*has keys .*lr"):
        apply_overrides(TrainConfig(), ["--ppo.lrr", "1"])
    with pytest.raises(ConfigError, match="has no value"):
        apply_overrides(TrainConfig(), ["--seed"])
    with pytest.raises(ConfigError, match="not found"):
        load_config(TrainConfig, tmp_path / "nope.yaml")


def test_bad_rules_in_config_are_clear():
    with pytest.raises(ConfigError, match="unknown rules preset 'holywood'; valid presets: hollywood"):
        apply_overrides(TrainConfig(), ["--env.rules", "holywood"])
    with pytest.raises(ConfigError, match="unknown reward mode 'points'"):
        apply_overrides(TrainConfig(), ["--env.reward", "points"])
    with pytest.raises(ConfigError, match=r"unknown rule option\(s\) \['knock'\]"):
        apply_overrides(TrainConfig(), ["--env.rule_options", "{knock: 3}"])
