#!/bin/sh
# Prints the C functions one of NVIDIA's cuDNN 9 libraries exports, one a
# line, sorted: the data behind fakecuda's stand-in of that library
# (exports/SONAME.txt).  For every library torch may load:
#   for l in $CUDA_HOME/lib64/libcudnn*.so.9; do
#       tools/fakecuda/cudnn/gen-exports.sh $l > tools/fakecuda/cudnn/exports/${l##*/}.txt; done
# Each carries the version node named as its soname.  Left out: C++ names
# (_Z..., the sub-libraries' internals, which no program links) and the
# node's own symbol (nm's "A").
set -e
lib=${1:?usage: gen-exports.sh LIBCUDNN.so.9}
nm -D --defined-only "$lib" | awk '$2 == "T" && $3 !~ /^_Z/ { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort -u
