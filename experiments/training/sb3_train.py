"""Train sb3-contrib's MaskablePPO on Hollywood Gin through :class:`hollywood_env.sb3.HollywoodGinSB3VecEnv`.

The Stable-Baselines3 example of the README and docs/environments.md, as a script (needs the
``sb3`` extra)::

    .venv/bin/hollywood sb3-train --steps 1000000 --out runs/sb3_maskable_ppo.zip
    .venv/bin/hollywood evaluate sb3:runs/sb3_maskable_ppo.zip random --matches 1000 --seed 7

Defaults: the vector env's defaults (one hand per episode against the random opponent,
``hollywood`` reward, rules ``hollywood``), ``num_envs`` 64, MaskablePPO with ``MlpPolicy``
(``net_arch`` 128-128, tanh), ``n_steps`` 128, ``batch_size`` 1024, ``n_epochs`` 4, otherwise
SB3's defaults. The saved ``.zip`` is SB3's own format; our agent spec ``sb3:PATH`` reads only
its weights (``agents/interop/sb3_policy.py``).
"""

from __future__ import annotations

import argparse
import sys
import time

from experiments import arguments


def main(argv=None) -> int:
    from experiments.config.loader import plain_text

    parser = argparse.ArgumentParser(prog="hollywood sb3-train", description=plain_text(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=1_000_000, help="learner decisions to train for")
    parser.add_argument("--num-envs", type=int, default=64, help="games stepped together (default 64)")
    parser.add_argument("--rules", type=arguments.rules_preset, default="hollywood", help="rules preset (default hollywood)")
    parser.add_argument("--seed", type=arguments.seed, default=0, help="seed of the env and of the model (default 0)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: best on a shared or small machine)")
    parser.add_argument("--out", default="runs/sb3_maskable_ppo.zip", help="where to save the model (.zip)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.num_envs < 1:
        parser.error(f"--steps and --num-envs must be positive, got {args.steps} and {args.num_envs}")
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import VecMonitor
    except ImportError as e:
        parser.error(f"needs the sb3 extra (pip install 'hollywood-gin-rl[sb3]'): {e}")

    from hollywood_env.sb3 import HollywoodGinSB3VecEnv

    torch.set_num_threads(args.threads)
    venv = VecMonitor(HollywoodGinSB3VecEnv(args.num_envs, rules=args.rules, seed=args.seed))
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=1024, n_epochs=4,
                        policy_kwargs={"net_arch": [128, 128]}, seed=args.seed, verbose=0)
    start = time.perf_counter()
    done = 0
    while done < args.steps:
        chunk = min(100_000, args.steps - done)
        model.learn(chunk, reset_num_timesteps=False)
        done = model.num_timesteps
        rewards = [e["r"] for e in model.ep_info_buffer]
        mean = sum(rewards) / len(rewards) if rewards else float("nan")
        print(f"{done:>9,} steps  {time.perf_counter() - start:7.1f} s  "
              f"mean episode reward (last {len(rewards)}) {mean:+.3f}", flush=True)
    model.save(args.out)
    print(f"saved {args.out} ({done:,} steps, {time.perf_counter() - start:.0f} s); evaluate with: "
          f"hollywood evaluate sb3:{args.out} random --matches 1000 --seed 7")
    return 0


if __name__ == "__main__":
    sys.exit(main())
