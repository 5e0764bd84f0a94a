#!/bin/bash
# Tests bench/analyze.sh's verdict of figure 7 on rows made up here, where
# the truth is known: the paired comparison of ours and the reference must
# fail when ours is above in every run by more than the runs' spread,
# pass when the two differ only by noise or ours is below, give the mean
# and the 95% interval that a hand computation gives, and say n/a with a
# single run.  Needs no root and no kernel; prints one line per check and
# closes with "N passed, N failed".
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1

# shellcheck source=tests/testlib.sh
. tests/testlib.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# rows DIR DIFF...: a results directory holding figure 7 only, one run per
# DIFF: untraced 14000 ns, the reference 15700, ours 15700 + DIFF, each
# measured 3 times (the middle one the median).
rows() {
    local dir=$1 run=0 d tool base
    shift
    mkdir -p "$dir"
    printf 'git_rev\ttest\nonly\t,7,\npipe_runs\t%s\npipe_repeats\t3\n' \
        "$#" > "$dir/meta.tsv"
    : > "$dir/raw.tsv"
    for d in "$@"; do
        run=$((run + 1))
        for tool in none ours ours-why reference; do
            case $tool in
            none) base=14000 ;;
            reference) base=15700 ;;
            *) base=$((15700 + d)) ;;
            esac
            printf '7\tpipe\t%s\t%s\tns_rt\t%s\n' \
                "$tool" "$run" "$((base + 50))" \
                "$tool" "$run" "$base" \
                "$tool" "$run" "$((base - 50))" >> "$dir/raw.tsv"
        done
    done
}

# verdict DIR: figure 7's line of the verdicts.
verdict() {
    bench/analyze.sh "$1" |
        sed -n -E 's/^ *((PASS|FAIL|n\/a) +7\. a round trip)/\1/p'
}

# expect NAME DIR PATTERN: the verdict of DIR matches PATTERN.
expect() {
    local v
    v=$(verdict "$2")
    if [[ $v =~ $3 ]]; then
        pass "$1"
    else
        fail "$1: expected /$3/, got: '$v'"
    fi
}

rows "$work/above" 400 350 450 380 420 390 410 370 430
expect "ours above in every run by more than the spread: FAIL" \
    "$work/above" '^FAIL .* ours above in 9\)$'

rows "$work/noise" 300 -250 120 -400 80 -150 260 -90 50
expect "ours and the reference differ by noise only: PASS" \
    "$work/noise" '^PASS .* ours above in 5\)$'

rows "$work/below" -300 -350 -250 -320 -280 -310 -290 -330 -270
expect "ours below in every run: PASS" "$work/below" \
    '^PASS .* ours above in 0\)$'

# Differences 100, 200, 300: mean 200, sample deviation 100, half-width
# t(2) * 100 / sqrt(3) = 4.303 * 57.735 = 248.4: the interval holds 0.
rows "$work/hand" 100 200 300
expect "mean and 95% interval as computed by hand (200 +- 248)" \
    "$work/hand" "^PASS .*: ours less the reference's 200 \\+- 248 ns \\(95%,\
 3 paired runs, ours above in 3\\)$"

# Differences 300, 310, 320: mean 310, half-width 4.303 * 10 / sqrt(3) =
# 24.8: above 0.
rows "$work/hand2" 300 310 320
expect "a narrow interval above 0 fails (310 +- 25)" "$work/hand2" \
    "^FAIL .*'s 310 \\+- 25 ns \\(95%, 3 paired runs"

rows "$work/one" 400
expect "a single run gives no interval: n/a" "$work/one" '^n/a '

test_summary
