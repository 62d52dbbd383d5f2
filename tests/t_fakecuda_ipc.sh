# fakecuda: memory shared between processes (tests/fakecuda/fc_ipc_test.c):
# IPC handles and memory-pool pointers exported by a forked child, imported
# by the parent, through the driver and the runtime API; what fails once the
# allocation is freed or the exporter is gone.
source "$ROOT/tests/lib.sh"
for s in driver runtime; do
    fc "$TPROG/fc_ipc_test" "$s" || fail "ipc scenario $s"
done
