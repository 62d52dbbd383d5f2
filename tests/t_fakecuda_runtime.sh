# fakecuda: the shared runtime's behaviour, without any interposer
# (tests/fakecuda/fc_rt_test.c has the exact expectations).
source "$ROOT/tests/lib.sh"
T=$TPROG/fc_rt_test
fc "$T" basic
# exact heap arithmetic on a 64 MiB device: contexts take nothing here
FAKECUDA_CTX_BYTES=0 FAKECUDA_MEM_BYTES=67108864 fc "$T" oom
FAKECUDA_DEVICES=3 FAKECUDA_MEM_BYTES=268435456 fc "$T" devices
fc "$T" pool
fc "$T" reset
fc "$T" other
fc "$T" entry
# The fake runtime is the one in use, not the toolkit's in the ldconfig cache.
fc "$T" info | grep -qx "libcudart=$FAKECUDA/libcudart.so.13" || fail "not the fake libcudart: $(fc "$T" info)"
