"""Other libraries' models as agents: Stable-Baselines3 (:mod:`agents.interop.sb3_policy`) and RLlib
(:mod:`agents.interop.rllib_support`), and
programs in any language over JSON lines (``proc:COMMAND``, :mod:`agents.interop.proc_agent`)."""
