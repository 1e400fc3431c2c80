"""Training: ``hollywood train`` and ``reproduce`` (:mod:`experiments.training.train`), the run
folder they write (:mod:`experiments.training.run_writer`), seed and grid sweeps on Ray Tune
(:mod:`experiments.training.sweep`), the README's quick start
(:mod:`experiments.training.quickstart`), MaskablePPO through the Stable-Baselines3 adapter
(:mod:`experiments.training.sb3_train`) and the learned belief
(:mod:`experiments.training.belief_train`)."""
