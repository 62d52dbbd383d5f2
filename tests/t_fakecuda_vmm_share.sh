# fakecuda: VMM physical memory shared between processes
# (tests/fakecuda/fc_vmm_share_test.c): a handle created exportable is
# exported as a file descriptor, passed to a forked child with SCM_RIGHTS,
# imported and mapped there; both processes see one allocation (each reads
# what the other wrote), the importer is charged nothing, and what cannot be
# exported or imported fails as documented.
source "$ROOT/tests/lib.sh"
fc "$TPROG/fc_vmm_share_test" || fail "vmm sharing scenario"
