#!/usr/bin/env python3
"""Checks that a program's layers only point down, and that every function is
declared in the header of the file that defines it.

    layer-check.py ROOT OBJDIR

ROOT is a source folder (interpose, report) holding a LAYERS file: one layer
folder per line, lowest first; '#' starts a comment.  A line
    header NAME.h: a.c b.c
says that NAME.h is the interface of several files (a module split in two).

1. Layers, from the objects: every object under OBJDIR belongs to the layer
   named by its first folder (OBJDIR/state/track.o is in "state").  An
   undefined symbol of an object that another object defines in a HIGHER
   layer is an upward reference: the lower layer could not be linked or
   tested without the higher one.
2. Cycles, from the same objects: inside one layer, file A uses B when an
   undefined symbol of A.o is defined in B.o.  A cycle of such uses (A -> B
   -> C -> A) is a knot no file of which can be understood, tested or
   replaced alone; so is a pair (A -> B -> A), unless the two are declared
   one module by a 'header X.h: a.c b.c' line.  Files of one such module
   count as one node.  Each knot is printed as one line, one of its cycles.
3. Prototypes, from the sources: a function declaration (not a definition)
   must be in the file that defines the function, or in the header beside it
   with the same name (track.c -> track.h).  A prototype written anywhere
   else is a second copy of the interface, free to drift from the first.

Prints one line per violation and exits 1 if there is any; exit 2 on bad
usage or a missing LAYERS file.  Standard library only: runs wherever the
build does.
"""
import os
import re
import subprocess
import sys


def die(msg, code=2):
    print("layer-check: " + msg, file=sys.stderr)
    sys.exit(code)


def read_layers(root):
    path = os.path.join(root, "LAYERS")
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    layers, headers = [], {}
    for n, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"header\s+(\S+\.h)\s*:\s*(.+)", line)
        if m:
            headers[m.group(1)] = set(m.group(2).split())
        elif re.fullmatch(r"[A-Za-z0-9_]+", line):
            layers.append(line)
        else:
            die("%s:%d: expected a layer name or 'header X.h: a.c ...'" % (path, n))
    if not layers:
        die("%s: no layers" % path)
    return layers, headers


# ---- 1. symbols ------------------------------------------------------------

def nm(obj):
    out = subprocess.run(["nm", "-P", obj], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        die("nm %s: %s" % (obj, out.stderr.strip()))
    defined, undefined = set(), set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():  # global definitions only: locals cannot be referenced
            defined.add(name)
    return defined, undefined


def check_symbols(objdir, layers, headers):
    rank = {name: i for i, name in enumerate(layers)}
    objs = []
    for dirpath, _, files in os.walk(objdir):
        for f in files:
            if f.endswith(".o"):
                objs.append(os.path.join(dirpath, f))
    if not objs:
        die("%s: no objects (build first)" % objdir)
    problems = []
    table = {}
    info = {}
    for obj in sorted(objs):
        rel = os.path.relpath(obj, objdir)
        layer = rel.split(os.sep, 1)[0] if os.sep in rel else None
        if layer not in rank:
            problems.append("%s: not in a layer folder (LAYERS: %s)" % (rel, " ".join(layers)))
            continue
        defined, undefined = nm(obj)
        info[rel] = (layer, undefined)
        for s in defined:
            table.setdefault(s, []).append((rank[layer], rel))
    uses = {}
    for rel, (layer, undefined) in sorted(info.items()):
        for s in sorted(undefined):
            for r, where in table.get(s, []):
                if r > rank[layer]:
                    problems.append("%s (%s) uses %s, defined in %s (%s is above %s)"
                                    % (rel, layer, s, where, layers[r], layer))
                elif r == rank[layer] and where != rel:
                    uses.setdefault(rel, {}).setdefault(where, s)
    return problems + check_cycles(uses, headers)


# ---- 2. cycles inside a layer -----------------------------------------------

def module_of(headers):
    """object path (state/account.o) -> the name of the module it belongs to:
    its 'header X.h' when a LAYERS line declares one, else the object."""
    mod = {}
    for h, srcs in headers.items():
        for c in srcs:
            mod[c[:-2] + ".o"] = h[:-2]
    return mod


def strongly_connected(nodes, edges):
    """Tarjan's components of the graph, each a sorted list, iteratively."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def one_cycle(comp, edges):
    """A shortest cycle through the component's first node, as a node list."""
    members, start = set(comp), comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp + [comp[0]]


def check_cycles(uses, headers):
    mod = module_of(headers)
    node = lambda o: mod.get(o, o)
    edges, why = {}, {}
    for a, targets in uses.items():
        for b, sym in targets.items():
            na, nb = node(a), node(b)
            if na != nb:
                edges.setdefault(na, set()).add(nb)
                why.setdefault((na, nb), sym)
    nodes = set(edges) | {b for t in edges.values() for b in t}
    problems = []
    for comp in strongly_connected(nodes, edges):
        if len(comp) < 2:
            continue
        cyc = one_cycle(comp, edges)
        steps = " -> ".join("%s (%s)" % (cyc[i], why[(cyc[i], cyc[i + 1])]) for i in range(len(cyc) - 1))
        kind = "pair" if len(comp) == 2 else "cycle among %d files (%s)" % (len(comp), " ".join(comp))
        hint = (" (one module? declare it: 'header X.h: a.c b.c' in LAYERS)" if len(comp) == 2 else "")
        problems.append("call %s: %s -> %s%s" % (kind, steps, cyc[-1], hint))
    return problems


# ---- 3. prototypes ---------------------------------------------------------

def strip_source(text):
    """The text with comments, string and character literals and preprocessor
    lines blanked out (newlines kept, so line numbers stay right)."""
    out, i, n = [], 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            while i < n and text[i] != "\n":  # the directive, with continuations
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        at_line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" ")
            i = j + 1
        else:
            out.append(c)
            if c == "\n":
                at_line_start = True
            i += 1
    return "".join(out)


