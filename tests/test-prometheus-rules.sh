#!/bin/bash
# The alerts shipped for Prometheus (deploy/kubernetes/prometheusrule.yaml)
# and how they are scraped (podmonitor.yaml, daemonset.yaml), offline:
# "promtool check rules" on the rules (the PrometheusRule's "spec");
# "promtool test rules" on tests/prometheus/rules-test.yaml, which must
# test every alert, and fails on a wrong expectation (the control); every
# metric the rules use is in the man page's METRICS; the port the
# DaemonSet gives --metrics is the one it names "metrics", which the
# PodMonitor scrapes.  promtool is Debian's prometheus package
# (tools/install-deps.sh test).  No root needed.
#
# Usage: tests/test-prometheus-rules.sh
# Prints PASS/FAIL lines, then exactly one "N passed, N failed" line.

set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
K8S=$TOP/deploy/kubernetes
WORK=$(mktemp -d /tmp/kd-test-rules.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=tests/testlib.sh
. "$HERE/testlib.sh"

# The rules: the PrometheusRule's "spec" (its last key), one level up.
rules() {
    sed -n '/^spec:/,$p' "$K8S/prometheusrule.yaml" | tail -n +2 |
        sed 's/^  //' >"$WORK/kernel-delay.rules.yaml"
}

main() {
    local out alerts a metrics m man dport cport

    if ! command -v promtool >/dev/null; then
        fail "promtool is not installed (tools/install-deps.sh test)"
        return
    fi
    rules
    if out=$(promtool check rules "$WORK/kernel-delay.rules.yaml" 2>&1)
    then
        pass "promtool check rules: $(echo "$out" | grep -o 'SUCCESS.*')"
    else
        fail "promtool check rules: $(echo "$out" | tr '\n' ' ')"
    fi

    cp "$HERE/prometheus/rules-test.yaml" "$WORK/"
    if out=$(promtool test rules "$WORK/rules-test.yaml" 2>&1); then
        pass "promtool test rules: $(echo "$out" | grep -o 'SUCCESS')"
    else
        fail "promtool test rules: $(echo "$out" | head -c 2000)"
    fi

    # A test per alert, with an alert expected.
    alerts=$(sed -n 's/^ *- alert: *//p' "$WORK/kernel-delay.rules.yaml")
    check "alerts in the rules" 6 "$(echo "$alerts" | wc -l)"
    for a in $alerts; do
        if awk -v a="$a" '$0 ~ "alertname: " a "$" { f = 1; next }
                          f && /alertname:/ { f = 0 }
                          f && /exp_labels:/ { found = 1 }
                          END { exit !found }' "$WORK/rules-test.yaml"; then
            pass "$a: tested, firing"
        else
            fail "$a: no test in tests/prometheus/rules-test.yaml that\
 expects it to fire"
        fi
    done

    # The control: a wrong expectation fails.
    sed 's/^\( *\)75% of/\174% of/' "$WORK/rules-test.yaml" \
        >"$WORK/rules-bad.yaml"
    if promtool test rules "$WORK/rules-bad.yaml" >"$WORK/bad.out" 2>&1
    then
        fail "a wrong annotation fails promtool test rules"
    else
        pass "a wrong annotation fails promtool test rules\
 ($(grep -c 'FAILED' "$WORK/bad.out") FAILED)"
    fi

    # Every metric the rules use is documented.
    man=$(sed -n '/^\.SH METRICS/,/^\.SH /p' "$TOP/man/kernel_delay.8" |
          sed 's/\\-/-/g; s/\\f[BIRP]//g')
    metrics=$(grep -o 'kernel_delay_[a-z_]*' \
                  "$WORK/kernel-delay.rules.yaml" |
              sed -E 's/_(count|sum|bucket)$//' | sort -u)
    for m in $metrics; do
        if grep -q "^$m\$\|^$m " <<<"$man"; then
            pass "$m: in the man page's METRICS"
        else
            fail "$m: used by the rules, not in the man page's METRICS"
        fi
    done

    # The DaemonSet serves --metrics on the port it names "metrics", which
    # the PodMonitor scrapes, with the node as a label.
    dport=$(grep -o '"--metrics", *":[0-9]*"' "$K8S/daemonset.yaml" |
            grep -o '[0-9]*"$' | tr -d '"')
    cport=$(grep -A 1 'name: metrics' "$K8S/daemonset.yaml" |
            sed -n 's/.*containerPort: *//p')
    check "the DaemonSet's --metrics port is its port \"metrics\"" \
          "9478 9478" "$dport $cport"
    check "the PodMonitor scrapes port \"metrics\", node as a label" \
          "metrics node" \
          "$(sed -n 's/.*- port: *//p; s/.*targetLabel: *//p' \
                 "$K8S/podmonitor.yaml" | xargs)"
}

main
test_summary
