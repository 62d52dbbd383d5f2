# make install's packaging: man pages that man(1) renders without a warning,
# gpuleak.pc for gpuleak.h, bash completion, one version everywhere, the
# installed README's and docs' relative links resolving in the installed
# tree, and the Python helper installable by pip into a fresh venv, offline.
source "$ROOT/tests/lib.sh"
make -s -C "$ROOT" install PREFIX="$PWD/prefix" BUILD="$BUILD" >/dev/null
P=$PWD/prefix
version=$(sed -n 's/^#define GPULEAK_VERSION "\(.*\)"$/\1/p' "$ROOT/common/version.h")
[ -n "$version" ] || fail "no version in common/version.h"

# One version.
expect_eq "$("$P/bin/gpuleak" --version)" "gpuleak $version" "gpuleak --version"
expect_eq "$("$P/bin/gpuleak-report" --version | cut -d' ' -f1,2)" "gpuleak-report $version" "gpuleak-report --version"
expect_eq "$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/tools/pyproject.toml")" "$version" "pyproject.toml's version"

# Man pages: rendered, no warnings, the version in the footer.
for page in gpuleak gpuleak-report; do
    f=$P/share/man/man1/$page.1
    [ -f "$f" ] || fail "not installed: $f"
    MANWIDTH=80 MAN_KEEP_FORMATTING=0 man --warnings -l "$f" 2>"$page.err" </dev/null | sed 's/.\x08//g' >"$page.txt" || fail "man -l $page.1"
    expect_eq "$(cat "$page.err")" "" "man's warnings for $page.1"
    grep -q "^NAME" "$page.txt" || fail "$page.1: no NAME section"
    grep -q "gpuleak $version" "$page.txt" || fail "$page.1: version $version not in the page"
done
grep -q -- '--min-bytes' gpuleak-report.txt || fail "gpuleak-report.1 lacks --min-bytes"
tr -s ' \n' '  ' <gpuleak.txt | grep -q 'ERROR SUMMARY' || fail "gpuleak.1 lacks check's ERROR SUMMARY"
# The reporter's page names its sections, filled in by the build from
# --list-sections (tools/module.mk): the installed page has them all.
sections=$("$P/bin/gpuleak-report" --list-sections | paste -sd, | sed 's/,/, /g')
tr -s ' \n' '  ' <gpuleak-report.txt | grep -qF "comma-separated: $sections (default all" ||
    fail "gpuleak-report.1 lacks the sections '$sections': $(grep -A2 -- '--sections list' gpuleak-report.txt)"

# pkg-config: the flags find the installed header.
export PKG_CONFIG_PATH=$P/lib/pkgconfig
expect_eq "$(pkg-config --modversion gpuleak)" "$version" "pkg-config --modversion"
expect_eq "$(pkg-config --cflags gpuleak)" "-I$P/include " "pkg-config --cflags (pkg-config ends it with a space)"
printf '#include <gpuleak.h>\n#pragma weak gpuleak_snapshot\nint main(void) { return gpuleak_snapshot ? 1 : 0; }\n' >use.c
# shellcheck disable=SC2046
cc $(pkg-config --cflags --libs gpuleak) use.c -o use && ./use || fail "a program built with pkg-config's flags"

# Bash completion.
complete_words() { # the words offered for the command line "$@" (last one being typed)
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuleak; printf "%s\n" "${COMPREPLY[@]}"' \
        sh "$P/share/bash-completion/completions/gpuleak" "$@" | LC_ALL=C sort | paste -sd' ' -
}
expect_eq "$(complete_words gpuleak ru)" "run" "completing 'gpuleak ru'"
expect_eq "$(complete_words gpuleak check --mi)" "--min-bytes" "completing 'gpuleak check --mi'"
expect_eq "$(complete_words gpuleak run --signal U)" "URG USR1 USR2" "completing a signal"
expect_eq "$(complete_words gpuleak run --q)" "--quiet" "completing 'gpuleak run --q'"
expect_eq "$(complete_words gpuleak pl)" "plan" "completing 'gpuleak pl'"
# section names come from the installed reporter (--list-sections), found
# through the installed launcher being completed, on PATH or by its path
names=$("$P/bin/gpuleak-report" --list-sections | LC_ALL=C sort)
[ "$(wc -l <<<"$names")" -ge 8 ] || fail "--list-sections: $names"
expect_eq "$(PATH=$P/bin:$PATH complete_words gpuleak check --sections '')" "$(printf '%s\nall\n' "$names" | LC_ALL=C sort | paste -sd' ')" \
    "completing 'gpuleak check --sections '"
