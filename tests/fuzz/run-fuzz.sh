#!/bin/bash
# Runs kernel_delay's libFuzzer targets (built by "make fuzz-build" into
# build/fuzz/), each for a bounded time, and reports like every suite of
# tools/run-tests.sh: one "PASS: ..." or "FAIL: ..." line per target, then
# one "N passed, N failed" line; exits non-zero if anything failed.
#
# Usage: tests/fuzz/run-fuzz.sh [SECONDS]   each target for SECONDS
#                                           (default $FUZZ_SECONDS, or 10)
#        tests/fuzz/run-fuzz.sh --repro     replay tests/fuzz/crashes/*
#        tests/fuzz/run-fuzz.sh --coverage  coverage of src/ by the corpora
#
# Environment: FUZZ_TARGETS (default "trigger options template"), and
# FUZZ_ARGS (more libFuzzer flags, e.g. "-jobs=2").
#
# The committed seeds (tests/fuzz/corpus/TARGET/) are copied into a
# scratch corpus, build/fuzz/corpus/TARGET/, which keeps growing from run
# to run; the fuzzer writes only there.  A crash or broken invariant leaves
# its input in build/fuzz/artifacts/TARGET/ and the log in
# build/fuzz/TARGET.log.
set -u
cd "$(dirname "$0")/../.." || exit 1

FUZZ_TARGETS=${FUZZ_TARGETS:-trigger options template}
FUZZ_ARGS=${FUZZ_ARGS:-}
OUT=build/fuzz

# shellcheck source=tests/testlib.sh
. tests/testlib.sh

# stat NAME LOG: a "stat::NAME: VALUE" line of -print_final_stats=1.
stat() {
    sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

fuzz_one() {
    local t=$1 secs=$2
    local bin=$OUT/fuzz_$t corpus=$OUT/corpus/$t art=$OUT/artifacts/$t
    local log=$OUT/$t.log rc lock

    if [ ! -x "$bin" ]; then
        fail "fuzz_$t: $bin is not built (make fuzz-build)"
        return
    fi
    mkdir -p "$corpus" "$art"
    # One run per target at a time: two would share the log.
    exec {lock}>"$OUT/$t.lock"
    if ! flock -n "$lock"; then
        fail "fuzz_$t: another run of it is in progress ($OUT/$t.lock)"
        exec {lock}>&-
        return
    fi
    cp tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=2048 -dict=tests/fuzz/dict/"$t".dict \
        -artifact_prefix="$art"/ $FUZZ_ARGS "$corpus" >"$log" 2>&1
    rc=$?
    exec {lock}>&-

    # The last status line: "#N DONE cov: C ft: F corp: U/Sb ...".
    local execs eps last cov ft corp files took
    took=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log")
    execs=$(stat number_of_executed_units "$log")
    eps=$(stat average_exec_per_sec "$log")
    last=$(grep -aE '^#[0-9]+.*cov: ' "$log" | tail -n 1)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[kKM]?b).*/\1/p' <<<"$last")
    files=$(find "$corpus" -type f | wc -l)
    local what="fuzz_$t: ${took:-?}s, ${execs:-?} execs, ${eps:-?} exec/s,"
    what+=" cov ${cov:-?} ft ${ft:-?}, corpus ${corp:-?} ($files files"
    what+=" in $corpus)"
    if [ "$rc" -eq 0 ] && ! grep -aq '^==[0-9]*== *ERROR' "$log"; then
        pass "$what"
    else
        # libFuzzer exits 72 when interrupted (SIGINT, SIGTERM).
        fail "$what: exit $rc$( [ "$rc" -eq 72 ] && echo ' (interrupted)'),\
 see $log"
        grep -aE 'invariant broken|ERROR:|SUMMARY:|^  [^ ]' "$log" | head -n 20
        grep -aE '^(artifact_prefix|Test unit written to)' "$log"
    fi
}

# Replays every tests/fuzz/crashes/TARGET-WHAT against fuzz_TARGET, with
# KD_FUZZ_STRICT=1 (the checks of known, not yet fixed, contract
# violations): a pass means the bug is fixed.
repro() {
    local f t name
    for f in tests/fuzz/crashes/*; do
        [ -f "$f" ] || continue
        case $f in *.md|*.txt) continue ;; esac
        name=${f##*/}
        t=${name%%-*}
        if [ ! -x "$OUT/fuzz_$t" ]; then
            fail "$name: $OUT/fuzz_$t is not built (make fuzz-build)"
            continue
        fi
        if KD_FUZZ_STRICT=1 "$OUT/fuzz_$t" "$f" >"$OUT/repro-$name.log" \
                2>&1; then
            pass "$name: no longer reproduces"
        else
            fail "$name: still reproduces, see $OUT/repro-$name.log"
            grep -E 'invariant broken|SUMMARY:|^  [^ ]' "$OUT/repro-$name.log" |
                head -n 6
        fi
    done
}

# Runs the coverage build of each target over its scratch corpus and the
# seeds, and prints llvm-cov's report for the modules under test.
coverage() {
    local t dir=$OUT/cov
    mkdir -p "$dir"
    for t in $FUZZ_TARGETS; do
        rm -f "$dir/$t".prof*
        mkdir -p "$OUT/corpus/$t"
        if LLVM_PROFILE_FILE="$dir/$t.profraw" "$OUT/cov_$t" -runs=0 \
                "$OUT/corpus/$t" "tests/fuzz/corpus/$t" \
                >"$dir/$t.log" 2>&1 &&
           llvm-profdata merge -sparse -o "$dir/$t.profdata" \
                "$dir/$t.profraw"; then
            echo "=== fuzz_$t: $(find "$OUT/corpus/$t" -type f | wc -l)" \
                 "scratch + $(find "tests/fuzz/corpus/$t" -type f | wc -l)" \
                 "seed inputs"
            llvm-cov report "$OUT/cov_$t" -instr-profile="$dir/$t.profdata" \
                src/*.c
            pass "fuzz_$t coverage"
        else
            fail "fuzz_$t coverage, see $dir/$t.log"
        fi
    done
}

if [ "${1:-}" = --repro ]; then
    repro
elif [ "${1:-}" = --coverage ]; then
    coverage
else
    secs=${1:-${FUZZ_SECONDS:-10}}
    case $secs in
    '' | *[!0-9]*) echo "usage: $0 [SECONDS | --repro]" >&2; exit 2 ;;
    esac
    for t in $FUZZ_TARGETS; do
        fuzz_one "$t" "$secs"
    done
fi

test_summary
