#!/usr/bin/env bash
# `gpuleak top` names a site by its label frame, the reporter's rule
# (report/model/user_frame.h): the first Python frame outside PyTorch's own
# code, not `malloc _allocator.py:110` of PyTorch's caching allocator
# (issue 35: the README shows `cache_activations model.py:88`).
#   - a live file written here: a stack whose Python frames start in
#     torch/cuda/_allocator.py and torch/_tensor.py;
#   - a Python job on the stand-in torch over fakecuda (ctypes calls
#     cudaMalloc through libffi), watched while it holds 24 MiB.
# A stack of PyTorch frames only is still named by its innermost frame.
source "$ROOT/tests/lib.sh"
TOP=$BUILD/libexec/gpuleak/gpuleak-top
row() { sed -n '/largest live stacks/{n;n;p}' "$1"; }

cat >torch.live <<'EOT'
gpuleak-live 2
pid 7
site 1 0 12582912 1
site 2 0 4096 1
stack 1 py:1 py:2 py:3 py:4
stack 2 py:1 py:2
pyframe 1 110 malloc /opt/venv/lib/python3.11/site-packages/torch/cuda/_allocator.py
pyframe 2 14 _Storage.__init__ /opt/venv/lib/python3.11/site-packages/torch/_tensor.py
pyframe 3 88 cache_activations /home/u/model.py
pyframe 4 140 forward /home/u/model.py
end
EOT
"$TOP" --once "$PWD/torch.live" >once.txt 2>once.err || fail "gpuleak-top: $(cat once.err)"
sed -n '/largest live stacks/{n;n;p;n;p}' once.txt >rows.txt
cat >want.txt <<'EOT'
  12.0 MiB          1  0      cache_activations model.py:88 <- forward model.py:140
   4.0 KiB          1  0      malloc _allocator.py:110 <- _Storage.__init__ _tensor.py:14
EOT
diff want.txt rows.txt || fail "the rows of a written live file"

# A job on the stand-in torch.
torch_standin_setup
py=$ROOT/tests/programs/torch_grow.py
live_python_job 25165824 "$py" 2 hold
"$TOP" --once "$PWD/job.live" >job.txt 2>job.err || fail "gpuleak-top on the job: $(cat job.err)"
expect_eq "$(row job.txt)" \
    "  24.0 MiB          2  0      grow torch_grow.py:$(site_line torch_grow.py KEPT-LINE) <- <module> torch_grow.py:$(grep -n '^    grow()$' "$py" | cut -d: -f1)" \
    "the job's row"
echo ok