def matching_paren(s, j, step):
    """The index of the parenthesis that closes the group s[j] opens,
    reading forward (step 1, s[j] is "(") or backward (step -1, s[j] is
    ")"); len(s) or -1, past the end read, when none does."""
    opens, closes = ("(", ")") if step == 1 else (")", "(")
    depth = 0
    while 0 <= j < len(s):
        if s[j] == opens:
            depth += 1
        elif s[j] == closes:
            depth -= 1
            if depth == 0:
                return j
        j += step
    return j


def drop_attributes(s):
    """s without __attribute__((...)) and __asm__(...) groups."""
    while True:
        m = re.search(r"\b(__attribute__|__asm__|asm)\s*\(", s)
        if not m:
            return s
        j = matching_paren(s, m.end() - 1, 1)
        s = s[:m.start()] + " " + s[j + 1:]


def function_name(stmt):
    """The name of the function a declaration or definition head declares:
    the identifier just before its last top-level parenthesis group, which
    must end the statement.  None for anything else (variables, function
    pointers, macro calls that are not declarations)."""
    s = drop_attributes(stmt).strip()
    if not s.endswith(")") or re.match(r"typedef\b", s):
        return None
    j = matching_paren(s, len(s) - 1, -1)
    if j <= 0:
        return None
    head = s[:j].rstrip()
    if "=" in head:
        return None
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)$", head)
    if not m or m.group(1) in ("if", "while", "for", "switch", "return", "sizeof"):
        return None
    before = head[:m.start()].strip()
    if not before:  # a macro invocation at top level, not a declaration
        return None
    return m.group(1), bool(re.search(r"\bstatic\b", before))


def scan(path):
    """(definitions, declarations) of functions at file scope, each a list of
    (name, line, is_static)."""
    text = strip_source(open(path, encoding="utf-8", errors="replace").read())
    defs, decls = [], []
    depth, start, line = 0, 0, 1
    start_line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        if depth == 0 and c in ";{}":
            stmt = text[start:i]
            if c == "{":
                got = function_name(stmt)
                if got:
                    defs.append((got[0], start_line + stmt[:len(stmt) - len(stmt.lstrip())].count("\n"), got[1]))
            elif c == ";":
                got = function_name(stmt)
                if got:
                    decls.append((got[0], start_line + stmt[:len(stmt) - len(stmt.lstrip())].count("\n"), got[1]))
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        if depth == 0 and c in ";{}":
            start, start_line = i + 1, line
    return defs, decls


def check_prototypes(root, headers):
    files = []
    for dirpath, _, names in os.walk(root):
        for f in names:
            if f.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(dirpath, f), root))
    defined_in = {}
    scanned = {}
    for f in sorted(files):
        defs, decls = scan(os.path.join(root, f))
        scanned[f] = decls
        for name, _, is_static in defs:
            if not is_static:
                defined_in.setdefault(name, set()).add(f)
    problems = []
    for f, decls in sorted(scanned.items()):
        for name, line, is_static in decls:
            homes = defined_in.get(name)
            if not homes or is_static or f in homes:
                continue  # not ours (libc, CUDA), or declared where it is defined
            if f.endswith(".h"):
                if any(h[:-2] + ".h" == f for h in homes):
                    continue
                if homes & headers.get(f, set()):
                    continue
            want = " or ".join(sorted(h[:-2] + ".h" for h in homes))
            problems.append("%s:%d: prototype of %s, defined in %s: it belongs in %s"
                            % (os.path.join(root, f), line, name, ", ".join(sorted(homes)), want))
    return problems


def main(argv):
    if len(argv) != 3:
        die("usage: layer-check.py ROOT OBJDIR")
    root, objdir = argv[1], argv[2]
    layers, headers = read_layers(root)
    problems = check_symbols(objdir, layers, headers) + check_prototypes(root, headers)
    for p in problems:
        print(p)
    if problems:
        print("layer-check: %s: %d problem%s" % (root, len(problems), "" if len(problems) == 1 else "s"))
        return 1
    print("layer-check: %s: %d layers, no upward reference, no call cycle, every prototype in its header"
          % (root, len(layers)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
