#!/usr/bin/env bash
# Long work shows progress on stderr when it is a terminal, and nothing
# otherwise (issue [11] item 4): compile of the scheduled permutation at
# 2^24 builds two schedules of a few seconds each; under a pseudo-terminal
# (script(1)) their progress lines appear, through a pipe they do not.
#   progress.sh BANKWISE SOURCE_DIR WORK_DIR
set -u
bin=$1 src=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
cmd="'$bin' compile '$src/samples/offline_permutation_scheduled.bw' -D N=16777216 -o '$dir/p.cu'"
tty=$(TERM=xterm script -qec "$cmd" /dev/null) || { echo "FAIL: compile under a terminal: $tty"; exit 1; }
if ! grep -q "scheduling a permutation of 16777216 elements: [0-9.]* s" <<<"$tty"; then
  echo "FAIL: no progress line under a terminal; got:"; cat -v <<<"$tty" | head -20; exit 1
fi
piped=$(eval "$cmd" 2>&1 >/dev/null) || { echo "FAIL: compile through a pipe: $piped"; exit 1; }
if grep -q "scheduling" <<<"$piped"; then
  echo "FAIL: progress through a pipe:"; cat -v <<<"$piped" | head; exit 1
fi
echo "progress on a terminal, none through a pipe"
