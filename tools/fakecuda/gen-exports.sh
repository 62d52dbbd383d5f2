#!/bin/sh
# Prints the functions NVIDIA's runtime exports, one a line, sorted: the
# data behind fakecuda's libcudart.so.13 (libcudart_exports.txt).
#   tools/fakecuda/gen-exports.sh $CUDA_HOME/lib64/libcudart.so.13 > tools/fakecuda/libcudart_exports.txt
# Every one carries the version node libcudart.so.13 (objdump -T); the node's
# own symbol (nm's "A libcudart.so.13") is not a function and is left out.
set -e
lib=${1:?usage: gen-exports.sh LIBCUDART.so.13}
nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort -u
