"""The docs check that runs without Quarto (a gate of tools/run_tests.sh): one line per problem, exit 1 if any.

    python tools/check_docs.py

Checks:
- every notebook under nbs/ (not `_*`, not in `_*`/`.*` folders or checkpoints) appears exactly once in
  nbs/sidebar.yml (as a page or as a section's `href`), and everything the sidebar and the navbar of nbs/_quarto.yml
  name exists;
- no two notebooks share a number prefix or a title, and every notebook has a `# Title`;
- every relative link and image in every markdown cell of every notebook and in README.md resolves (http(s), mailto
  and pure `#anchor` links are not followed, except links into this project's docs site or GitHub repository, which
  must name a page or file that exists); from a notebook, `foo.ipynb`, `foo.html` or `foo.md` resolves when the notebook
  `foo.ipynb` exists (with or without its number prefix, as nbdev names pages);
- README.md is what `python tools/make_readme.py` generates from nbs/index.ipynb;
- the root `_quarto.yml`, where it exists, is the same as nbs/_quarto.yml; CITATION.cff's version is settings.ini's;
- no saved output of a notebook shows an absolute path of the machine that ran it (`/work/...`, `/tmp/...`, `/home/...`,
  `C:\\...`, `file:///...`, a virtual environment's python or `site-packages`): print paths relative to a working folder;
- every repository file a notebook cites in backticks (markdown cells, docstrings and comments), such as `tools/x.py`,
  `benchmarks/foo.py` or `DEVELOPERS.md`, exists: a path whose first folder is a folder of the repository must resolve
  from the repository root, the notebook's folder or `benchmarks/`; a bare name ending in .md or .ipynb must be the name
  of a file of the repository (a bare `x.py` may be another project's file, and a path under another folder, such as
  `logs/...` or `colosseum/...`, is a results folder or another repository: neither is checked; nor are tokens with
  placeholders such as `<name>`, `{x}` or `*`);
- no markdown cell reads as a work log (`this session`, `yesterday`, `I tried`, ...).
"""
import json, os, posixpath, re, sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/'nbs'
sys.path.insert(0, str(ROOT/'tools'))
import make_readme  # noqa: E402

# Notebooks intentionally kept out of the sidebar (none: package pages are their section's `href`).
EXCLUDE_FROM_SIDEBAR = set()

_PREFIX = re.compile(r'^(\d+[a-zA-Z0-9]*)_')

def notebooks():
    "Notebooks under nbs/, as paths relative to nbs/ (posix)."
    res = []
    for p in sorted(NBS.rglob('*.ipynb')):
        rel = p.relative_to(NBS)
        if any(part.startswith(('_', '.')) for part in rel.parts) or 'checkpoint' in p.name: continue
        res.append(rel.as_posix())
    return res

def sidebar_entries(node, out):
    "Every page a sidebar (sub)tree names: strings, `href`s and `file`s."
    if isinstance(node, str): out.append(node)
    elif isinstance(node, list):
        for n in node: sidebar_entries(n, out)
    elif isinstance(node, dict):
        for k in ('href', 'file'):
            if isinstance(node.get(k), str): out.append(node[k])
        if 'contents' in node: sidebar_entries(node['contents'], out)
    return out

def check_sidebar(nbs, problems):
    path = NBS/'sidebar.yml'
    if not path.exists(): return problems.append('nbs/sidebar.yml: missing')
    try: side = yaml.safe_load(path.read_text())['website']['sidebar']
    except Exception as e: return problems.append(f'nbs/sidebar.yml: not a sidebar ({e})')
    entries = sidebar_entries(side.get('contents', []) if isinstance(side, dict) else side, [])
    seen = {}
    for e in entries: seen[e] = seen.get(e, 0) + 1
    for e, n in seen.items():
        if n > 1: problems.append(f'nbs/sidebar.yml: {e} listed {n} times')
        if not _is_url(e) and not (NBS/e).exists(): problems.append(f'nbs/sidebar.yml: {e} does not exist')
    for nb in nbs:
        if nb not in seen and nb not in EXCLUDE_FROM_SIDEBAR: problems.append(f'nbs/sidebar.yml: {nb} missing')
    cfg = (ROOT/'settings.ini').read_text()
    if not re.search(r'^custom_sidebar\s*=\s*True\s*$', cfg, re.M):
        problems.append('settings.ini: custom_sidebar must be True, or nbdev_docs overwrites nbs/sidebar.yml')

