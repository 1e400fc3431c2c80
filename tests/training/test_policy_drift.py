"""experiments/research/policy_drift.py: the KL of a policy from a reference, on the reference's
own positions against simple."""

import numpy as np
import pytest

from experiments.research import policy_drift

SHARE = "ppo:results/ppo_hollywood/exploiter_share_seed0/ppo_hollywood_exploiter_share_seed0.pt"


def test_drift_is_zero_for_the_reference_and_positive_for_a_policy_trained_on_from_it():
    reference = policy_drift.ppo_policy("ppo-hollywood")
    kls = policy_drift.drift(reference, {"same": policy_drift.ppo_policy("ppo-hollywood"),
                                         "share": policy_drift.ppo_policy(SHARE)}, games=8, steps=40, seed=0)
    assert kls["same"].size == kls["share"].size > 50
    np.testing.assert_allclose(kls["same"], 0.0, atol=1e-6)
    assert kls["share"].min() >= -1e-6 and kls["share"].mean() > 1e-3


def test_bad_policies_are_refused_in_one_line(capsys):
    assert policy_drift.main(["simple"]) == 2
    assert capsys.readouterr().err.strip() == ("policy_drift: 'simple' is not a PPO policy on the observation "
                                              "alone (give ppo-hollywood or ppo:PATH)")
    assert policy_drift.main(["ppo-hollywood", "--games", "0"]) == 2
    with pytest.raises(ValueError, match="unknown agent"):
        policy_drift.ppo_policy("ppo-holywood")