expect_eq "$(complete_words "$P/bin/gpuleak" report --sections l)" "$(grep '^l' <<<"$names" | paste -sd' ')" \
    "completing 'gpuleak report --sections l', the launcher by its path"
expect_eq "$(complete_words gpuleak plan --gpu h)" "h100-pcie-80gb h100-sxm-80gb h200-141gb" "completing a card"
expect_eq "$(complete_words gpuleak plan --gpu l4 --s)" "--steps --sweep" "completing 'gpuleak plan --s'"
mkdir -p comp/sub && touch 'comp/a b.snap' comp/c.txt
expect_eq "$(cd comp && complete_words gpuleak report '')" "a b.snap diff merge sub" "completing a report's operand"

# Links: every relative link of the installed Markdown files resolves.
python3 - "$P/share/doc/gpuleak" <<'PY' || fail "broken links in the installed docs"
import os, re, sys
root, bad, n = sys.argv[1], [], 0
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith(".md"):
            continue
        text = open(os.path.join(d, f), encoding="utf-8").read()
        for link in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", link) or link.startswith("#"):
                continue
            n += 1
            if not os.path.exists(os.path.join(d, link.split("#")[0])):
                bad.append("%s: %s" % (os.path.relpath(os.path.join(d, f), root), link))
if bad or n < 10:
    sys.exit("%d links, broken: %s" % (n, bad))
PY

# make demo builds in parallel: one job per core unless -j was given (a dry
# run shows the build command; it builds nothing).
make -n -C "$ROOT" demo BUILD="$BUILD" >demo-n.txt 2>&1 || true
grep -qx "make -j$(nproc) all" demo-n.txt || fail "make demo: no -j$(nproc): $(head -5 demo-n.txt)"
make -n -j3 -C "$ROOT" demo BUILD="$BUILD" >demo-n.txt 2>&1 || true
grep -qx "make  *all" demo-n.txt || fail "make -j3 demo: its own -j not kept: $(head -5 demo-n.txt)"

# The Python helper as a normal module: pip builds and installs it offline
# (tools/pybuild/gpuleak_wheel.py needs nothing but pip) into a fresh venv.
skip_if '! python3 -m venv --without-pip venv >/dev/null 2>&1' "python3 -m venv unavailable"
python3 -m pip --python venv/bin/python install -q --no-index --no-build-isolation "$ROOT/tools" >pip.out 2>&1 ||
    fail "pip install tools/: $(tail -5 pip.out)"
(cd / && "$OLDPWD/venv/bin/python" -c 'import gpuleak_memory, os; print(os.path.basename(os.path.dirname(gpuleak_memory.__file__)))') >where.txt
expect_eq "$(cat where.txt)" "site-packages" "gpuleak_memory installed in the venv"
# and the pytest plugin, registered as pytest's entry point "gpuleak"
venv/bin/python -c '
from importlib.metadata import entry_points
print(" ".join("%s=%s" % (e.name, e.value) for e in entry_points(group="pytest11")))' >eps.txt
expect_eq "$(cat eps.txt)" "gpuleak=pytest_gpuleak" "pytest11 entry points"
expect_eq "$(venv/bin/python -m pip --version >/dev/null 2>&1; python3 -m pip --python venv/bin/python show gpuleak-memory 2>/dev/null | sed -n 's/^Version: //p')" "$version" "the installed module's version"

