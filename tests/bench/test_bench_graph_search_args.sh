#!/bin/sh
# bench_graph_search refuses what it cannot read, in one line naming the value, exit 2:
# a count that is not a whole number (it once read "1e6x" or "1e8" with atoll), a
# budget count below 2, an unknown option; and reads the exponent form.
set -u
bench=${1:?usage: test_bench_graph_search_args.sh BENCH_GRAPH_SEARCH MODEL}
model=${2:?model file}
fail=0
refuses() { # expected-text args...
  expected=$1; shift
  err=$("$bench" "$model" "$@" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$err" | grep -qF -- "$expected"; then
    echo "FAIL: $* -> exit $rc, $lines line(s): $err"; fail=1
  fi
}
refuses "--work 1e6x: expected a whole number" --work 1e6x
refuses "--work 2.5: expected a whole number" --work 2.5
refuses "--budgets 1: expected a whole number from 2" --budgets 1
refuses "--frob: unknown option" --frob
refuses "--threads 0: expected a whole number from 1" --threads 0
refuses "--threads 300: expected a whole number from 1 to 256" --threads 300
out=$("$bench" "$model" --budgets 2 --work 1e5 2>&1) || { echo "FAIL: --work 1e5 -> $out"; fail=1; }
# Read as 1 it would evaluate a single layout.
printf '%s\n' "$out" | grep -Eq "[1-9][0-9]{3,} stage layouts" || { echo "FAIL: --work 1e5 read as less: $out"; fail=1; }
[ "$fail" = 0 ] && echo "PASS"
exit $fail
