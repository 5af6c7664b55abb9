"""Process every notebook as `nbdev_proc_nbs` does for `nbdev_docs` (a gate of tools/run_tests.sh), without Quarto.

    python tools/proc_nbs.py            # exit 1 if a notebook fails to process
    python tools/proc_nbs.py --strict   # ... or if a cell mixes imports with other code

`nbdev_proc_nbs` first makes sure Quarto is installed (installing it otherwise), then runs nbdev's docs processors
(`nbdev.processors.FilterDefaults`) over every notebook into `_proc/`, executing the cells that export, import or
call `show_doc`. This script runs the same processors on the same notebooks, from the repository root as the GitHub
workflow does, with `IN_TEST=1` as nbdev sets it, but writes into a temporary folder (nothing in the tree changes) and
names the notebook and cell of every failure and of every cell nbdev warns about ("Found cells containing imports and
other code": such a cell is executed for the docs, and fails there when its other code needs a test cell).
"""
import concurrent.futures as cf, multiprocessing as mp, os, re, sys, tempfile, time, warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/'nbs'

def notebooks():
    res = []
    for p in sorted(NBS.rglob('*.ipynb')):
        rel = p.relative_to(NBS)
        if any(part.startswith(('_', '.')) for part in rel.parts) or 'checkpoint' in p.name: continue
        res.append(p)
    return res

def _cell_of(nb_path, source):
    "Index of the cell whose source is `source` (for the warnings, which give only the source)."
    import json
    def code(s): return '\n'.join(l for l in s.strip().split('\n') if not l.lstrip().startswith('#|')).strip()
    cells = json.loads(Path(nb_path).read_text())['cells']
    for i, c in enumerate(cells):
        if code(''.join(c['source'])) == code(source): return i
    for i, c in enumerate(cells):
        if code(source) and code(source) in ''.join(c['source']): return i
    return '?'

def process(args):
    "Process one notebook as nbdev's docs driver does; (notebook, error or None, [mixed-import cell indices])."
    src, out_dir = args
    os.chdir(ROOT)
    os.environ['IN_TEST'] = '1'
    from nbdev.processors import FilterDefaults
    from execnb.nbio import read_nb, write_nb
    err, mixed = None, []
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        try:
            nb = read_nb(src)
            FilterDefaults()(nb)
            write_nb(nb, Path(out_dir)/Path(src).relative_to(NBS).as_posix().replace('/', '__'))
        except BaseException as e:  # noqa: BLE001 - report, whatever it is
            lines = str(e).split('\n')
            msg = lines[0] + (f' {lines[1].strip()!r}' if len(lines) > 1 and lines[1].strip() else '')
            cause = e.__cause__
            if cause is not None: msg += f' -> {type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ""}'
            err = msg
    for w in ws:
        m = re.search(r'Found cells containing imports and other code\. See FAQ\.\n---\n(.*)\n---', str(w.message), re.S)
        if m: mixed.append(_cell_of(src, m.group(1)))
    return str(Path(src).relative_to(ROOT)), err, mixed

def main(argv):
    strict = '--strict' in argv
    t0, nbs = time.time(), notebooks()
    failed = warned = 0
    with tempfile.TemporaryDirectory() as out, \
            cf.ProcessPoolExecutor(max_workers=int(os.environ.get('PROC_NBS_WORKERS', 2)), mp_context=mp.get_context('fork')) as ex:
        # by module name, not `__main__`: IPython's shell in a worker replaces `sys.modules['__main__']`
        import proc_nbs
        for name, err, mixed in ex.map(proc_nbs.process, [(str(p), out) for p in nbs]):
            if err: failed += 1; print(f'FAIL {name}: {err}')
            for i in mixed:
                warned += 1
                print(f'{"FAIL" if strict else "WARN"} {name} cell {i}: imports mixed with other code (nbdev executes it for the docs)')
    print(f'nbdev docs processing: {len(nbs)} notebooks, {failed} failed, {warned} cells mixing imports and code, {time.time() - t0:.0f} s')
    return 1 if failed or (strict and warned) else 0

if __name__ == '__main__': sys.exit(main(sys.argv[1:]))
