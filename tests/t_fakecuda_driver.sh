# fakecuda: the driver API used directly (tests/fakecuda/fc_drv_test.c):
# init/context rules, primary contexts, cuGetProcAddress, pools, VMM, arrays,
# external memory, host memory, green contexts; what contexts and other
# processes take.
source "$ROOT/tests/lib.sh"
for s in ctx primary procaddr pool vmm arrays extmem host green; do
    fc "$TPROG/fc_drv_test" "$s" || fail "driver scenario $s"
done
FAKECUDA_OTHER_USED=3145728 FAKECUDA_OTHER_USED_LATER=7340032 fc "$TPROG/fc_drv_test" ctxcost ||
    fail "driver scenario ctxcost"
