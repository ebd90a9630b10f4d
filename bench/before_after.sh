#!/bin/bash
# The bench as a whole, two checkouts in turn (issue 33: "re-measured before and after on the same machine,
# interleaved"): bash bench/before_after.sh BEFORE_CHECKOUT AFTER_CHECKOUT OUTDIR [ROUNDS]
# Each script runs from AFTER with --root set to each checkout; one file per script, side and round in OUTDIR.
set -u
B=$(realpath "$1"); A=$(realpath "$2"); O=$(realpath -m "$3"); ROUNDS=${4:-2}
mkdir -p "$O"; cd "$A" || exit 2
py=${PYTHON:-python}
for r in $(seq "$ROUNDS"); do
  for side in before after; do
    R=$B; [ "$side" = after ] && R=$A
    echo "=== round $r $side $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$O/log"
    PYTHONPATH=$A $py bench/bench_startup.py --runs 9 --root "$R" > "$O/startup_${side}_$r.txt" 2>&1
    PYTHONPATH=$A $py bench/bench_loops.py --root "$R" --runs 5 --whole 0 > "$O/loops_${side}_$r.txt" 2>&1
    PYTHONPATH=$A $py bench/bench_tensor.py --root "$R" --sizes 1024 --runs 3 --only wg,cm2,khr \
      > "$O/tensor_${side}_$r.txt" 2>&1
    PYTHONPATH=$A $py bench/bench_dataio.py --root "$R" --runs 3 > "$O/dataio_${side}_$r.txt" 2>&1
    PYTHONPATH=$R $py "$A/bench/bench_tools.py" --runs 3 --reps 20000 --only as,dis \
      --spvcoop "env PYTHONPATH=$R $py -m spvcoop" > "$O/tools_${side}_$r.txt" 2>&1
  done
done
echo "=== val $(date +%T)" | tee -a "$O/log"
PYTHONPATH=$A $py bench/bench_val.py --runs 5 --reps 20000 --root "$B" > "$O/val.txt" 2>&1
echo "=== done $(date +%T)" | tee -a "$O/log"
