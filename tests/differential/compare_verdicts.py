"""Compares safetensors-inspect's verdicts with the oracle's on every file of a folder.

Fails on any valid/invalid disagreement, and on any disagreement about the rule unless tensors
tie on data_offsets (the reference then meets them in HashMap order, which is random)."""
import collections, json, os, struct, subprocess, sys

inspect, oracle_bin, folder = sys.argv[1:4]
files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
oracle = {}
for line in subprocess.run([oracle_bin] + files, capture_output=True, text=True, check=True).stdout.splitlines():
    path, verdict = line.split('\t')
    oracle[path] = 'valid' if verdict.startswith('valid') else verdict
ours = {}
run = subprocess.run([inspect, 'check', '--json'] + files, capture_output=True, text=True)
for line in run.stdout.splitlines():
    j = json.loads(line)
    e = j['error']
    ours[j['file']] = 'valid' if j['valid'] else e['reference'] + ('(%s)' % e['tensor'] if e['reference'] == 'InvalidOffset' else '')

def tied(path):
    raw = open(path, 'rb').read()
    try:
        n = struct.unpack('<Q', raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        offsets = collections.Counter(tuple(v['data_offsets']) for k, v in header.items() if k != '__metadata__')
        return any(c > 1 for c in offsets.values())
    except Exception:
        return False

verdicts = rules = ties = 0
for f in files:
    o, u = oracle[f], ours.get(f, 'missing')
    if o == u:
        continue
    if (o == 'valid') != (u == 'valid'):
        verdicts += 1
        print('VERDICT', f, 'reference:', o, 'ours:', u)
    elif tied(f):
        ties += 1
    else:
        rules += 1
        print('RULE', f, 'reference:', o, 'ours:', u)
print('%d files: %d verdict and %d rule disagreements (%d rule differences on tied offsets, where the reference is random)'
      % (len(files), verdicts, rules, ties))
sys.exit(1 if verdicts or rules else 0)
