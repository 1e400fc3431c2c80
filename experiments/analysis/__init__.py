"""Analysis of runs and agents: run and tournament folders read back
(:mod:`experiments.analysis.run_reader`), their plots (:mod:`experiments.analysis.plots`), one
match recorded hand by hand (:mod:`experiments.analysis.playthrough`), how agents play
(:mod:`experiments.analysis.behaviour`, ``hollywood behaviour``), the notebooks' demo inputs
(:mod:`experiments.analysis.demo`) and what the notebooks import
(:mod:`experiments.analysis.notebooks`)."""