def check_navbar(problems):
    q = NBS/'_quarto.yml'
    try: nav = yaml.safe_load(q.read_text())['website']['navbar']
    except Exception as e: return problems.append(f'nbs/_quarto.yml: no navbar ({e})')
    for side in ('left', 'right'):
        for item in nav.get(side, []) or []:
            h = item.get('href', '') if isinstance(item, dict) else item
            if h and not _is_url(h) and not (NBS/h).exists(): problems.append(f'nbs/_quarto.yml: navbar link {h} does not exist')
    rq = ROOT/'_quarto.yml'
    if rq.exists() and rq.read_text() != q.read_text():
        problems.append('_quarto.yml: differs from nbs/_quarto.yml (nbdev uses nbs/_quarto.yml; keep the copy the same)')

def title(nb):
    for c in nb['cells']:
        if c['cell_type'] == 'markdown':
            m = re.search(r'^#\s+(.+?)\s*$', ''.join(c['source']), re.M)
            return m.group(1) if m else None
        if c['cell_type'] == 'raw':
            m = re.search(r'^title:\s*"?(.+?)"?\s*$', ''.join(c['source']), re.M)
            if m: return m.group(1)
    return None

def check_names(nbs, loaded, problems):
    prefixes, titles = {}, {}
    for nb in nbs:
        name = posixpath.basename(nb)
        m = _PREFIX.match(name)
        if m and '/' not in nb: prefixes.setdefault(m.group(1), []).append(nb)
        t = title(loaded[nb])
        if t is None: problems.append(f'nbs/{nb}: no `# Title` in its first markdown cell')
        else: titles.setdefault(t.lower(), []).append(nb)
    for p, l in prefixes.items():
        if len(l) > 1: problems.append(f'number prefix {p} shared by {", ".join(l)}')
    for t, l in titles.items():
        if len(l) > 1: problems.append(f'title "{t}" shared by {", ".join(l)}')

_INLINE = re.compile(r'(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+["\'][^)]*["\'])?\s*\)')
_REFDEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
_HTML = re.compile(r'<(?:img|a|source)\b[^>]*?\b(?:src|href)\s*=\s*["\']([^"\']+)["\']', re.I)

def links(md):
    "Link and image targets of a markdown text, outside code fences, inline code and LaTeX math."
    res, fence = [], None
    md = re.sub(r'\$\$.*?\$\$', '', md, flags=re.S)
    for line in md.split('\n'):
        s = line.lstrip()
        m = re.match(r'(`{3,}|~{3,})', s)
        if m:
            if fence is None: fence = m.group(1)[0]
            elif m.group(1)[0] == fence: fence = None
            continue
        if fence: continue
        line = re.sub(r'(`+)(?:(?!\1).)+\1', '', line)
        line = re.sub(r'(?<![\\$])\$(?!\s)[^$]+?(?<![\s\\])\$', '', line)
        res += [m.group(3) for m in _INLINE.finditer(line)]
        res += [m.group(1) for m in _REFDEF.finditer(line)]
        res += _HTML.findall(line)
    return [t for t in res if t]

