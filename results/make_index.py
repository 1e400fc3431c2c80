"""Writes results/README.md: an index of every folder under results/ (python results/make_index.py)."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
R = ROOT / 'results'
# folders renamed to say what they hold: their figures were made under the earlier name
RENAMED = {'results/ppo_hollywood/shipped': 'results/ppo_hollywood/v2',
           'results/ppo_hollywood/shipped_v1': 'results/ppo_hollywood/flagship',
           'results/search/base_marjj_ungated': 'results/search/final',
           'results/search/base_ppo_gated': 'results/search/gated',
           'results/search/worlds_128_vs_64': 'results/search/trials',
           'results/ppo_hollywood/no_imitation_seed0': 'results/ppo_hollywood/seed0',
           'results/ppo_hollywood/no_imitation_seed1': 'results/ppo_hollywood/seed1',
           'results/ppo_hollywood/no_imitation_seed2': 'results/ppo_hollywood/seed2',
           'results/search/single_hands/hollywood_defaults_simple_s4101': 'results/search/single_hands/def',
           'results/search/single_hands/hollywood_defaults_pool_s4101': 'results/search/single_hands/default_pool',
           'results/search/single_hands/hollywood_defaults_pool_s4202': 'results/search/single_hands/default_pool_s4202',
           'results/search/single_hands/hollywood_defaults_pool_s4303': 'results/search/single_hands/default_pool_s4303',
           'results/search/single_hands/hollywood_defaults_pool_s4404': 'results/search/single_hands/default_pool_s4404',
           'results/search/single_hands/ppo_s4101': 'results/search/single_hands/ppo',
           'results/search/single_hands/ppo_s4202': 'results/search/single_hands/ppos4202',
           'results/search/single_hands/ppo_s4303': 'results/search/single_hands/ppos4303',
           'results/search/single_hands/ppo_s4404': 'results/search/single_hands/ppos4404',
           'results/search/single_hands/ppo_s4505': 'results/search/single_hands/ppos4505',
           'results/search/single_hands/w64_prior05_conf0_s4101': 'results/search/single_hands/v1',
           'results/search/single_hands/w64_conf1_s4101': 'results/search/single_hands/v1c1',
           'results/search/single_hands/w64_conf2_s4101': 'results/search/single_hands/v1c2',
           'results/search/single_hands/w128_conf1_s4101': 'results/search/single_hands/v3',
           'results/search/single_hands/w128_conf2_s4101': 'results/search/single_hands/v5',
           'results/search/single_hands/w128_conf3_s4101': 'results/search/single_hands/v5c3',
           'results/search/single_hands/w128_conf2_knocks_s4101': 'results/search/single_hands/v5knocks',
           'results/search/single_hands/w128_conf2_s4202': 'results/search/single_hands/v5s4202',
           'results/search/single_hands/w256_conf2_s4101': 'results/search/single_hands/v6',
           'results/search/single_hands/w256_conf2_s4202': 'results/search/single_hands/v6s4202',
           'results/search/single_hands/w256_conf2_s4303': 'results/search/single_hands/v6s4303',
           'results/search/single_hands/w256_conf2_s4404': 'results/search/single_hands/v6s4404',
           'results/search/single_hands/w256_conf2_s4505': 'results/search/single_hands/v6s4505',
           'results/search/single_hands/w512_conf2_s4202': 'results/search/single_hands/v7s4202'}
DOCS = {p: p.read_text() for p in [ROOT/'README.md', *sorted((ROOT/'docs').glob('*.md')),
                                   *sorted((ROOT/'models').glob('*.md'))]}
DESC = {
 'ablations': (
     'training ablations of the PPO configs (minibatches, the single-hand baseline and '
     'privileged critic, the belief as an input, the card-plane encoder); its README.md lists '
     'the runs'),
 'benchmark': (
     'the panel of `hollywood benchmark`: its round robins and published ratings on each game '
     '(`panel_hollywood.json`, `panel_eaai.json`), each with the command that made it'),
 'belief': (
     'the learned belief over the opponent\'s hand: held-out metrics, architectures, the '
     'Bayesian posterior given a bot\'s policy'),
 'dqn_hollywood': 'the shipped `dqn-hollywood` (DQfD margin toward `marjj`): curves, a second training seed, its tournament',
 'eaai': 'the EAAI game (Gin Rummy to 100, the `eaai` preset): games to 100 between the agents, one folder per pairing',
 'eaai/search_budget': 'the search on the EAAI game by budget (worlds per decision) against `marjj`',
 'eaai/search_base': (
     'the search on the EAAI game with a PPO network (the first of `ppo-gin-rummy`, seed 0 of its recipe) as'
     ' its base policy, against `marjj`'),
 'eaai/search_opponent_style': (
     'the search on the EAAI game with opponent models chosen by the opponent\'s record, against its previous '
     'defaults and one knob at a time, against `simple` and `marjj` on two seeds'),
 'eaai/search_oracle': (
     'what the hidden cards are worth in games to 100: the search given the opponent\'s true hand or the'
     ' whole true game (experiments/research/oracle_ceiling.py, an experiment only), and the honest search'
     ' with the same knobs, against `simple` and `marjj`'),
 'eaai/search_ensemble_base': (
     'the search on the EAAI game with `ppo-gin-rummy` (two networks as one) as its base, and that base'
     ' alone, against `simple` and `marjj` on the seeds of the default\'s figures'),
 'eaai/search_ensemble_own': (
     'the search on the EAAI game with `ppo-gin-rummy` as its base and in its own seat of the rollouts,'
     ' against `marjj` on the seeds of the default\'s figures'),
 'eaai/search_ppo_base': (
     'the search on the EAAI game with the first network of `ppo-gin-rummy` as its base and in its own seat'
     ' of the rollouts,'
     ' against `simple` and `marjj` on the seeds of the default\'s figures'),
 'eaai/search_variants': (
     'the search on the EAAI game with one knob changed at a time (belief, value, base and own rollouts),'
     ' against `marjj`'),
 'ppo_gin_rummy': (
     'the EAAI-game PPO: configs/ppo_gin_rummy.yaml (500 updates) for training seeds 0 and 1 (`seed0/`,'
     ' `seed1/`: configs, metrics, evaluations, games against `search`; `ppo-gin-rummy` in their'
     ' evaluate files is that seed-0 model), the 1,800-update runs (`run_1800_seed0/`, `run_1800_seed1/`) and'
     ' the 2 x 256 runs (`wide_seed0/`, `wide_seed1/`), shipped together as `ppo-gin-rummy` (`ensemble_wide/`)'),
 'ppo_gin_rummy/more_seed0': (
     'the 128-unit 1,800-update model trained on for 450 updates (configs/ppo_gin_rummy_more.yaml): config,'
     ' metrics, evaluations against `simple` and `marjj` (no gain: not shipped)'),
 'ppo_gin_rummy/game_reward_seed0': (
     'the 128-unit 1,800-update model trained on for 300 updates with the game\'s result as reward'
     ' (configs/ppo_gin_rummy_game_reward.yaml): config, metrics, the model file and its card (2,000 games'
     ' against `simple` and `marjj`), 2,000 games against `marjj` on seed 7100003 (no gain: not shipped)'),
 'ppo_gin_rummy/run_1800_seed0': (
     'the 128-unit recipe (configs/ppo_gin_rummy_1800.yaml, seed 0, 1,800 updates): the run\'s config and'
     ' metrics, the model file and its card, 200 games against `search` on each of seeds 4301 and 4401'),
 'ppo_gin_rummy/wide_seed0': (
     'the first network of `ppo-gin-rummy`: configs/ppo_gin_rummy_wide.yaml (the EAAI recipe with 2 x 256 hidden units),'
     ' seed 0: config, metrics, the model file and its card (2,000 games against `simple` and `marjj`), 200'
     ' games against `search` on each of seeds 4301 and 4401, and its comparison with the 128-unit model'
     ' (`compare.sh`, `compare/`)'),
 'ppo_gin_rummy/wide_seed1': (
     'the second training seed of the wide recipe (configs/ppo_gin_rummy_wide.yaml, seed 1): config,'
     ' metrics, the model file and its card (2,000 games against `simple` and `marjj`), 200 games against'
     ' `search` on each of seeds 4301 and 4401, 2,000 games against `simple` and `marjj` on three more'
     ' evaluation seeds and against seed 0 (`compare/`)'),
 'ppo_gin_rummy/wide_seed2': (
     'the third training seed of the wide recipe (configs/ppo_gin_rummy_wide.yaml, seed 2): config, metrics,'
     ' the model file and its card (2,000 games against `simple` and `marjj`), and the ensembles it makes with'
     ' seeds 0 and 1 on the cards\' seed (`ensembles/`); `run.sh` makes these and the evaluations still to run'),
 'ppo_gin_rummy/style_switch': (
     'a best response to `simple` at 60,000,000 decisions from `ppo-gin-rummy` (its report, config, metrics,'
     ' the model file and its card), and `ppo-gin-rummy` handing its seat to it once the opponent\'s record'
     ' shows a knocker (`switch.py`): 2,000 games against `simple` and `marjj` on five evaluation seeds,'
     ' 200 against `search`, and `search` with the best response as its base (`run.sh`, `table.py`)'),
 'ppo_gin_rummy/ensemble_wide': (
     'the two training seeds of the wide recipe as one agent, shipped as `ppo-gin-rummy` (`run.sh` ships them):'
     ' 2,000 games against'
     ' `simple` and `marjj` on four evaluation seeds, against each member, and 200 against `search` on each'
     ' of seeds 4301 and 4401 (`run.sh`, `table.py`)'),
 'ppo_gin_rummy/run_1800_seed1': (
     'the second training seed of the 128-unit recipe (configs/ppo_gin_rummy_1800.yaml, seed 1): config,'
     ' metrics, the model file and its card (2,000 games against `simple` and `marjj`), 200 games against `search`'),
 'exploit/search': 'the search best response (`search:rollout=TARGET,knocker_rollout=TARGET`) against its target',
 'exploit/budget': (
     'best responses at 20,000,000 decisions (budget.sh) to `simple` and `marjj` on the EAAI game and to'
     ' `ppo-hollywood`, and one to `simple` rewarded by the game\'s result'),
 'ppo_gin_rummy/tune_seed0': (
     'the 128-unit 1,800-update model tuned against `simple` and `marjj` with the best response\'s update'
     ' (configs/ppo_gin_rummy_tune.yaml): config and metrics of a run stopped at update 832 (it lost strength)'),
 'exploit': (
     'approximate exploitability: a PPO best response to each agent (`hollywood exploit`), one folder'
     ' per game and target with `exploit.json` and `exploit.md`'),
 'ppo_hollywood': (
     'the PPO flagship configs: the previous config\'s three seeds, without imitation '
     '(`no_imitation_seed0`-`2`), the shipped `ppo-hollywood` (`shipped/`) and `ppo-'
     'hollywood-v1` (`shipped_v1/`), time to strength'),
 'ppo_hollywood/exploiters20m_seed0': (
     'the flagship fine-tuned with 20,000,000-decision exploiters in its league (300 updates): config,'
     ' metrics, the model file and its card, matches against the bots and `ppo-hollywood`, and best'
     ' responses at 20,000,000 decisions to it (seeds 0, 1 and 2; seed 2 made by'
     ' `exploiter_share_seed0/more_seeds.sh`) and to `ppo-hollywood` (seed 1)'),
 'ppo_hollywood/exploiter_share_seed0': (
     'the flagship fine-tuned with its exploiters sharing 40% of the games (300 updates, an exploiter'
     ' of 20,000,000 decisions every 60): config, metrics, the model file and its card, matches'
     ' against the bots, `ppo-hollywood` and `search`, best responses at 20,000,000 decisions to it'
     ' (seeds 0, 1 and 2) and to `ppo-hollywood` (seed 2), and `ppo-hollywood` against `search`;'
     ' `render.py` prints the comparison table'),
 'ppo_hollywood/exploiter_share_bots_seed0': (
     'the flagship fine-tuned with its exploiters sharing 30% of the games and the bots 55%'
     ' (configs/ppo_hollywood_exploiter_share_bots.yaml, 300 updates): config, metrics, the model file and'
     ' its card, matches against `ppo-hollywood` and `search`, best responses at 20,000,000 decisions to it'
     ' (seeds 0, 1 and 2)'),
 'ppo_hollywood/exploiter_share_seed1': (
     'the 40% exploiter share trained again with seed 1 (configs/ppo_hollywood_exploiter_share.yaml):'
     ' config, metrics, the model file and its card, matches against `ppo-hollywood` and `search`,'
     ' best responses at 20,000,000 decisions to it (seeds 0, 1 and 2)'),
 'ppo_hollywood/exploiter_share_anchor_seed0': (
     'the 40% exploiter share with a pull toward `ppo-hollywood`\'s moves (ppo.anchor, coefficient 0.5;'
     ' configs/ppo_hollywood_exploiter_share_anchor.yaml): config, metrics, the model file and its card,'
     ' matches against `ppo-hollywood`, best responses at 20,000,000 decisions to it (seeds 0 and 1)'),
 'ppo_hollywood/exploiter_share_anchor_weak_seed0': (
     'the 40% exploiter share with a weaker pull toward `ppo-hollywood`\'s moves (coefficient 0.1;'
     ' configs/ppo_hollywood_exploiter_share_anchor_weak.yaml): config, metrics, the model file and its'
     ' card, matches against `ppo-hollywood`, best responses at 20,000,000 decisions to it (seeds 0, 1 and 2)'),
 'ppo_hollywood/exploiter_share_anchor_faint_seed0': (
     'the 40% exploiter share with a faint pull toward `ppo-hollywood`\'s moves (coefficient 0.02;'
     ' configs/ppo_hollywood_exploiter_share_anchor_faint.yaml): config, metrics, the model file and its'
     ' card, matches against `ppo-hollywood`, best responses at 20,000,000 decisions to it (seeds 0, 1 and 2)'),
 'ppo_hollywood/exploiter_share_longer_seed0': (
     'the 40% exploiter share trained twice as long (300 more updates from exploiter_share_seed0\'s policy;'
     ' configs/ppo_hollywood_exploiter_share_longer.yaml): config, metrics, the model file and its'
     ' card, matches against `ppo-hollywood` and `search`, best responses at 20,000,000 decisions to it'
     ' (seeds 0, 1 and 2)'),
 'ppo_hollywood/ensemble_seeds': (
     'the Hollywood flagship\'s two training seeds as one agent (`ppo-ensemble:A+B`) beside seed 0 alone:'
     ' 2,000 matches against `simple` and `marjj` on three evaluation seeds (`run.sh`, `table.py`), best'
     ' responses of 20M decisions to the two (`exploit.sh`) and 800 matches against `search` (`vs_search.sh`)'),
 'ppo_hollywood/exploiter_share_wide_seed0': (
     'the 40% exploiter share with 2 x 256 hidden units, started from `ppo-hollywood` widened'
     ' (configs/ppo_hollywood_exploiter_share_wide.yaml): config, metrics, the model file and its'
     ' card, matches against `ppo-hollywood` and `search`, best responses at 20,000,000 decisions to it'
     ' (seeds 0, 1 and 2)'),
 'ppo_hollywood/exploiters_seed0': (
     'configs/ppo_hollywood_exploiters.yaml made short (300 updates, an exploiter every 60): config,'
     ' metrics, matches against `simple`, `marjj`, `ppo-hollywood`, and a best response to it'),
 'ppo_hollywood/shipped': (
     'the shipped `ppo-hollywood` (configs/ppo_hollywood.yaml): its run\'s config and metrics '
     '(`run/`), evaluations, a second training seed (`seed1/`)'),
 'ppo_hollywood/shipped_v1': (
     'the first flagship, shipped as `ppo-hollywood-v1` (configs/ppo_hollywood_v1.yaml): the '
     'imitation checkpoint at update 225, games against `search`, a second training seed '
     '(`seed1/`)'),
 'reward_ablation': (
     'the `hollywood` (scoresheet) reward against the `hand` reward: the scoresheet-reward '
     'models and cards, evaluations, head to head, behaviour'),
 'search': 'the `search` agent: every configuration measured, by folder',
 'search/base_marjj_ungated': (
     'the earlier default search: base `marjj`, no confidence gate, `simple` alone as the '
     'opponent model (seeds 7001-7003), and single hands'),
 'search/base_ppo_gated': (
     'search with base `ppo-hollywood-v1` and the confidence gate (1.5 standard errors), '
     '`simple` alone as the opponent model; 200-match screens'),
 'search/knocker_rollout': (
     'Hollywood matches: the search with `simple` alone against an opponent whose record shows it knocks early '
     '(`knocker_rollout=simple`), against `simple`'),
 'search/worlds_128_vs_64': '128 worlds against 64 (base `hollywood`), against the `hollywood` bot',
 'search_information': (
     'what limits search: worlds from the true hand, the learned, heuristic and uniform beliefs '
     '(experiments/research/search_information.py)'),
 'single_hands': 'single hands of `gin-rummy-simple` (the shipped single-hand PPO and the bots)',
 'tournament_bots': 'round robin of the bots',
 'tournament_search': 'round robin with the search agent',
}
def _log(*args):
    return subprocess.run(['git', 'log', '--format=%h', '-1', *args], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def commit(rel):
    """The last commit that changed the folder; for a renamed folder, the last that changed it under its
    earlier name (the rename itself changed no figure), unless it was added after the rename."""
    for new, old in RENAMED.items():
        if rel == new or rel.startswith(new + '/'):
            before = _log('--diff-filter=AM', '--', old + rel[len(new):])
            if before:
                return before + f' (as `{old + rel[len(new):]}/`)'
    return _log('--', rel) or '(not committed)'
def backs(rel):
    pages = []
    for p, t in DOCS.items():
        if re.search(re.escape(rel) + r'(?![\w-])', t):
            pages.append(str(p.relative_to(ROOT)))
    return ', '.join(f'[{q}](../{q})' for q in pages)
def command(d):
    ev = d / 'evaluate.md'
    if ev.is_file():
        lines = ev.read_text().splitlines()
        m = re.match(r'## (\S+) \(A\) vs (\S+) \(B\): (\d+) (matches|hands)', lines[0])
        s = re.search(r'rules `([^`]+)`, reward `([^`]+)`, seed (\d+)', ev.read_text())
        if m and s:
            c = f'hollywood evaluate {m[1]} {m[2]} --{m[4]} {m[3]} --seed {s[3]}'
            if s[1] != 'hollywood':
                c += f' --rules {s[1]}'
            if s[2] != 'hollywood':
                c += f' --reward {s[2]}'
            return f'`{c}`'
    for name in ('run.sh', 'flagship_run.sh'):
        if (d / name).is_file():
            return f'`{(d / name).relative_to(ROOT)}`'
    if (d / 'config.yaml').is_file():
        return 'a training run: `config.yaml` is its resolved config (`hollywood train` on it), `metrics.jsonl` its log'
    if (d / 'tournament.md').is_file() or (d / 'matrix.csv').is_file():
        return 'a round robin (`hollywood tournament`, command in its report)'
    return ''
out = ['# results/', '',
 'The reports behind the figures of the README and the documentation: each folder holds the output of',
 'the command beside it (`evaluate.md`/`evaluate.json` for `hollywood evaluate`, `run.sh` for a script that',
 'wrote the folder, `config.yaml`/`metrics.jsonl` for a training run). "Commit" is the last commit that',
 'changed the folder (`git log --format=%h -1 -- FOLDER`); "backs" lists the pages that cite the folder.',
 'A folder without a page of its own is part of its parent\'s table. Regenerate this index with',
 '`python results/make_index.py`.', '',
 '## The folders', '', '| folder | what it holds |', '|---|---|']
for d in sorted(p for p in R.iterdir() if p.is_dir()):
    out.append(f'| [`{d.name}/`]({d.name}/) | {DESC.get(d.name, "")} |')
out += ['', '## Every folder', '', '| folder | backs | command | commit |', '|---|---|---|---|']
for d in sorted(p for p in R.rglob('*') if p.is_dir()):
    rel = str(d.relative_to(ROOT))
    key = str(d.relative_to(R))
    what = DESC.get(key, '')
    cmd = command(d)
    cell = '; '.join(x for x in (what, cmd) if x)
    out.append(f'| `{key}/` | {backs(rel)} | {cell} | {commit(rel)} |')
(R / 'README.md').write_text('\n'.join(out) + '\n')
print(len(out))
