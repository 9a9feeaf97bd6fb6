#!/usr/bin/env bash
# Trains BudgetedSVM on the small LIBSVM files of tests/fixtures/budgetedsvm/ and
# writes its models, predictions and verbose logs there (what tests/oracles/
# test_bsgd_oracles.py compares the oracles with).
#
#   bash benchmarks/peers/budgetedsvm/make_fixtures.sh BSVM_BIN_DIR [OUT_DIR]
#
# BSVM_BIN_DIR holds budgetedsvm-train and budgetedsvm-predict, built outside this
# repository from github.com/djurikom/BudgetedSVM (never committed here; see README.md).
# OUT_DIR defaults to tests/fixtures/budgetedsvm.  The data files are written first by
# tests/fixtures/budgetedsvm/make_data.py (fixed seed).  Every run: -r 0 (file order, no
# shuffling; srand(0)), one epoch unless the name says e<k>, lambda 0.01, -D 3.
set -euo pipefail
BIN=${1:?give the directory holding budgetedsvm-train and budgetedsvm-predict}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=${2:-$REPO/tests/fixtures/budgetedsvm}
mkdir -p "$OUT"
python3 "$REPO/tests/fixtures/budgetedsvm/make_data.py" "$OUT"

run() {  # name train test options...
    local name=$1 train=$2 test=$3; shift 3
    "$BIN/budgetedsvm-train" "$@" -r 0 -D 3 -v 1 "$OUT/$train" "$OUT/$name.model" > "$OUT/$name.log"
    "$BIN/budgetedsvm-predict" -o 1 "$OUT/$test" "$OUT/$name.model" "$OUT/$name.pred"
    echo "$name: budgetedsvm-train $* -r 0 -D 3 -v 1 $train $name.model" >> "$OUT/runs.txt"
}
: > "$OUT/runs.txt"
G="-g 0.5"     # exp(-0.5 * 0.5 * ||x - y||^2) = exp(-0.25 ||x - y||^2)
L="-L 0.01"
# BSGD (-A 4): merging (-m 1) and removal (-m 0)
run bin_bsgd_merge_B10      bin_train.txt bin_test.txt -A 4 -B 10 -m 1 $G $L -e 1
run bin_bsgd_remove_B10     bin_train.txt bin_test.txt -A 4 -B 10 -m 0 $G $L -e 1
run bin_bsgd_merge_B10_e3   bin_train.txt bin_test.txt -A 4 -B 10 -m 1 $G $L -e 3
run mc_bsgd_merge_B20       mc_train.txt  mc_test.txt  -A 4 -B 20 -m 1 $G $L -e 1
run mc_bsgd_remove_B20      mc_train.txt  mc_test.txt  -A 4 -B 20 -m 0 $G $L -e 1
run mc_bsgd_remove_poly_B15 mc_train.txt  mc_test.txt  -A 4 -B 15 -m 0 -K 2 -d 2 -i 1 $L -e 1
# each row twice in a row: BudgetedSVM's duplicate rule (merge adds, removal drops the new)
run bindup_bsgd_merge_B10   bindup_train.txt bin_test.txt -A 4 -B 10 -m 1 $G $L -e 1
run bindup_bsgd_remove_B10  bindup_train.txt bin_test.txt -A 4 -B 10 -m 0 $G $L -e 1
# Pegasos (-A 0, linear, bias 1)
run bin_pegasos             bin_train.txt bin_test.txt -A 0 $L -e 1
run mc_pegasos_e2           mc_train.txt  mc_test.txt  -A 0 $L -e 2
# AMM online (-A 2): at most 5 hyperplanes a class, pruning every 50 rounds, c = 1
run bin_amm_online          bin_train.txt bin_test.txt -A 2 -B 5 -k 50 -c 1 $L -e 1
run mc_amm_online           mc_train.txt  mc_test.txt  -A 2 -B 5 -k 50 -c 1 $L -e 1
run mc_amm_online_e2        mc_train.txt  mc_test.txt  -A 2 -B 5 -k 50 -c 1 $L -e 2
ls -la "$OUT"