def _is_url(t): return bool(re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', t)) or t.startswith('//')

def _page_exists(rel):
    "Does a docs page `rel` (relative to nbs/, .ipynb/.html/.md/.qmd) come from a notebook or file in nbs/?"
    rel = posixpath.normpath(rel)
    base, ext = posixpath.splitext(rel)
    if (NBS/rel).exists() and ext not in ('.html',): return True
    if ext not in ('.ipynb', '.html', '.md', '.qmd', ''): return False
    d, stem = posixpath.split(base)
    folder = NBS/d
    if not folder.is_dir(): return False
    if stem in ('', 'index') and ext in ('.html', ''): return (folder/'index.ipynb').exists() or not stem
    for f in folder.iterdir():
        if f.suffix in ('.ipynb', '.qmd', '.md') and (f.stem == stem or _PREFIX.sub('', f.stem).lower() == stem.lower()):
            return True
    return False

def resolves(target, src_dir, in_nbs):
    "None if `target` (a link in a file in `src_dir`) resolves, else a reason."
    if target.startswith('#'): return None
    site, git = make_readme.site_url(), make_readme.settings()['git_url'].rstrip('/')
    if target.startswith(site + '/') or target == site:
        page = target[len(site):].lstrip('/').split('#')[0].split('?')[0] or 'index.html'
        return None if _page_exists(page) else f'no notebook makes the docs page {page}'
    m = re.match(re.escape(git) + r'/(?:blob|tree)/[^/]+/(.+?)(?:#.*)?$', target)
    if m: return None if (ROOT/m.group(1)).exists() else f'{m.group(1)} is not in the repository'
    if _is_url(target): return None
    path = target.split('#')[0].split('?')[0]
    if not path: return None
    full = (src_dir/path).resolve()
    if in_nbs:
        try: rel = full.relative_to(NBS.resolve()).as_posix()
        except ValueError: rel = None
        if rel is not None and _page_exists(rel): return None
    if full.exists(): return None
    return 'does not resolve'

def check_links(nbs, loaded, problems):
    for nb in nbs:
        src_dir = (NBS/nb).parent
        for i, c in enumerate(loaded[nb]['cells']):
            if c['cell_type'] != 'markdown': continue
            for t in links(''.join(c['source'])):
                why = resolves(t, src_dir, True)
                if why: problems.append(f'nbs/{nb} cell {i}: link {t} {why}')
    readme = ROOT/'README.md'
    if readme.exists():
        for t in links(readme.read_text()):
            why = resolves(t, ROOT, False)
            if why: problems.append(f'README.md: link {t} {why}')

def check_readme(problems):
    readme = ROOT/'README.md'
    if not readme.exists() or readme.read_text() != make_readme.render():
        problems.append('README.md: not what tools/make_readme.py generates from nbs/index.ipynb (run `python tools/make_readme.py`)')

def check_citation(problems):
    cff, lic = ROOT/'CITATION.cff', ROOT/'LICENSE'
    if not lic.exists(): problems.append('LICENSE: missing')
    if not cff.exists(): return problems.append('CITATION.cff: missing')
    try: v = str(yaml.safe_load(cff.read_text()).get('version'))
    except Exception as e: return problems.append(f'CITATION.cff: not YAML ({e})')
    if v != make_readme.settings()['version']: problems.append(f"CITATION.cff: version {v}, settings.ini says {make_readme.settings()['version']}")

# Absolute paths of a machine in saved outputs. A POSIX root folder that starts a path (not preceded by a word character,
# `.`, `~`, `/` or `:`, so that `https://host/home/x`, `a/b` and `x/tmp/y` do not match), a Windows drive, a local file
# URL, a virtual environment's python, or an installed package's folder. `#!/usr/bin/env` (a shebang) is not a machine path.
_ABS_PATH = re.compile(
    r'(?<![\w.~/:-])/(?:work|tmp|home|root|usr|opt|var|private|Users|mnt|srv|scratch|gpfs|nfs)(?![\w.-])(?!/bin/env\b)[^\s\'"<>)\]]*'
    r'|(?<![\w])[A-Za-z]:\\\\?[\w.$-]+'
    r'|file:///[^\s\'"<>]*'
    r'|[\w./-]*\bvenv/bin/python[\w.]*'
    r'|[\w./-]*site-packages/[^\s\'"<>]*')

def abs_paths(text):
    "The absolute paths of a machine that `text` shows."
    return [m.group(0) for m in _ABS_PATH.finditer(text)]

def _output_text(o):
    "The text a saved output shows (stream, displayed or returned values as text, html, markdown or latex, tracebacks)."
    parts = [o.get('text', '')]
    for k, v in (o.get('data') or {}).items():
        if k.startswith('text/') or k.endswith(('json', 'javascript')): parts.append(v if isinstance(v, str) else ''.join(v) if isinstance(v, list) else str(v))
    parts += o.get('traceback', []) or []
    return '\n'.join(p if isinstance(p, str) else ''.join(p) for p in parts)

def check_output_paths(nbs, loaded, problems):
    for nb in nbs:
        for i, c in enumerate(loaded[nb]['cells']):
            for o in c.get('outputs', []) or []:
                for line in _output_text(o).split('\n'):
                    hits = abs_paths(line)
                    if hits:
                        problems.append(f'nbs/{nb} cell {i}: output shows the machine path {hits[0]!r} in {line.strip()[:160]!r} '
                                        '(print paths relative to a working folder)')
                        break

# Backticked file names: no spaces, a known extension; placeholders and wildcards are not citations of one file.
_CITED = re.compile(r'`([^`\s]+\.(?:py|md|csv|ipynb|yml|yaml|sh|txt|gin))`')
_PLACEHOLDER = re.compile(r'[<>{}*?$%\[\]|]|://')
_BARE_CHECKED = ('.md', '.ipynb')   # documents of this repository; a bare `x.py` is often another project's file
_SKIP_DIRS = {'.git', '.venv', '_docs', '_proc', '__pycache__', '.ipynb_checkpoints', '.nbsrc', '.pytest_cache', '.cache',
              '_loop_cache', 'build', 'dist'}

def repo_files():
    "(top-level folders, base names of every file) of the repository, without virtual environments, caches and builds."
    tops, names = set(), set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.endswith('.egg-info') and 'venv' not in d]
        if Path(dirpath) == ROOT: tops = set(dirnames)
        names.update(filenames)
    return tops, names

