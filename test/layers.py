#!/usr/bin/env python3
"""test/layers.py DIR... - the files of each directory read as layers: no
file calls a file that calls it back, directly or around a circle (the
brief; issue #33 item 6). A call is a global function of another file of
the same directory named with "(" after it, or taken as a pointer
("= name;"). Prints each directory's edges on failure; exits 1 on a cycle."""
import glob
import os
import re
import sys


def graph(d):
    files = sorted(glob.glob(os.path.join(d, '*.c')))
    defs = {}
    text = {}
    for f in files:
        name = os.path.basename(f)[:-2]
        s = open(f, encoding='utf-8', errors='replace').read()
        for m in re.finditer(r'^([A-Za-z_]\w*)\(', s, re.M):
            prev = s[s.rfind('\n', 0, m.start() - 1) + 1:m.start()]
            if 'static' not in prev:
                defs[m.group(1)] = name
        s = re.sub(r'/\*.*?\*/', '', s, flags=re.S)
        s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
        text[name] = s
    edges = {n: set() for n in text}
    for n, s in text.items():
        for fn, owner in defs.items():
            if owner != n and re.search(r'\b' + fn + r'\s*\(|=\s*' + fn + r'\s*;', s):
                edges[n].add(owner)
    return edges


def cycles(edges):
    def reach(a):
        seen, todo = set(), [a]
        while todo:
            for y in edges.get(todo.pop(), ()):
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return seen
    return sorted((a, b) for a in edges for b in edges[a] if a in reach(b))


bad = 0
for d in sys.argv[1:]:
    e = graph(d)
    c = cycles(e)
    print(f"layers: {d}: {len(e)} files, {sum(len(v) for v in e.values())} edges, {len(c)} in a cycle")
    if c:
        bad = 1
        for a, b in c:
            print(f"  {a}.c calls {b}.c, which reaches {a}.c again")
sys.exit(bad)
