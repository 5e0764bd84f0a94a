#!/bin/bash
# Tests that the man page's examples copy as they are typed: rendered at
# 80 columns (as "MANWIDTH=80 man" and groff set it) and at 60 and 120,
# every line of every example (between .EX and .EE under EXAMPLES) must
# come out whole, with no hyphen put into an option or a regular
# expression and no line broken, and no word of the page may be
# hyphenated (the page sets .nh: options in the text copy too).  A page
# written as the examples once were (filled, so hyphenated) must fail the
# same check.  Prints one line per check and closes with "N passed, N
# failed".
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1

PAGE=man/kernel_delay.8
HYPHEN=$'\xe2\x80\x90'        # U+2010, what grotty prints for a hyphenation.

# shellcheck source=tests/testlib.sh
. tests/testlib.sh

# render PAGE WIDTH [man]: the page as text, WIDTH columns wide, through
# groff, or through man-db's man when the third argument is "man".
render() {
    if [[ ${3:-} == man ]]; then
        MANWIDTH=$2 MAN_KEEP_FORMATTING='' man -l "$1" 2>/dev/null
    else
        groff -man -Tutf8 -rLL="$2"n -rLT="$2"n -P-cbou "$1" 2>/dev/null
    fi
}

# examples PAGE: the lines of its examples, as they are to be typed.
examples() {
    awk '/^\.SH / { in_ex = ($2 == "EXAMPLES") }
         in_ex && /^\.EE/ { code = 0 }
         in_ex && code { print }
         in_ex && /^\.EX/ { code = 1 }' "$1" |
        sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s/\\\\(aq/'/g"
}

# broken PAGE WIDTH [man] [LINES]: prints each example line (of PAGE, or
# those of file LINES) that does not come out whole, as a line of its own,
# in PAGE rendered WIDTH wide.
broken() {
    local text line

    text=$(render "$1" "$2" "${3:-}" | sed -e 's/^ *//' -e 's/ *$//')
    while IFS= read -r line; do
        line=$(sed -e 's/^ *//' -e 's/ *$//' <<<"$line")
        grep -qxF -- "$line" <<<"$text" || echo "$line"
    done < <(if [[ -n ${4:-} ]]; then cat "$4"; else examples "$1"; fi)
}

if ! command -v groff >/dev/null; then
    fail "groff is installed (package groff-base): cannot render the page"
    test_summary
    exit 1
fi

n=$(examples "$PAGE" | wc -l)
if ((n >= 8)); then
    pass "the page has $n example lines between .EX and .EE"
else
    fail "the page has example lines between .EX and .EE (found $n)"
fi
for needle in "--sample-interval 9" "'^(handler|revalidator)'" \
              "--long-poll-events 50ms"; do
    if examples "$PAGE" | grep -qF -- "$needle"; then
        pass "an example holds $needle"
    else
        fail "an example holds $needle"
    fi
done

tools=(groff groff groff)
widths=(80 60 120)
if command -v man >/dev/null; then
    tools+=(man)
    widths+=(80)
else
    echo "# man-db's man is not installed: groff only"
fi
for i in "${!widths[@]}"; do
    w=${widths[i]} via=${tools[i]}
    bad=$(broken "$PAGE" "$w" "$via")
    if [[ -z $bad ]]; then
        pass "$via, $w columns: every example line comes out whole"
    else
        fail "$via, $w columns: example lines broken:\
 $(tr '\n' '|' <<<"$bad")"
    fi
    hy=$(render "$PAGE" "$w" "$via" | grep -c -- "$HYPHEN")
    if ((hy == 0)); then
        pass "$via, $w columns: no word hyphenated"
    else
        fail "$via, $w columns: $hy words hyphenated:\
 $(render "$PAGE" "$w" "$via" | grep -m 3 -- "$HYPHEN" |
   sed 's/^ *//' | tr '\n' '|')"
    fi
done

# The check can fail: the examples as they were set before (filled, under
# .TP), which 80 columns hyphenated.
control=$(mktemp -d)
trap 'rm -rf "$control"' EXIT
cat >"$control/page.8" <<'PAGE'
.TH control 8
.SH EXAMPLES
.TP
Ten one\-second samples, one every 10 seconds:
#
.B kernel_delay \-\-sample\-time 1 \-\-sample\-count 10 \-\-sample\-interval 9
.TP
Handler and revalidator intervals over 50 ms, as JSON:
#
.B kernel_delay \-\-long\-poll\-events 50000000 \-\-thread '^(handler|revalidator)' \-\-json
PAGE
cat >"$control/lines" <<'LINES'
# kernel_delay --sample-time 1 --sample-count 10 --sample-interval 9
LINES
bad=$(broken "$control/page.8" 80 groff "$control/lines")
if [[ $bad == "# kernel_delay --sample-time 1 --sample-count 10"* ]] \
   && render "$control/page.8" 80 | grep -q -- "$HYPHEN"; then
    pass "control: a filled example is found broken at 80 columns"
else
    fail "control: a filled example is found broken at 80 columns"
fi

test_summary
