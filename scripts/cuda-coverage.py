#!/usr/bin/env python3
"""Every CUDA entry point that can allocate, free, map, import, load or tear
down memory is either hooked by libgpuleak or listed, with a reason, in
docs/interception.md.  Reads the toolkit's cuda.h and cuda_runtime_api.h, so
the next CUDA release's additions show up here as a failure, not a silent gap.

usage: cuda-coverage.py CUDA_INCLUDE_DIR HOOK_LIST_H INTERCEPTION_MD [LIBGPULEAK_SO]
       (--list instead of checking: print each entry point and why it is caught)
       cuda-coverage.py --rows HOOK_LIST_H FC_PROCADDR_C DRIVER_PATHS_C INTERCEPTION_MD

--rows checks the rows a new driver hook needs besides its hook: each
hooked driver name is a function of fakecuda's cuGetProcAddress table
(tools/fakecuda/fc_procaddr.c), unless the request table of
docs/interception.md says its base name is "not in fakecuda"; and each
hooked driver allocation (ALLOC_HOOK: cuMem*Alloc*, the array and VMM
creates, host registration) has its case in tests/programs/driver_paths.c,
reached by dlsym of the hooked name (SYM), by cuGetProcAddress of the base
name (Q) and by cudaGetDriverEntryPoint (E), so that t_paths_driver runs it
through every path.

An entry point is "memory-relevant" when either rule catches it:

1. By name (FAMILIES below): the verbs CUDA names memory lifetimes with
   (Alloc, Malloc, Free, Map/Unmap, Import, Register/Unregister, Load/Unload,
   Reset, Retain/Release, Reserve, Trim, IpcOpen/IpcClose, Detach), the
   memory-owning families (MemPool, Multicast, GreenCtx, graph memory
   nodes and what runs them), and Create/Destroy of objects that hold
   memory (arrays, contexts, pools, VMM handles, external memory, graphs).
2. By documentation: the doxygen \\brief of the declaration says it
   allocates, frees, destroys, releases, maps, imports, loads, unloads,
   resets, reserves or registers something (DOC_VERBS).  This catches a new
   entry point whose name follows no family above.

Names are checked at their ABI name (cuMemAlloc -> cuMemAlloc_v2, as the
header's #defines say), plus the older ABI versions the header still declares
for the driver's exports (cuMemAlloc, cuDevicePrimaryCtxReset v1...), since a
runtime can ask cuGetProcAddress for those.

"Hooked" means named in interpose/resolve/hook_list.h and, when LIBGPULEAK_SO is
given, exported by it (nm -D): the list feeds the dlsym and cuGetProcAddress
paths, the export the dynamic linker's.

It fails when a caught name is neither hooked nor listed, when a listed name
is hooked (a stale entry: the list must say what is NOT intercepted), when a
listed name is in neither header (a typo, or an entry point CUDA removed), or
when a listed name has no reason.
"""
import os
import re
import subprocess
import sys

FAMILIES = [
    ("alloc", r"Alloc(?!ation)|Malloc"),
    ("free", r"Free"),
    ("map", r"(?<!Tensor)Map|Unmap"),  # a tensor map is a TMA descriptor, no memory
    ("import", r"Import"),
    ("ipc", r"IpcOpen|IpcClose"),
    ("register", r"Register|Unregister"),
    ("load", r"Load|Unload"),
    ("reset", r"Reset"),
    ("retain/release", r"Retain|Release"),
    ("reserve", r"Reserve"),
    ("trim", r"Trim"),
    ("detach", r"Detach"),
    ("mempool", r"MemPool"),
    ("multicast", r"Multicast"),
    ("green context", r"GreenCtx(Create|Destroy)|FromGreenCtx"),
    ("graph memory", r"GraphMemAttribute|GraphMemTrim|Graph(Add)?Mem(Alloc|Free)Node|GraphAddNode|"
                     r"GraphInstantiate|GraphLaunch"),
    ("create/destroy of a memory owner",
     r"^cu(da)?(Mem|Array|Array3D|MipmappedArray|Ctx|ExternalMemory|Graph|GraphExec)(Create|Destroy)"
     r"|^cuda(Destroy|Create)ExternalMemory"),
]

