#!/bin/bash
# Tests bench/analyze.sh's verdicts of figures 7 and 8 on rows made up
# here, where the truth is known.  Figure 7: the paired comparison of ours
# and the reference must fail when ours is above in every run by more
# than the runs' spread, pass when the two differ only by noise or ours
# is below, give the mean and the 95% interval that a hand computation
# gives, and say n/a with a single run.  Figure 8: the scrape's verdict
# is taken from the median of the paired per-scrape costs, not from the
# difference of the watches' medians.  Needs no root and no kernel;
# prints one line per check and closes with "N passed, N failed".
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

# verdict DIR [WHAT]: the line of DIR's verdicts that begins with WHAT
# (an extended regular expression; default figure 7's).
verdict() {
    bench/analyze.sh "$1" |
        sed -n -E "s/^ *((PASS|FAIL|n\/a) +${2:-7\. a round trip})/\1/p"
}

# expect NAME DIR PATTERN [WHAT]: the verdict of DIR (the line WHAT, as
# for verdict) matches PATTERN.
expect() {
    local v
    v=$(verdict "$2" "${4:-}")
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

# rows8 DIR SCRAPE_NS...: a results directory holding figure 8 only:
# the watch alone at 0.40% of one CPU, with --metrics at 1.40% (one
# percent more: what the difference of medians would fail), and one
# scrape_ns row per SCRAPE_NS.
rows8() {
    local dir=$1 run=0 ns tool pct
    shift
    mkdir -p "$dir"
    printf 'git_rev\ttest\nonly\t,8,\nev_runs\t%s\nwatch_secs\t5\n' \
        "$#" > "$dir/meta.tsv"
    printf 'watch_threads\t16\nprofile_hz\t99\n' >> "$dir/meta.tsv"
    : > "$dir/raw.tsv"
    for ns in "$@"; do
        run=$((run + 1))
        for tool in ours ours-profile ours-offcpu ours-metrics; do
            pct=0.40
            [ "$tool" = ours-metrics ] && pct=1.40
            printf '8\twatch\t%s\t%s\t%s\t%s\n' \
                "$tool" "$run" tool_pct "$pct" \
                "$tool" "$run" bpf_pct 0.10 \
                "$tool" "$run" rss_kb 129000 >> "$dir/raw.tsv"
        done
        [ "$ns" = - ] && continue
        printf '8\twatch\tours-metrics\t%s\tscrape_ns\t%s\n' \
            "$run" "$ns" >> "$dir/raw.tsv"
    done
}

# Figure 8's verdict of --metrics.
MX='8\. --metrics'

# Medians 224,000 ns: 0.0224% of one CPU at a scrape a second.
rows8 "$work/scrape" 216000 224000 226000
expect "one scrape of 0.224 ms: 0.022% of one CPU, PASS" "$work/scrape" \
    '^PASS +8\. .* costs 0\.022% of one CPU \(< 0\.5%\): 0\.224 ms' \
    "$MX"
# Median 6 ms: 0.6% at a scrape a second.
rows8 "$work/scrape-slow" 5000000 6000000 7000000
expect "one scrape of 6 ms: 0.6% of one CPU, FAIL" "$work/scrape-slow" \
    '^FAIL +8\. .* costs 0\.600% of one CPU' "$MX"
rows8 "$work/scrape-none" - - -
expect "no scrape measured: n/a" "$work/scrape-none" '^n/a +8\. --metrics' \
    "$MX"

test_summary
