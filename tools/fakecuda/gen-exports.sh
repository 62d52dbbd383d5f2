#!/bin/sh
# Prints the C functions one of NVIDIA's libraries exports, one a line,
# sorted: the export list of fakecuda's stand-in of that library
# (exports/SONAME.txt beside its sources: the runtime's here, cuBLAS's in
# blas/, cuDNN's in cudnn/).  For each stand-in:
#   tools/fakecuda/gen-exports.sh $CUDA_HOME/lib64/SONAME > tools/fakecuda/DIR/exports/SONAME.txt
# e.g. for l in $CUDA_HOME/lib64/libcudnn*.so.9; do
#       tools/fakecuda/gen-exports.sh $l > tools/fakecuda/cudnn/exports/${l##*/}.txt; done
# Each name carries the version node named as the library's soname.  Left
# out: C++ names (_Z..., cuDNN's sub-libraries' internals, which no program
# links) and the node's own symbol (nm's "A").
# tests/t_fakecuda_exports.sh checks every list against the toolkit's
# library and the built stand-in.
set -e
lib=${1:?usage: gen-exports.sh LIBRARY.so.N}
nm -D --defined-only "$lib" | awk '$2 == "T" && $3 !~ /^_Z/ { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort -u
