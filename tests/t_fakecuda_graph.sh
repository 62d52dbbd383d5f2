# fakecuda: graph memory nodes and stream capture, without any interposer
# (tests/fakecuda/fc_graph_test.c has the exact expectations): nodes and
# their parameters, launches, frees in and out of the graph, auto-free on
# relaunch, the graph memory pool's attributes and trim, capture of
# cudaMallocAsync/cudaFreeAsync (per-thread default stream too), the generic
# node API, out-of-memory at launch, cudaDeviceReset.
source "$ROOT/tests/lib.sh"
for s in explicit autofree capture generic reset; do
    fc "$TPROG/fc_graph_test" "$s" || fail "graph scenario $s"
done
FAKECUDA_MEM_BYTES=67108864 fc "$TPROG/fc_graph_test" oom || fail "graph scenario oom"
