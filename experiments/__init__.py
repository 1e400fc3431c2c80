"""Experiments: duplicate-deal evaluation, round-robin tournaments, statistics and the
``hollywood`` command line (:mod:`experiments.cli`)."""
