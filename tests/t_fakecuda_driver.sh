# fakecuda: the driver API used directly (tests/fakecuda/fc_drv_test.c):
# init/context rules, primary contexts, cuGetProcAddress, pools, VMM, arrays,
# external memory, host memory, green contexts.
source "$ROOT/tests/lib.sh"
for s in ctx primary procaddr pool vmm arrays extmem host green; do
    fc "$TPROG/fc_drv_test" "$s" || fail "driver scenario $s"
done
