"""Evaluation: head-to-head matches on duplicate deals (:mod:`experiments.evaluation.head_to_head`,
``hollywood evaluate``), round-robin tournaments (:mod:`experiments.evaluation.tournament`,
``hollywood tournament``; their pairings as Ray tasks: :mod:`experiments.evaluation.ray_pairings`)
and the intervals and ratings both report (:mod:`experiments.evaluation.stats`)."""
