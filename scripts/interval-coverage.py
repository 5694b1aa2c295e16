#!/usr/bin/env python3
"""Tallies scripts/interval-coverage.sh's runs two ways.

gated: the peak ratio's interval as compare gives it (none when a peak ran
on a starved load host), from OUT/coverage.tsv.
windows only: the interval the two peaks' own ops intervals give, starved
or not (ln c - ln b +- t*sqrt(se_b^2 + se_c^2), Welch-Satterthwaite degrees
of freedom, as analysis/curves computes it): how often the windows' noise
alone explains the distance to the truth. The difference between the two
is what the starved host's bias would have done to the verdicts.

    scripts/interval-coverage.py OUT
"""
import glob, json, math, os, sys

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    if df >= 120:
        return 1.96 + (1.980 - 1.96) * 120 / df
    if df > 30:
        return 2.042 - (2.042 - 1.980) * (df - 30) / 90
    i = max(1, int(df))
    return T975[i - 1]


def steps(path):
    out = {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if d.get('kind') == 'step':
                out[d['target']] = d
    return out


def side(st):
    o = (st.get('steady') or {}).get('ops') or {}
    if not (o.get('independent') and o.get('batches', 0) >= 10 and o.get('half_width_pct') is not None):
        return None
    n = o['batches']
    se = o['half_width_pct'] / 100 / t975(n - 1)
    return se, n - 1


def main(out):
    truths = {'double': 2.0, 'shards2': 2.0, 'slower': 2.0 / 3}
    tally = {}
    tsv = os.path.join(out, 'coverage.tsv')
    done = None  # the runs the shell script compared (a failed run is not)
    if os.path.exists(tsv):
        with open(tsv) as f:
            done = {line.split('\t')[0] for line in list(f)[1:]}
    for path in sorted(glob.glob(os.path.join(out, 'run-*', 'results.jsonl'))):
        if done is not None and os.path.basename(os.path.dirname(path))[4:] not in done:
            continue
        ss = steps(path)
        b = ss.get('base')
        for cand, truth in truths.items():
            c = ss.get(cand)
            if not b or not c:
                continue
            t = tally.setdefault(cand, {'n': 0, 'with': 0, 'held': 0, 'starved': 0})
            t['n'] += 1
            if any(s.get('bound') == 'client' for s in (b, c)):
                t['starved'] += 1
            sb, sc = side(b), side(c)
            if not sb or not sc:
                continue
            vb, vc = sb[0] ** 2, sc[0] ** 2
            df = (vb + vc) ** 2 / (vb * vb / sb[1] + vc * vc / sc[1]) if vb + vc > 0 else 1e9
            r = c['ops_per_s'] / b['ops_per_s']
            h = t975(df) * math.sqrt(vb + vc)
            t['with'] += 1
            if r * math.exp(-h) <= truth <= r * math.exp(h):
                t['held'] += 1
    gated = {}
    if os.path.exists(tsv):
        with open(tsv) as f:
            next(f)
            for line in f:
                run, cand, truth, r, lo, hi, held, load = line.rstrip('\n').split('\t')
                g = gated.setdefault(cand, {'n': 0, 'with': 0, 'held': 0, 'loads': []})
                g['n'] += 1
                g['loads'].append(float(load))
                if held != '-':
                    g['with'] += 1
                    g['held'] += held == '1'
    for cand in truths:
        t, g = tally.get(cand), gated.get(cand)
        if not t:
            continue
        line = f"{cand} (truth {truths[cand]:.3g}): windows only: held {t['held']} of {t['with']} with an interval ({t['n']} runs, {t['starved']} with a step labelled client)"
        if g:
            line += f"; as compare gives it: held {g['held']} of {g['with']} with an interval, {g['n'] - g['with']} without (a starved host); load average {min(g['loads']):.1f}-{max(g['loads']):.1f}"
        print(line)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'coverage-out')
