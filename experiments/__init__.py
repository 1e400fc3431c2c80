"""Experiments: the ``hollywood`` command line (:mod:`experiments.cli`) and what its commands do,
one subpackage per job: :mod:`experiments.config` (configs and their schema),
:mod:`experiments.training` (training runs and their folders, sweeps), :mod:`experiments.evaluation`
(duplicate-deal evaluation, round-robin tournaments, statistics), :mod:`experiments.release`
(shipped models and published results), :mod:`experiments.analysis` (runs read back, plots,
recorded matches, play measured, the notebooks' imports) and :mod:`experiments.play` (playing in
the browser)."""
