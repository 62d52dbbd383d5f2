#!/usr/bin/env bash
# Unit test of the protobuf wire writer behind --pprof (tests/unit/pprof_pb.c,
# report/render/pprof/pb.c): varints, keys, length-delimited fields and
# nested messages byte for byte.  Go's pprof reading whole profiles is
# tests/t_report_pprof.sh.
source "$ROOT/tests/lib.sh"
"$TPROG/unit/pprof_pb" || fail "pprof_pb"
