"""Reinforcement learning: the algorithms (:mod:`agents.rl.ppo`, :mod:`agents.rl.dqn`), the loop they
share (:mod:`agents.rl.loop`), networks, features and trained policies, the self-play rollout, its
collectors and the opponent league."""
