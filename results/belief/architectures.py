"""Does a bigger or more global network read the opponent's hand better than the shipped one?

    .venv/bin/python results/belief/architectures.py            # the table of architectures.md

Collects the games of ``hollywood belief train`` (every pairing of
``experiments.training.belief_train.PAIRINGS``) with ``--seed`` and ``--scale``, trains each
network on the training games' decisions as ``hollywood belief train`` does (binary cross-entropy
on the unseen cards, Adam with a one-cycle schedule, batch 512, history withheld from 15% of the
rows, one torch thread), and prints per epoch the held-out binary cross-entropy per unseen card
(before the hard facts) and the top-k share (the share of the opponent's unknown cards among the
network's k most likely unseen cards, k the number it holds; the hard facts do not change the
order) on 20,000 held-out decisions. The shipped model is measured on the same rows.

The networks:

* ``card``: :class:`agents.search.belief.BeliefNet` (the shipped architecture: one small network shared
  by the 52 cards over each card's run and set neighbourhood, width 64, 3 layers);
* ``flat``: a plain MLP over the whole input vector (two hidden layers of 512), which sees every
  card at once but shares nothing between cards;
* ``attention``: ``BeliefNet``'s first layer, then two transformer blocks (4 heads, width 64)
  over the 52 card tokens, so that every card's score can read every other card.

An experiment, not part of the package: the two extra networks live here only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agents.search.belief import INPUT_SIZE, BeliefNet, default_belief_path, load_belief  # noqa: E402
from experiments.training.belief_train import collect  # noqa: E402
from hollywood_env.cards import NUM_CARDS  # noqa: E402
from hollywood_env.history import HISTORY_SIZE  # noqa: E402


class FlatMLP(nn.Module):
    def __init__(self, hidden: int = 512):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(INPUT_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                               nn.Linear(hidden, NUM_CARDS))

    def forward(self, x):
        return self.f(x)


class AttentionNet(BeliefNet):
    """``BeliefNet``'s first layer, then transformer blocks over the 52 card embeddings."""

    def __init__(self, hidden: int = 64, blocks: int = 2, heads: int = 4):
        super().__init__(hidden, layers=1)
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(hidden, heads, 2 * hidden, dropout=0.0,
                                                                batch_first=True, norm_first=True)
                                     for _ in range(blocks)])
        self.norm = nn.LayerNorm(hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.card_embeddings(x)
        for block in self.blocks:
            h = block(h)
        return self.out(self.norm(h)).reshape(x.shape[0], NUM_CARDS)


NETWORKS = {"card": lambda: BeliefNet(64, 3), "flat": FlatMLP, "attention": AttentionNet}


def topk_share(logits: np.ndarray, label: np.ndarray, unseen: np.ndarray) -> float:
    score = np.where(unseen, logits, -np.inf)
    k = (label & unseen).sum(axis=1)
    order = np.argsort(-score, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(NUM_CARDS)[None].repeat(len(order), 0), axis=1)
    hit = (rank < k[:, None]) & label & unseen
    return float(hit[k > 0].sum() / k[k > 0].sum())


def held_out_metrics(net, x, label, unseen, rows) -> tuple[float, float]:
    net.eval()
    with torch.no_grad():
        logits = np.concatenate([net(torch.from_numpy(x[rows[i:i + 4096]].astype(np.float32))).numpy()
                                 for i in range(0, rows.size, 4096)])
    y, m = label[rows], unseen[rows]
    bce = nn.functional.binary_cross_entropy_with_logits(torch.from_numpy(logits), torch.from_numpy(y.astype(np.float32)),
                                                         reduction="none").numpy()
    return float((bce * m).sum() / m.sum()), topk_share(logits, y, m)


def train(name: str, epochs: int, x, label, unseen, held, log=print) -> None:
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    net = NETWORKS[name]()
    log(f"{name}: {sum(p.numel() for p in net.parameters()):,} parameters")
    tr = np.flatnonzero(~held)
    ho = np.sort(np.random.default_rng(0).permutation(np.flatnonzero(held))[:20000])
    batch, lr = 512, 2e-3
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * (tr.size // batch), pct_start=0.05)
    hist_start = INPUT_SIZE - HISTORY_SIZE
    t0 = time.perf_counter()
    for epoch in range(epochs):
        net.train()
        perm = rng.permutation(tr)
        for i in range(0, perm.size - batch + 1, batch):
            r = np.sort(perm[i:i + batch])
            xb = torch.from_numpy(x[r].astype(np.float32))
            xb[torch.from_numpy(rng.random(r.size) < 0.15), hist_start:] = 0.0
            y = torch.from_numpy(label[r].astype(np.float32))
            m = torch.from_numpy(unseen[r].astype(np.float32))
            loss = (nn.functional.binary_cross_entropy_with_logits(net(xb), y, reduction="none") * m).sum() / m.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        bce, topk = held_out_metrics(net, x, label, unseen, ho)
        log(f"| {name} | {epoch + 1} | {bce:.4f} | {100 * topk:.2f}% | {time.perf_counter() - t0:.0f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--scale", type=float, default=1.5)
    parser.add_argument("--networks", default="card:3,flat:3,attention:1",
                        help="NAME:EPOCHS,... of " + ", ".join(NETWORKS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    plan = [(n.partition(":")[0], int(n.partition(":")[2] or 3)) for n in args.networks.split(",")]
    for name, _ in plan:
        if name not in NETWORKS:
            parser.error(f"unknown network {name!r}; known: {', '.join(NETWORKS)}")
    data = collect(seed=args.seed, scale=args.scale, log=lambda *a: None)
    x, label, unseen, held = data.x, data.label, data.unseen, data.held_out
    print(f"{len(data):,} decisions, {int(held.sum()):,} held out (seed {args.seed}, scale {args.scale})\n")
    print("| network | epoch | held-out BCE per unseen card | top-k share | seconds |\n|---|---:|---:|---:|---:|")
    shipped, _ = load_belief(default_belief_path())
    ho = np.sort(np.random.default_rng(0).permutation(np.flatnonzero(held))[:20000])
    bce, topk = held_out_metrics(shipped, x, label, unseen, ho)
    print(f"| shipped `belief_hollywood.pt` | - | {bce:.4f} | {100 * topk:.2f}% | - |", flush=True)
    for name, epochs in plan:
        train(name, epochs, x, label, unseen, held, log=lambda s: print(s, flush=True) if s.startswith("|") else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
