"""Round-trip between notebooks and a plain 'percent' text form, and run notebooks to keep outputs.

Notebooks in `nbs/` are the source of truth. This helper only makes editing them from a terminal
practical:

    python tools/nbsrc.py to-py  nbs/01_mdp.base.ipynb  > /tmp/x.py   # notebook -> percent text
    python tools/nbsrc.py to-nb  /tmp/x.py nbs/01_mdp.base.ipynb      # percent text -> notebook
    python tools/nbsrc.py run    nbs/01_mdp.base.ipynb                # execute, keep outputs
    python tools/nbsrc.py fill   nbs/01_mdp.base.ipynb [REV]          # execute; outputs only into cells new since REV (HEAD)

Percent text: a line `# %%` starts a code cell, `# %% [markdown]` a markdown cell whose lines
carry a leading `# `.
"""
import json, sys, os, hashlib
from pathlib import Path

def _md(lines): return [l[2:] if l.startswith('# ') else l[1:] if l.startswith('#') else l for l in lines]

def py2cells(text):
    "Split percent text into (kind, source) cells."
    cells, kind, buf = [], None, []
    for line in text.splitlines():
        if line.startswith('# %%'):
            if kind is not None: cells.append((kind, buf))
            kind, buf = ('markdown' if '[markdown]' in line else 'code'), []
        elif kind is not None: buf.append(line)
    if kind is not None: cells.append((kind, buf))
    out = []
    for k, b in cells:
        while b and not b[-1].strip(): b.pop()
        while b and not b[0].strip(): b.pop(0)
        out.append((k, '\n'.join(_md(b) if k == 'markdown' else b)))
    return out

def _src(s):
    ls = s.split('\n')
    return [l + '\n' for l in ls[:-1]] + [ls[-1]] if s else []

def _ids(cells, old):
    "Cell ids: an unchanged cell keeps its id in `old` (the notebook being replaced); others get one from their content."
    known = {}
    for c in (old or {}).get('cells', []):
        if 'id' in c: known.setdefault((c['cell_type'], ''.join(c['source'])), []).append(c['id'])
    used, out = set(), []
    for k, s in cells:
        i = next((i for i in known.get((k, s), []) if i not in used), None)
        n = 0
        while i is None or i in used:
            i = hashlib.sha1(f'{k}{n}{s}'.encode()).hexdigest()[:8]; n += 1
        used.add(i); out.append(i)
    return out

def cells2nb(cells, old=None):
    "A notebook of `cells`, keeping the ids (and outputs) of cells unchanged from `old`."
    outputs = {c.get('id'): c.get('outputs', []) for c in (old or {}).get('cells', []) if c['cell_type'] == 'code'}
    nb_cells = []
    for (k, s), i in zip(cells, _ids(cells, old)):
        c = dict(cell_type=k, id=i, metadata={}, source=_src(s))
        if k == 'code': c.update(execution_count=None, outputs=outputs.get(i, []))
        nb_cells.append(c)
    return dict(cells=nb_cells, metadata=dict(kernelspec=dict(display_name='python3', language='python', name='python3')),
                nbformat=4, nbformat_minor=5)

def nb2py(nb):
    parts = []
    for c in nb['cells']:
        s = ''.join(c['source'])
        if c['cell_type'] == 'markdown':
            parts.append('# %% [markdown]\n' + '\n'.join(('# ' + l) if l else '#' for l in s.split('\n')))
        else: parts.append('# %%\n' + s)
    return '\n\n'.join(parts) + '\n'

def _executed(path):
    "The notebook at `path` executed in its own folder, with its outputs (stops on the first error)."
    from execnb.nbio import read_nb
    from execnb.shell import CaptureShell
    nb = read_nb(path)
    cwd = os.getcwd(); os.chdir(path.parent)
    os.environ.setdefault('IN_TEST', '1')
    try: CaptureShell(mpl_format='png').run_all(nb, exc_stop=True)
    finally: os.chdir(cwd)
    return nb

def run_nb(path):
    "Execute a notebook in its own folder and write it back with outputs (stops on the first error)."
    from execnb.nbio import write_nb
    path = Path(path).absolute()
    write_nb(_executed(path), path)

def fill_nb(path, rev='HEAD'):
    "Execute a notebook (IN_TEST=1 unless set) and write outputs only into the code cells whose ids are not in `rev`'s version."
    import subprocess
    from execnb.nbio import read_nb, write_nb
    path = Path(path).absolute()
    rel = subprocess.run(['git', 'ls-files', '--full-name', str(path)], capture_output=True, text=True, cwd=path.parent).stdout.strip()
    old = subprocess.run(['git', 'show', f'{rev}:{rel}'], capture_output=True, text=True, cwd=path.parent) if rel else None
    known = {c.get('id') for c in json.loads(old.stdout)['cells']} if old is not None and old.returncode == 0 else set()
    keep = {c['id']: c.get('outputs', []) for c in read_nb(path).cells if c.cell_type == 'code' and c.get('id') in known}
    nb = _executed(path)
    for c in nb.cells:
        if c.get('id') in keep: c['outputs'] = keep[c['id']]
    write_nb(nb, path)
    return sum(c.cell_type == 'code' and c.get('id') not in known for c in nb.cells)

if __name__ == '__main__':
    cmd, *args = sys.argv[1:]
    if cmd == 'to-py': sys.stdout.write(nb2py(json.loads(Path(args[0]).read_text())))
    elif cmd == 'to-nb':
        target = Path(args[1])
        old = json.loads(target.read_text()) if target.exists() else None
        target.write_text(json.dumps(cells2nb(py2cells(Path(args[0]).read_text()), old), indent=1) + '\n')
    elif cmd == 'run':
        for p in args: run_nb(p); print('ran', p)
    elif cmd == 'fill': print('filled', fill_nb(*args), 'new code cells of', args[0])
    else: raise SystemExit(f'unknown command {cmd!r}')
