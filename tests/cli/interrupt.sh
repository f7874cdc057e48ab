#!/usr/bin/env bash
# An interrupted compile leaves no file behind (issue [10] item 3): the
# scheduled permutation at 2^24 writes its 200 MB side file while the
# pipeline analyzes the kernels, and the .cu, header and report wait for
# it; once the temporary file is there, SIGTERM (and then SIGINT) ends the
# run, and neither an output nor a temporary may remain.
#   interrupt.sh BANKWISE SOURCE_DIR WORK_DIR
set -u
bin=$1 src=$2 dir=$3
for sig in TERM INT; do
  rm -rf "$dir" && mkdir -p "$dir"
  "$bin" compile "$src/samples/offline_permutation_scheduled.bw" -D N=16777216 -o "$dir/p.cu" \
    --header "$dir/p.h" --report "$dir/p.json" 2>/dev/null &
  pid=$!
  # Up to 5 minutes for the schedule to reach its side file (a minute in a
  # release build, more under the sanitizers); the loop ends when it does.
  for _ in $(seq 6000); do
    [ -e "$dir/p.tables.bin.tmp" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ ! -e "$dir/p.tables.bin.tmp" ]; then
    wait "$pid"
    echo "FAIL ($sig): the run ended (exit $?) before its temporary file appeared; nothing was interrupted"
    exit 1
  fi
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  left=$(ls -A "$dir")
  if [ "$rc" -lt 128 ] || [ -n "$left" ]; then
    echo "FAIL ($sig): exit $rc; left behind: ${left:-nothing}"
    exit 1
  fi
  echo "SIG$sig: exit $rc, nothing left behind"
done
