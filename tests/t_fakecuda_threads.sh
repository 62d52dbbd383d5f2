# fakecuda: 8 threads allocating and freeing concurrently, through the
# runtime and through the driver; all memory is accounted back at the end.
source "$ROOT/tests/lib.sh"
fc "$TPROG/fc_rt_test" threads
fc "$TPROG/fc_drv_test" threads
