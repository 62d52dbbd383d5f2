#!/usr/bin/env bash
# Prints the layout table rows for every CPython found under pyenv (or the
# python3.X-config given as arguments).  Paste the rows into
# interpose/capture/pyframes_layout.c.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=($(ls -d ~/.pyenv/versions/3.1[0-9]*/bin/python3.1[0-9]-config 2>/dev/null || true))
for cfg in "${configs[@]}"; do
    tmp=$(mktemp)
    cc -o "$tmp" "$here/pyoffsets.c" $("$cfg" --includes) 2>/dev/null && "$tmp"
    rm -f "$tmp"
done