# The verb must be among the brief's first three words ("Allocates device
# memory", "Tries to release memory back", "Destroy all allocations"), so a
# noun later in a sentence ("Create a tensor map descriptor") does not count.
DOC_VERBS = re.compile(
    r"^(\S+\s+){0,2}(allocates?|frees?|destroys?|releases?|maps?|unmaps?|imports?|loads?|unloads?|"
    r"resets?|reserves?|registers?|unregisters?)\b", re.I)

# Queries of a memory object read state and change none: caught by a family
# name (cuGraphMemAllocNodeGetParams, cuMemPoolGetAttribute), they are left
# out.  Setters and creators are not queries.
QUERY = re.compile(r"(GetParams|GetAttribute|GetAccess|GetGranularity|GetInfo(_v2)?|GetFlags|"
                   r"GetLoadingMode|IsLoaded|GetId|GetDevResource)$")

DECL = {
    "cuda.h": re.compile(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\("),
    "cuda_runtime_api.h": re.compile(r"cudaError_t\s+CUDARTAPI\s+(cuda\w+)\s*\("),
}


def declarations(path, decl):
    """(name, brief) for each declaration; brief is the \\brief line of the
    doxygen comment just before it ('' for the legacy-ABI block)."""
    text = open(path, encoding="utf-8", errors="replace").read()
    out = []
    last_comment_end, last_brief = -1, ""
    for m in re.finditer(r"/\*\*(.*?)\*/|" + decl.pattern, text, re.S):
        if m.group(1) is not None:
            b = re.search(r"\\brief\s+(.*)", m.group(1))
            last_brief = b.group(1).strip() if b else ""
            last_comment_end = m.end()
            continue
        name = m.group(2)
        # The comment documents this declaration only if nothing but the
        # declaration's own prefix (a line or two) lies between them.
        gap = text[last_comment_end:m.start()] if last_comment_end >= 0 else "x" * 999
        brief = last_brief if len(gap) < 200 and ";" not in gap else ""
        out.append((name, brief))
    return text, out


def abi_names(text):
    """cuda.h's '#define cuMemAlloc cuMemAlloc_v2' table (the default,
    not per-thread, ABI)."""
    m = {}
    for base, abi in re.findall(r"#define\s+(cu\w+)\s+(cu\w+_v\d+)\b", text):
        m.setdefault(base, abi)
    return m


def hooked_names(hook_list, so):
    names = set(re.findall(r"X\((cu\w+)\)", open(hook_list).read()))
    aux = re.search(r"#define GL_AUX_REALS\(X\)(.*?)(?:\n\n|/\*)", open(hook_list).read(), re.S)
    if aux:  # real functions the library only calls are not hooks
        names -= set(re.findall(r"X\((cu\w+)\)", aux.group(1)))
    if so:
        # A hook is both: listed (the dlsym and cuGetProcAddress paths hand
        # it out) and exported (what the dynamic linker binds callers to).
        nm = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True, check=True)
        names &= {l.split()[-1] for l in nm.stdout.splitlines() if l.split()}
    return names


def listed_names(md):
    """The bullets of the 'Entry points not intercepted' section:
    '- `a`, `b`: reason'.  Returns {name: reason}."""
    text = open(md).read()
    sec = re.search(r"^### Entry points not intercepted\b.*?$(.*?)(?=^#)", text + "\n#", re.S | re.M)
    if not sec:
        sys.exit("cuda-coverage: %s has no '### Entry points not intercepted' section" % md)
    out = {}
    for item in re.split(r"\n(?=- )", sec.group(1)):
        item = item.strip()
        if not item.startswith("- "):
            continue
        head, _, reason = item[2:].partition(": ")
        for n in re.findall(r"`(\w+)`", head):
            out[n] = " ".join(reason.split())
    return out


def caught(name, brief):
    if QUERY.search(name):
        return []
    why = [f for f, rx in FAMILIES if re.search(rx, name)]
    if brief and DOC_VERBS.search(brief):
        why.append("doc: " + brief)
    return why


# The driver hooks that make an allocation record driver_paths.c exercises
# (graph memory nodes have their own program, tests/programs/graph_memory.c).
ALLOC_HOOK = re.compile(r"^cu(Mem\w*Alloc(?!ation|\w*Node)|(Array|Array3D|MipmappedArray|Mem)Create|MemHostRegister)")


def base_name(abi):
    """cuMemAlloc_v2 -> cuMemAlloc, cuStreamBeginCapture_v2_ptsz -> cuStreamBeginCapture."""
    return re.sub(r"(_v\d+)?(_ptsz|_ptds)?$", "", abi)


def check_rows(hook_list, fc_procaddr, driver_paths, md):
    text = open(hook_list).read()
    drv = re.search(r"#define GL_DRIVER_HOOKS\(X\)(.*?)\n\n", text, re.S)
    if not drv:
        sys.exit("cuda-coverage: %s has no GL_DRIVER_HOOKS list" % hook_list)
    hooks = re.findall(r"X\((cu\w+)\)", drv.group(1))
    # R("cuMemAlloc", 3020, A, cuMemAlloc_v2): the functions the table hands out
    rows = set(re.findall(r'R\("\w+",\s*\d+,\s*\w+,\s*(\w+)\)', open(fc_procaddr).read()))
    not_in_fc = set(re.findall(r"^\| `(\w+)@\d+` \| not in fakecuda \|", open(md).read(), re.M))
    paths = open(driver_paths).read()
    cases = {how: set(re.findall(how + r'\(\w+, "(\w+)"\)', paths)) for how in ("SYM", "Q", "E")}
    errors = []
    for n in hooks:
        if n not in rows and base_name(n) not in not_in_fc:
            errors.append("%s: hooked, but no row of %s hands it out (nor is %s 'not in fakecuda' in %s)"
                          % (n, fc_procaddr, base_name(n), md))
        if ALLOC_HOOK.search(n):
            need = [("Q", base_name(n)), ("E", base_name(n))]
            if not n.endswith("_ptsz"):  # the per-thread ABI is reached by Q and E's flag
                need.append(("SYM", n))
            for how, want in need:
                if want not in cases[how]:
                    errors.append("%s: hooked allocation, but %s has no %s(..., \"%s\") case"
                                  % (n, driver_paths, how, want))
    print("cuda-coverage: %d driver hooks, %d with a fakecuda row, %d allocations with driver_paths cases"
          % (len(hooks), sum(1 for n in hooks if n in rows), sum(1 for n in hooks if ALLOC_HOOK.search(n))))
    for e in errors:
        print("cuda-coverage: " + e, file=sys.stderr)
    return 1 if errors else 0


def main():
    if sys.argv[1:2] == ["--rows"]:
        if len(sys.argv) != 6:
            sys.exit(__doc__)
        return check_rows(*sys.argv[2:])
    args = [a for a in sys.argv[1:] if a != "--list"]
    if len(args) not in (3, 4):
        sys.exit(__doc__)
    inc, hook_list, md = args[:3]
    so = args[3] if len(args) == 4 else None
    entries = {}  # ABI name -> reasons it is memory-relevant
    declared = set()
    for hdr, decl in DECL.items():
        text, decls = declarations(os.path.join(inc, hdr), decl)
        abi = abi_names(text) if hdr == "cuda.h" else {}
        for name, brief in decls:
            why = caught(name, brief)
            # the base name: as written (the legacy ABI block, or a name
            # with no version), and the current ABI's name
            for n in {name, abi.get(name, name)}:
                declared.add(n)
                if why:
                    entries.setdefault(n, set()).update(why)
    hooked = hooked_names(hook_list, so)
    listed = listed_names(md)
    if "--list" in sys.argv:
        for n in sorted(entries):
            state = "hooked" if n in hooked else ("listed" if n in listed else "MISSING")
            print("%-50s %-7s %s" % (n, state, "; ".join(sorted(entries[n]))))
    errors = []
    for n in sorted(entries):
        if n not in hooked and n not in listed:
            errors.append("%s: can %s; neither hooked nor listed in %s" %
                          (n, " / ".join(sorted(entries[n])), md))
    for n in sorted(listed):
        if n in hooked:
            errors.append("%s: listed as not intercepted in %s, but hooked (stale entry)" % (n, md))
        elif n not in declared:
            errors.append("%s: listed in %s, but declared in neither header" % (n, md))
        elif not listed[n]:
            errors.append("%s: listed in %s without a reason" % (n, md))
    n_hooked = sum(1 for n in entries if n in hooked)
    n_listed = sum(1 for n in entries if n in listed)
    print("cuda-coverage: %d memory entry points in the headers: %d hooked, %d listed as not intercepted, %d missing"
          % (len(entries), n_hooked, n_listed, len(entries) - n_hooked - n_listed))
    for e in errors:
        print("cuda-coverage: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
