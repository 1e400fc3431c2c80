"""Research experiments: measurements of how well agents play and why (not speed; the speed
benchmarks live in ``benchmarks/``). Each module is a script with an argparse ``main``, run as
``python -m experiments.research.<name> --help``:

- :mod:`experiments.research.openspiel_agreement`: how often our ``simple`` bot picks the move of
  OpenSpiel's ``SimpleGinRummyBot`` on replayed OpenSpiel games (and the card translation between
  the two engines);
- :mod:`experiments.research.openspiel_arena`: one of our agents against OpenSpiel's C++ simple bot
  in OpenSpiel's own ``gin_rummy`` (hand win rates on duplicate deals, and where the two engines
  score a hand differently);
- :mod:`experiments.research.search_information`: what limits the ``search`` agent: hands won with
  worlds from the opponent's true hand, the learned, heuristic, uniform and posterior beliefs, and
  the share of the opponent's unknown cards each belief puts in its hand;
- :mod:`experiments.research.belief_input`: the cost of the learned belief as network inputs
  (``ppo.belief_input``) against the derived features alone, per call and per row;
- :mod:`experiments.research.belief_posterior`: the best belief there can be against a known
  opponent, the Bayesian posterior given the bot's own policy, estimated by importance sampling
  (the estimator: :mod:`agents.search.posterior`), against the learned belief;
- :mod:`experiments.research.time_to_strength`: a training run's match win rate against a bot over
  the CPU-minutes it took (read from the run's TensorBoard events).
"""
