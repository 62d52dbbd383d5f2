#!/usr/bin/env bash
# Unit test of the snapshot format (tests/unit/format_roundtrip.c): every
# record type encoded as the interposer's writer does and read back by the
# reporter's reader, in process, every field compared.
source "$ROOT/tests/lib.sh"
"$TPROG/unit/format_roundtrip" || fail "format round trip"
echo ok
