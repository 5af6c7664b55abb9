"""Generate README.md from the home page, nbs/index.ipynb (README.md is never edited by hand).

    python tools/make_readme.py           # write README.md
    python tools/make_readme.py --check   # exit 1, with a diff summary, when README.md is not what this writes

Quarto (which `nbdev_readme` needs) is not available everywhere, so this renders the notebook itself, as nbdev does:
markdown cells as they are; code cells as ```python fences followed by their kept text outputs (stream and
text/plain results) in plain fences; cells with `#| hide` or `#| include: false` are dropped, `#| echo: false` keeps
only the outputs, `#| output: false` only the code, and `#|` directive lines are stripped. Relative links and images,
written for the notebook in `nbs/`, are rewritten for a README at the repository root: a link to a notebook points at its
page on the docs site (`doc_host` + `doc_baseurl` of settings.ini, number prefix dropped as nbdev does), any other
relative path is re-based on the root.
"""
import configparser, difflib, json, posixpath, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = 'nbs'
HEADER = ('<!-- Generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, then run '
          '`python tools/make_readme.py`. -->\n\n')

def settings():
    cp = configparser.ConfigParser(); cp.read(ROOT/'settings.ini')
    return cp['DEFAULT']

def site_url():
    s = settings()
    return s['doc_host'].rstrip('/') + '/' + s['doc_baseurl'].strip('/')

def page_url(nb_rel):
    "The docs-site page of a notebook given by its path relative to nbs/ (nbdev's `_nbpath2html`)."
    d, name = posixpath.split(nb_rel)
    name = re.sub(r'^\d+[a-zA-Z0-9]*_', '', name.lower())
    name = re.sub(r'\.(ipynb|md|qmd|html)$', '', name) + '.html'
    return f"{site_url()}/{posixpath.join(d, name) if d else name}"

_LINK = re.compile(r'(!?\[(?:[^\[\]]|\[[^\]]*\])*\]\()([^)\s]+)((?:\s+"[^"]*")?\))')
_ABS = re.compile(r'^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|#|/)')

def rebase(target):
    "A link target written from nbs/ (the notebook's folder), rewritten for README.md at the root."
    if _ABS.match(target): return target
    path, _, frag = target.partition('#')
    norm = posixpath.normpath(posixpath.join(NBS, path))
    if path.endswith('.ipynb') and norm.startswith(NBS + '/'):
        return page_url(norm[len(NBS) + 1:]) + (f'#{frag}' if frag else '')
    return norm + (f'#{frag}' if frag else '')

def rewrite_links(md):
    out, fence = [], False
    for line in md.split('\n'):
        if line.lstrip().startswith('```'): fence = not fence
        out.append(line if fence else _LINK.sub(lambda m: m.group(1) + rebase(m.group(2)) + m.group(3), line))
    return '\n'.join(out)

_DIRECTIVE = re.compile(r'^\s*#\|\s*(.*?)\s*$')

def directives(src):
    "The `#|` directives of a cell (name -> value) and its source without them."
    d, rest = {}, []
    for line in src.split('\n'):
        m = _DIRECTIVE.match(line)
        if m:
            k, v = re.match(r'([\w-]+)\s*:?\s*(.*)', m.group(1)).groups() if m.group(1) else ('', '')
            d[k.lower()] = v.lower()
        else: rest.append(line)
    return d, '\n'.join(rest).strip('\n')

def text_outputs(cell):
    res = []
    for o in cell.get('outputs', []):
        if o.get('output_type') == 'stream' and o.get('name') == 'stdout': res.append(''.join(o['text']))
        elif o.get('output_type') in ('execute_result', 'display_data') and 'text/plain' in o.get('data', {}) \
                and not any(k.startswith('image/') or k == 'text/html' for k in o['data']):
            res.append(''.join(o['data']['text/plain']) + '\n')
    return ''.join(res).rstrip('\n')

def cell_md(cell):
    src = ''.join(cell['source'])
    if cell['cell_type'] == 'markdown': return rewrite_links(src.strip('\n'))
    if cell['cell_type'] != 'code': return None
    d, code = directives(src)
    if 'hide' in d or d.get('include') == 'false' or 'exporti' in d or not (code or cell.get('outputs')): return None
    parts = []
    if code and d.get('echo') != 'false': parts.append(f'```python\n{code}\n```')
    out = text_outputs(cell)
    if out and d.get('output') != 'false': parts.append(f'```\n{out}\n```')
    return '\n\n'.join(parts) or None

def render(nb_path=None):
    nb = json.loads(Path(nb_path or ROOT/NBS/'index.ipynb').read_text())
    blocks = [b for b in map(cell_md, nb['cells']) if b]
    return HEADER + '\n\n'.join(blocks) + '\n'

def main(argv):
    text, readme = render(), ROOT/'README.md'
    if '--check' in argv:
        old = readme.read_text() if readme.exists() else ''
        if old == text: return 0
        diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), 'README.md', 'tools/make_readme.py output', n=0, lineterm=''))
        changed = sum(1 for l in diff if l[:1] in '+-' and l[:3] not in ('+++', '---'))
        print(f"README.md differs from what tools/make_readme.py generates from nbs/index.ipynb ({changed} lines); "
              f"run `python tools/make_readme.py`")
        for l in diff[2:22]: print('  ' + l[:160])
        if len(diff) > 22: print(f'  ... ({len(diff) - 22} more diff lines)')
        return 1
    readme.write_text(text)
    print(f'wrote README.md ({text.count(chr(10))} lines)')
    return 0

if __name__ == '__main__': sys.exit(main(sys.argv[1:]))
