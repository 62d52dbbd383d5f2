# fakecuda: FAKECUDA_DEVICES / FAKECUDA_MEM_BYTES / FAKECUDA_CTX_BYTES /
# FAKECUDA_OTHER_USED parsing (garbage gives the defaults: 2 devices of 1 GiB,
# a context taking 4 MiB + 1 MiB per ordinal, no other process; at most 16
# devices; 0 devices = no device).  `info` asks each device in its primary
# context, so its free memory is less that context's own.
source "$ROOT/tests/lib.sh"
T=$TPROG/fc_rt_test
out=$(fc "$T" info)
grep -qx 'devices=2 err=0' <<<"$out" || fail "default devices: $out"
grep -qx 'dev0 total=1073741824 free=1069547520' <<<"$out" || fail "default memory: $out"
grep -qx 'dev1 total=1073741824 free=1068498944' <<<"$out" || fail "default memory: $out"
# (device 3's context would take 7 MiB of its 5,000,000 bytes: contexts are free here)
out=$(FAKECUDA_DEVICES=4 FAKECUDA_MEM_BYTES=5000000 FAKECUDA_CTX_BYTES=0 fc "$T" info)
grep -qx 'devices=4 err=0' <<<"$out" || fail "4 devices: $out"
grep -qx 'dev3 total=5000000 free=5000000' <<<"$out" || fail "5000000 bytes: $out"
out=$(FAKECUDA_CTX_BYTES=1048576 FAKECUDA_OTHER_USED=2097152 fc "$T" info)
grep -qx 'dev1 total=1073741824 free=1070596096' <<<"$out" || fail "1 MiB contexts, 2 MiB other: $out"
out=$(FAKECUDA_CTX_BYTES=1M FAKECUDA_OTHER_USED=2M fc "$T" info)
grep -qx 'dev1 total=1073741824 free=1068498944' <<<"$out" || fail "garbage context and other use: $out"
out=$(FAKECUDA_DEVICES=x1 FAKECUDA_MEM_BYTES=1G fc "$T" info)
grep -qx 'devices=2 err=0' <<<"$out" || fail "garbage devices: $out"
grep -qx 'dev0 total=1073741824 free=1069547520' <<<"$out" || fail "garbage memory: $out"
out=$(FAKECUDA_DEVICES=99 fc "$T" info)
grep -qx 'devices=16 err=0' <<<"$out" || fail "clamped devices: $out"
out=$(FAKECUDA_DEVICES=0 fc "$T" info)
grep -qx 'devices=0 err=100' <<<"$out" || fail "no devices: $out"
