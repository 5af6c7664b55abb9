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
- the root `_quarto.yml`, where it exists, is the same as nbs/_quarto.yml; CITATION.cff's version is settings.ini's.
"""
import json, posixpath, re, sys
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
    for p in problems: print(p)
    if not problems: print(f'docs check: {len(nbs)} notebooks, sidebar, titles, links and README all fine')
    return 1 if problems else 0

if __name__ == '__main__': sys.exit(main())
