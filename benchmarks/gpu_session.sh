#!/usr/bin/env bash
# The accelerator checks of the JAX core (issue 42) in one run on a GPU machine, each step under its
# own time limit so a slow step cannot take the others with it:
#   1. bench_jax.py: random-play steps/s of every variant beside pgx connect_four (batches 2^14..2^20);
#   2. train_az_jax.py: AlphaZero self-play training on the GPU for TRAIN_MINUTES (Sadeqa II);
#   3. bench_az_jax.py: the JAX trainer's positions/s beside `mancala train-az` on the same machine;
#   4. bench_jax.py relay-plan sweep on Sadeqa II and En Dodoi 8 at batch 2^20.
# Usage (repository root; wheels of this package and of pgx, mctx, gymnasium, pettingzoo,
# farama-notifications, svgwrite in .whl/ when the machine lacks them):
#   OUT=/some/folder bash benchmarks/gpu_session.sh
# SMOKE=1 runs every step at toy sizes (a CPU check of the script itself).
set -u
REPO=$(pwd)
OUT=${OUT:-/tmp/gpu-session}
RES=/tmp/gpu-results
mkdir -p "$OUT" "$RES" /tmp/gpu-work
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
if [ -d .whl ] && [ "${SMOKE:-0}" != 1 ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site || exit 1
fi
if [ "${SMOKE:-0}" = 1 ]; then
    BATCHES="1 16"; SECONDS_=0.2; TRAIN_MINUTES=0.3; GAMES=8; SIMS=4; PEER=2000; SWEEP_BATCH=16; LIMIT=120; DEVICE=cpu
    VARIANTS="--variants songo_ewondo sadeqa_ii"
else
    BATCHES="16384 262144 1048576"; SECONDS_=1; TRAIN_MINUTES=${TRAIN_MINUTES:-2.2}; GAMES=1024; SIMS=16
    PEER=30000; SWEEP_BATCH=1048576; LIMIT=1; VARIANTS=""; DEVICE=gpu
fi
pack() { tar czf "$OUT/results.tar.gz" -C "$RES" . ; }
cd /tmp/gpu-work || exit 1  # not the repository root: the installed package, not its source folders
{ nvidia-smi -L; $PY -c "import jax; print('jax', jax.__version__, jax.devices())"; } 2>&1 | tee "$RES/device.txt"

timeout $((LIMIT * 190)) $PY "$REPO/benchmarks/bench_jax.py" --batches $BATCHES --seconds $SECONDS_ \
    --numba-seconds 0 $VARIANTS --out "$RES/jax-gpu.json" 2>&1 | tee "$RES/bench_jax.log"
pack

timeout $((LIMIT * 210)) $PY -m mancala_envs.training.train_az_jax --game sadeqa_ii --device $DEVICE \
    --games $GAMES --sims $SIMS --total-positions 1000000000 --max-minutes $TRAIN_MINUTES \
    --eval-every 1000000000 --final-eval-games 20 --out "$RES/azjax-sadeqa_ii" 2>&1 | tee "$RES/train_az_jax.log"
rm -f "$RES"/azjax-sadeqa_ii/checkpoint.msgpack
pack

timeout $((LIMIT * 90)) $PY "$REPO/benchmarks/bench_az_jax.py" --game sadeqa_ii --games $GAMES --sims $SIMS \
    --peer-positions $PEER --out "$RES/az-jax-gpu.json" 2>&1 | tee "$RES/bench_az_jax.log"
pack

for plan in "16 64 8" "4 256 16" "8 128 32"; do
    timeout $((LIMIT * 35)) $PY "$REPO/benchmarks/bench_jax.py" --variants sadeqa_ii en_dodoi_8 \
        --batches $SWEEP_BATCH --seconds $SECONDS_ --numba-seconds 0 --plan $plan \
        --out "$RES/jax-gpu-plan-${plan// /-}.json" 2>&1 | tee -a "$RES/sweep.log"
    pack
done
ls -la "$RES" "$OUT"
