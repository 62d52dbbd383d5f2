# fakecuda: FAKECUDA_DEVICES / FAKECUDA_MEM_BYTES parsing (garbage gives the
# defaults: 2 devices of 1 GiB; at most 16 devices; 0 devices = no device).
source "$ROOT/tests/lib.sh"
T=$TPROG/fc_rt_test
out=$(fc "$T" info)
grep -qx 'devices=2 err=0' <<<"$out" || fail "default devices: $out"
grep -qx 'dev1 total=1073741824 free=1073741824' <<<"$out" || fail "default memory: $out"
out=$(FAKECUDA_DEVICES=4 FAKECUDA_MEM_BYTES=5000000 fc "$T" info)
grep -qx 'devices=4 err=0' <<<"$out" || fail "4 devices: $out"
grep -qx 'dev3 total=5000000 free=5000000' <<<"$out" || fail "5000000 bytes: $out"
out=$(FAKECUDA_DEVICES=x1 FAKECUDA_MEM_BYTES=1G fc "$T" info)
grep -qx 'devices=2 err=0' <<<"$out" || fail "garbage devices: $out"
grep -qx 'dev0 total=1073741824 free=1073741824' <<<"$out" || fail "garbage memory: $out"
out=$(FAKECUDA_DEVICES=99 fc "$T" info)
grep -qx 'devices=16 err=0' <<<"$out" || fail "clamped devices: $out"
out=$(FAKECUDA_DEVICES=0 fc "$T" info)
grep -qx 'devices=0 err=100' <<<"$out" || fail "no devices: $out"
