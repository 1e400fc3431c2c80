"""Other libraries' models as agents: Stable-Baselines3 (:mod:`agents.interop.sb3_policy`) and RLlib
(:mod:`agents.interop.rllib_support`)."""
