#!/bin/bash
# bench/analyze.sh: the analysis step of the benchmarks.  It reads the raw
# rows that bench/run.sh left in a results directory and prints the table
# and the verdicts; it measures nothing, so it can be run again at any
# time on saved rows (bench/README.md).
#
# Usage:
#   bench/analyze.sh [DIR]        the table and the verdicts of DIR
#                                 (default bench/results/latest)
#   bench/analyze.sh --short MIN DIR
#                                 exit 0 when a variant of figure 4 has
#                                 fewer than MIN quick measurements in DIR,
#                                 1 otherwise (run.sh's batch loop)
#
# DIR holds meta.tsv and raw.tsv.  The work is done by bench/analyze.awk.

set -u
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)

usage() {
    sed -n '7,13{s/^# \{0,1\}//;p}' "$0"
}

MODE=table
MIN=0
case ${1:-} in
--short)
    [ $# = 3 ] && [[ $2 =~ ^[0-9]+$ ]] || { usage >&2; exit 2; }
    MODE=short MIN=$2
    shift 2
    ;;
-h|--help)
    usage
    exit 0
    ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }
DIR=${1:-$HERE/results/latest}

for f in meta.tsv raw.tsv; do
    if [ ! -r "$DIR/$f" ]; then
        echo "analyze: $DIR/$f missing" >&2
        exit 2
    fi
done

exec awk -v metafile="$DIR/meta.tsv" -v mode="$MODE" -v min="$MIN" \
    -f "$HERE/analyze.awk" "$DIR/meta.tsv" "$DIR/raw.tsv"
