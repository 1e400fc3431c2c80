"""The run folder's TensorBoard logs (experiments.training.run_writer): the HParams tab lists the run's
own algorithm only."""

from __future__ import annotations

import pytest

from experiments.config.schema import TrainConfig
from experiments.training.run_writer import RunLogger, run_hyperparameters


def _hparams_logged(run_dir) -> dict:
    """The hyperparameters of the HParams tab (the session-start plugin data), read back."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.hparams import plugin_data_pb2

    found = {}
    for events in sorted(run_dir.rglob("events.out.tfevents.*")):
        acc = EventAccumulator(str(events.parent))
        acc.Reload()
        try:
            contents = acc.PluginTagToContent("hparams")
        except KeyError:  # an events file without HParams data
            continue
        for content in contents.values():
            data = plugin_data_pb2.HParamsPluginData.FromString(content)
            if data.HasField("session_start_info"):
                for k, v in data.session_start_info.hparams.items():
                    found[k] = v.WhichOneof("kind") and getattr(v, v.WhichOneof("kind"))
    return found


@pytest.mark.parametrize("algo,other", [("ppo", "dqn"), ("dqn", "ppo")])
def test_hparams_list_only_the_runs_algorithm(tmp_path, algo, other):
    cfg = TrainConfig(algo=algo, seed=3)
    flat = run_hyperparameters(cfg)
    assert any(k.startswith(f"{algo}.") for k in flat) and not any(k.startswith(f"{other}.") for k in flat)
    logger = RunLogger(tmp_path, cfg)
    logger.log(1, 100, {"charts/SPS": 5.0})
    logger.hparams({"eval/win_rate_vs_random": 0.75})
    logger.close()
    hp = _hparams_logged(tmp_path)
    assert hp, "no HParams data written"
    assert not [k for k in hp if k.startswith(f"{other}.")], f"foreign {other}.* keys in HParams"
    assert {f"{algo}.num_games", "algo", "seed", "env.rules", "env.reward"} <= set(hp)
    assert hp["algo"] == algo and hp["seed"] == 3
    # the text table at the start lists the same keys
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    text = acc.Tensors("hyperparameters/text_summary")[0].tensor_proto.string_val[0].decode()
    assert f"|{algo}.num_games|" in text and f"|{other}." not in text
