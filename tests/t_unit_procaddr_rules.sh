#!/usr/bin/env bash
# Unit test of the cuGetProcAddress / cudaGetDriverEntryPoint ABI rules
# (tests/unit/procaddr_rules.c, resolve/entry_abi.c): which driver function
# a query of (name, cudaVersion, flags) selects and which hook it gets, in
# process, without a driver.  Besides its own rows, every ABI the toolkit's
# cudaTypedefs.h declares (PFN_<name>_v<version>[_ptsz]) for a hooked
# driver name or one docs/interception.md lists as not intercepted must be
# known to entry_abi.c, so that hooking it later adds no row there.
source "$ROOT/tests/lib.sh"
typedefs=${CUDA_HOME:-/usr/local/cuda}/include/cudaTypedefs.h
python3 - "$typedefs" "$ROOT/interpose/resolve/hook_list.h" "$ROOT/docs/interception.md" >abis.txt <<'PY' ||
import collections, re, sys
typedefs, hooks, doc = (open(p).read() for p in sys.argv[1:])
driver = hooks.split("#define GL_DRIVER_HOOKS")[1].split("#define GL_ALL_HOOKS")[0]
names = set(re.findall(r"X\((cu\w+)\)", driver))
section = re.search(r"^## Knowingly not intercepted\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
names |= set(re.findall(r"`(cu\w+)`", section.group(1)))
bases = {re.sub(r"(_v\d+)?(_ptsz)?$", "", n) for n in names}
abis, ptsz = collections.defaultdict(set), collections.defaultdict(set)
for n, v, p in re.findall(r"PFN_(cu\w+?)_v(\d+)(_ptsz)?\)", typedefs):
    (ptsz if p else abis)[n].add(int(v))
for b in sorted(bases):
    print("".join(f"abi {b} {v}\n" for v in sorted(abis[b])) + "".join(f"ptsz {b} {v}\n" for v in sorted(ptsz[b])), end="")
PY
    fail "listing the toolkit's ABIs"
# (read, not written here: a new hook or doc entry needs no edit of this test)
[ "$(grep -c '^abi ' abis.txt)" -ge 100 ] || fail "too few ABIs listed: $(wc -l <abis.txt)"
grep -qx 'abi cuGraphInstantiate 11000' abis.txt || fail "cuGraphInstantiate's pre-12.0 ABIs not listed"
"$TPROG/unit/procaddr_rules" abis.txt || fail "entry-point ABI rules"
echo ok
