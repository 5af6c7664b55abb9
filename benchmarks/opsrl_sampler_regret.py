"""OPSRLEpisodic's two samplers side by side: `sampler='numpy'` (numpy's Gamma draws, the agent's first sampler) and
`sampler='fast'` (the default: xoshiro256++ and Marsaglia and Tsang's method, many draws side by side). Both draw the same
posterior samples in distribution; only the random stream differs, so the regrets should agree up to the seeds' noise.
With `--compare resample`: its two resampling rules instead, `resample='all'` (the paper's: every pair afresh every
episode, the default) and `resample='visited'` (the fast variant: only the pairs visited since their last draw), another
algorithm whose regret may differ.

On MDPs of the episodic-communicating benchmark (by default the largest MiniGridEmpty, a SimpleGrid and a RiverSwim), for
seeds 0..N-1 (the MDP and the agent take the seed, as in the benchmark), both samplers run `--steps` steps in `MDPLoop`
with the benchmark's log every 100 steps and Colosseum's optimality stop, with the cached default hyperparameters (J = 8,
n0 = 1). Printed per MDP and sampler, per step (final cumulative value / steps): the mean normalised behaviour regret (the
acting policy's, exact), Colosseum's normalised indicator (the reported posterior-mean policy) and the realised regret,
with the seeds' standard error, and the CPU seconds per run (`time.process_time`; a warm-up run compiles first). The last
lines give, over all (MDP, seed) cells, the mean difference fast - numpy (visited - all) of the normalised behaviour regret with a 95%
bootstrap interval (cells resampled), and the total CPU ratio.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/opsrl_sampler_regret.py [--compare sampler|resample] [--seeds 20] [--steps 30000] [--mdps NAME ...] [--csv FILE]
"""
import os, argparse
os.environ.setdefault('NUMBA_NUM_THREADS', '1')
from psrl_support_sampling import main, report   # the same comparison as the transition samplers' (this script's folder is on the path)

DEFAULT_MDPS = ('prms_4-MiniGridEmptyEpisodic', 'prms_0-SimpleGridEpisodic', 'prms_1-RiverSwimEpisodic')

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seeds', type=int, default=20); ap.add_argument('--steps', type=int, default=30_000)
    ap.add_argument('--mdps', nargs='*', default=None); ap.add_argument('--csv', default=None)
    ap.add_argument('--compare', default='sampler', choices=('sampler', 'resample'))
    a = ap.parse_args()
    name = 'OPSRLEpisodic' if a.compare == 'sampler' else 'OPSRLEpisodic/resample'
    df = main(name, a.seeds, a.steps, a.mdps or list(DEFAULT_MDPS))
    if a.csv: df.to_csv(a.csv, index=False)
    report(df, a.steps, name)