def _cell_citations(c):
    "Backticked file names a cell cites: anywhere in a markdown cell; in a code cell, in its comments and strings."
    src = ''.join(c['source'])
    if c['cell_type'] == 'code': src = '\n'.join(l for l in src.split('\n') if '#' in l or '"' in l or "'" in l)
    return [m.group(1) for m in _CITED.finditer(src)]

def cited_missing(token, nb_dir, tops, names):
    "None if the backticked `token`, cited by a notebook in `nb_dir`, is a file of the repository or not a citation of one; else a reason."
    if _PLACEHOLDER.search(token): return None
    t = token[2:] if token.startswith('./') else token
    if '/' not in t:
        if not t.endswith(_BARE_CHECKED) or t in names or (nb_dir/t).exists(): return None
        return 'is not a file of the repository'
    first = t.split('/')[0]
    if first == '..':
        return None if (nb_dir/t).exists() else 'does not resolve from the notebook\'s folder'
    if first not in tops and not (nb_dir/first).is_dir(): return None   # a folder of something else (a results folder, Colosseum's repository)
    for base in (ROOT, nb_dir, ROOT/'benchmarks'):
        if (base/t).exists(): return None
    return 'is not in the repository'

def check_cited_files(nbs, loaded, problems):
    tops, names = repo_files()
    for nb in nbs:
        nb_dir = (NBS/nb).parent
        for i, c in enumerate(loaded[nb]['cells']):
            if c['cell_type'] not in ('markdown', 'code'): continue
            for t in dict.fromkeys(_cell_citations(c)):
                why = cited_missing(t, nb_dir, tops, names)
                if why: problems.append(f'nbs/{nb} cell {i}: cites `{t}`, which {why}')

_WORK_LOG = re.compile(r'\bthis session\b|\bearlier session\b|\btoday\b|\byesterday\b|\bmy machine\b|\bI (?:tried|ran|measured)\b', re.I)

def check_work_log(nbs, loaded, problems):
    for nb in nbs:
        for i, c in enumerate(loaded[nb]['cells']):
            if c['cell_type'] != 'markdown': continue
            m = _WORK_LOG.search(''.join(c['source']))
            if m: problems.append(f'nbs/{nb} cell {i}: reads as a work log ({m.group(0)!r}); docs say what is, not what happened in a session')

_READER_FOLDERS = ('tutorials/', 'explanations/', 'benchmarks/', 'getting_started/')

def check_test_switches(nbs, loaded, problems):
    "A reader copies the visible code of a tutorial or a docs page: the short version CI runs is switched in hidden cells only."
    for nb in nbs:
        if not nb.startswith(_READER_FOLDERS): continue
        for i, c in enumerate(loaded[nb]['cells']):
            src = ''.join(c['source'])
            if c['cell_type'] == 'code' and re.search(r'\bin_test\b', src) and not re.match(r'\s*#\|\s*hide\b', src):
                problems.append(f'nbs/{nb} cell {i}: `in_test` in a visible code cell; switch the test settings in a hidden (`#| hide`) cell')

def main():
    problems = []
    nbs = notebooks()
    loaded = {nb: json.loads((NBS/nb).read_text()) for nb in nbs}
    check_sidebar(nbs, problems)
    check_navbar(problems)
    check_names(nbs, loaded, problems)
    check_links(nbs, loaded, problems)
    check_readme(problems)
    check_citation(problems)
    check_output_paths(nbs, loaded, problems)
    check_cited_files(nbs, loaded, problems)
    check_work_log(nbs, loaded, problems)
    check_test_switches(nbs, loaded, problems)
    for p in problems: print(p)
    if not problems: print(f'docs check: {len(nbs)} notebooks, sidebar, titles, links, README, output paths, cited files and test switches all fine')
    return 1 if problems else 0

if __name__ == '__main__': sys.exit(main())
