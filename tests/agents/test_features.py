"""The agents' derived features against the brute-force reference, on real game states."""

import numpy as np

from agents.rl import features as F
from agents.rl.features import NUM_FEATURES, augment
from hollywood_env import core
from hollywood_env import observation as O
from hollywood_env import reference as R
from hollywood_env.actions import PHASE_DISCARD
from hollywood_env.cards import masks_to_bools


def test_features_match_brute_force():
    rng = np.random.default_rng(0)
    state = core.init(48, "hollywood", seed=2)
    checked_discard = checked_draw = 0
    for step in range(120):
        obs = O.encode(state)
        mask = state.legal_action_mask
        aug = augment(obs, mask, forbid_taken=True)
        assert aug.shape == (48, obs.shape[1] + NUM_FEATURES)
        assert np.array_equal(aug[:, : obs.shape[1]], obs)
        f = aug[:, obs.shape[1]:]
        if step % 10 == 0:
            for i in range(48):
                if state.done[i]:
                    continue
                hand = np.flatnonzero(masks_to_bools(state.hands[i, state.current_player[i]])[0]).tolist()
                dw = R.brute_min_deadwood(hand)
                assert abs(f[i, F.DEADWOOD] - min(dw, 30) / 10) < 1e-6
                melds = R.brute_knocker_arrangement(hand)
                melded = np.flatnonzero(f[i, F.MELDED:F.MELDED + 52]).tolist()
                assert sorted(melded) == sorted(c for m in melds for c in m)
                if state.phase[i] == PHASE_DISCARD:
                    after = R.deadwood_after_discard(hand)
                    legal = np.flatnonzero(mask[i, :52]).tolist()
                    best = min(after[c] for c in legal)
                    for c in range(52):
                        expect = 1 - after[c] / 100 if c in legal else 0.0
                        assert abs(f[i, F.DISCARD_VALUE + c] - expect) < 1e-6
                        assert f[i, F.BEST_DISCARD + c] == (c in legal and after[c] == best)
                    assert f[i, F.TAKE_DEADWOOD] == 0 and f[i, F.TAKE_KNOCKS] == 0
                    checked_discard += 1
                else:
                    top = int(state.pile_top[i])
                    after = R.deadwood_after_discard(hand + [top])
                    take = min(v for c, v in after.items() if c != top)
                    assert abs(f[i, F.TAKE_DEADWOOD] - min(take, 30) / 10) < 1e-6
                    assert abs(f[i, F.TAKE_GAIN] - (dw - take) / 10) < 1e-6
                    assert f[i, F.TAKE_KNOCKS] == (take <= state.knock_limit[i])
                    assert not f[i, F.BEST_DISCARD:F.DISCARD_VALUE + 52].any()
                    checked_draw += 1
        a = np.argmax(rng.random(mask.shape) * mask, axis=1)
        core.step(state, a)
        if state.done.any():
            core.reset_games(state, state.done)
    assert checked_discard > 50 and checked_draw > 50
