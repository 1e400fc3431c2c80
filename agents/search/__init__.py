"""The search agent and what it reads: beliefs over the opponent's hand (:mod:`agents.search.belief`),
match equity (:mod:`agents.search.equity`), the agent (:mod:`agents.search.search`) and the exact
belief posterior against a known opponent (:mod:`agents.search.posterior`, an experiment)."""
