#!/usr/bin/env bash
# Times BudgetedSVM's BSGD (BPegasos) on a9a and prints accuracy on a9a.t.
#
#   bash benchmarks/peers/budgetedsvm/run_a9a.sh BSVM_BIN_DIR [DATA_DIR] [LAMBDA] [G] [BUDGETS] [MAINT] [EPOCHS] [R]
#
# BSVM_BIN_DIR: budgetedsvm-train / budgetedsvm-predict, built outside this repository
# (README.md).  DATA_DIR (default $OKL_DATA) holds a9a and a9a.t (shared/tools/real-data.sh).
# LAMBDA (default 0.0001) and G (default 0.01) are BudgetedSVM's -L and -g (its kernel is
# exp(-0.5 G ||x - y||^2), i.e. okl sigma = 1/sqrt(G)); these defaults are the a9a example
# of BudgetedSVM's README: the BSGD paper does not print the lambda and kernel width it
# cross-validated for Adult.  BUDGETS default "100 500"; MAINT -m (1 merging, 0 removal;
# default 1); EPOCHS -e (default 1); R -r (0: file order, the default; 1: shuffled with a
# clock seed).
# Printed per run: training wall seconds (process, includes parsing the file), BudgetedSVM's
# own "Training completed in" CPU seconds (its learning loop, without loading), the
# maintenance steps, the accuracy budgetedsvm-predict reports, and the accuracy of the same
# model with the first model line padded by one space (budgetedsvm-predict skips the first
# character of that line; see tests/oracles/bsgd.py load_model).
set -euo pipefail
BIN=${1:?give the directory holding budgetedsvm-train and budgetedsvm-predict}
DATA=${2:-${OKL_DATA:?give DATA_DIR or set OKL_DATA}}
LAMBDA=${3:-0.0001}
G=${4:-0.01}
BUDGETS=${5:-100 500}
MAINT=${6:-1}
EPOCHS=${7:-1}
R=${8:-0}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf "%-6s %-4s %-8s %-6s %-3s %-3s %10s %10s %8s %10s %12s\n" B m lambda g e r wall_s train_cpu_s steps acc_pred acc_fixed
for B in $BUDGETS; do
    model=$TMP/model.txt
    start=$(date +%s.%N)
    "$BIN/budgetedsvm-train" -A 4 -B "$B" -m "$MAINT" -L "$LAMBDA" -g "$G" -e "$EPOCHS" \
        -r "$R" -D 123 -v 1 "$DATA/a9a" "$model" > "$TMP/train.log"
    end=$(date +%s.%N)
    cpu=$(sed -n 's/.*Training completed in *\([0-9.]*\) seconds.*/\1/p' "$TMP/train.log")
    steps=$(sed -n 's/.*Number of budget maintenance steps: *\([0-9]*\).*/\1/p' "$TMP/train.log")
    acc() {  # model -> accuracy in percent from budgetedsvm-predict's error rate
        "$BIN/budgetedsvm-predict" -v 1 "$DATA/a9a.t" "$1" "$TMP/pred.txt" \
            | sed -n 's/.*Testing error rate: *\([0-9.]*\) percent.*/\1/p' \
            | awk '{printf "%.2f", 100 - $1}'
    }
    a1=$(acc "$model")
    awk 'f==1{print " " $0; f=2; next} /^MODEL:/{f=1} {print}' "$model" > "$TMP/fixed.txt"
    a2=$(acc "$TMP/fixed.txt")
    printf "%-6s %-4s %-8s %-6s %-3s %-3s %10.2f %10s %8s %10s %12s\n" "$B" "$MAINT" "$LAMBDA" "$G" \
        "$EPOCHS" "$R" "$(echo "$end - $start" | bc)" "$cpu" "$steps" "$a1" "$a2"
done
