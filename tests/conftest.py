"""Test-suite wiring: tests marked ``ray`` (registered in pyproject.toml, excluded from the default
run by ``-m "not slow and not ray"``; ``make test-ray`` runs them) are skipped when Ray is not
installed (``pip install '.[ray]'``)."""

import importlib.util

import pytest


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("ray") is not None:
        return
    skip = pytest.mark.skip(reason="Ray is not installed (pip install '.[ray]')")
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(skip)


@pytest.fixture
def reshuffle_hidden():
    """``reshuffle_hidden(state, games, rng)``: a copy of the games whose hidden cards (the
    opponent's unknown cards and the stock, from the player to act's view) are shuffled among
    themselves: the same information for the player to act, for the hidden-information tests."""
    import numpy as np

    from hollywood_env import core
    from hollywood_env.cards import CARD_BITS, NUM_CARDS

    def reshuffle(state, games, rng):
        other = core.take(state, games)
        for i in range(other.batch_size):
            opp = 1 - int(other.current_player[i])
            hidden = [c for c in range(NUM_CARDS)
                      if (int(other.hands[i, opp]) >> c) & 1 and not (int(other.known[i, opp]) >> c) & 1]
            pos = int(other.stock_pos[i])
            pool = np.array(hidden + other.deck[i, pos:].tolist())
            rng.shuffle(pool)
            other.hands[i, opp] = int(other.known[i, opp]) | int(np.bitwise_or.reduce(CARD_BITS[pool[:len(hidden)]]))
            other.deck[i, pos:] = pool[len(hidden):]
        other.legal_action_mask[:] = core.legal_action_mask(other)
        return other

    return reshuffle


@pytest.fixture(params=["compiled", "python"])
def single_game_path(request, monkeypatch):
    """Run a test twice: with the compiled single-game kernels (:mod:`hollywood_env.kernels`, when
    numba is installed) and with the Python-int / numpy path they replace."""
    from hollywood_env import kernels

    if request.param == "compiled" and not kernels.AVAILABLE:
        pytest.skip("numba is switched off (HOLLYWOOD_GIN_NUMBA=0) or missing")
    if request.param == "python":
        monkeypatch.setattr(kernels, "AVAILABLE", False)
    return request.param
