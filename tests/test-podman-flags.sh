#!/bin/bash
# What make base-image, image and check-image need on a fresh machine,
# installed and selected by the project's own scripts, without podman:
# tools/podman-flags.sh selects runc on a cgroup v1/v2 hybrid (which crun
# refuses: "cgroups in hybrid mode not supported") when runc is there, says
# what to install when it is not, and selects nothing elsewhere;
# tools/install-deps.sh's set "image" has podman and runc (and "test" has
# prometheus); and make installs them before its first podman command,
# whose flags it computes only then (tools/image.mk).  No root needed.
#
# Usage: tests/test-podman-flags.sh
# Prints PASS/FAIL lines, then exactly one "N passed, N failed" line.

set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
WORK=$(mktemp -d /tmp/kd-test-podman.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=tests/testlib.sh
. "$HERE/testlib.sh"

# flags CGROUPS PATH: podman-flags.sh global's output and its standard
# error, on a host whose cgroups are CGROUPS, with PATH.
flags() {
    KD_CGROUP_ROOT=$1 PATH=$2 /bin/sh "$TOP/tools/podman-flags.sh" global \
        2>"$WORK/err"
}

main() {
    local out dry first_install first_podman

    mkdir -p "$WORK/hybrid/unified" "$WORK/v2" "$WORK/with/" "$WORK/without"
    printf '#!/bin/sh\n' >"$WORK/with/runc"
    chmod +x "$WORK/with/runc"

    check "hybrid, runc there: --runtime runc" "--runtime runc" \
          "$(flags "$WORK/hybrid" "$WORK/with")"
    out=$(flags "$WORK/hybrid" "$WORK/without")
    check "hybrid, no runc: no flag" "" "$out"
    if grep -q 'tools/install-deps.sh image' "$WORK/err"; then
        pass "hybrid, no runc: says what to install ($(cat "$WORK/err"))"
    else
        fail "hybrid, no runc: says what to install, got '$(cat "$WORK/err")'"
    fi
    check "cgroup v2 only, runc there: no flag (crun runs)" "" \
          "$(flags "$WORK/v2" "$WORK/with")"
    check "limits" "--ulimit nofile=" \
          "$("$TOP/tools/podman-flags.sh" limits | grep -o -- '--ulimit nofile=')"

    check "install-deps.sh image: podman, runc" "podman runc" \
          "$("$TOP/tools/install-deps.sh" --print image |
             grep -x 'podman\|runc' | xargs)"
    check "install-deps.sh test: prometheus" "prometheus" \
          "$("$TOP/tools/install-deps.sh" --print test | grep -x prometheus)"

    # make check-image: the install first, then podman, with its flags
    # computed after it (a line of the image's recipe).
    dry=$(cd "$TOP" && make -n check-image 2>/dev/null)
    first_install=$(grep -n 'tools/install-deps.sh build image' <<<"$dry" |
                    head -n 1 | cut -d: -f1)
    first_podman=$(grep -n '^podman\|podman .*build' <<<"$dry" |
                   head -n 1 | cut -d: -f1)
    if [[ -n $first_install && -n $first_podman ]] &&
       ((first_install < first_podman)); then
        pass "make check-image installs (line $first_install) before its\
 first podman command (line $first_podman)"
    else
        fail "make check-image installs before podman: install at line\
 '$first_install', podman at '$first_podman'"
    fi
    if grep -q 'image-deps' <<<"$(sed -n '/^image:/p; /^base-image:/p' \
                                      "$TOP/tools/image.mk")" &&
       [[ $(grep -c '^image:.*image-deps\|^base-image:.*image-deps' \
                "$TOP/tools/image.mk") == 2 ]]; then
        pass "make image and base-image depend on image-deps"
    else
        fail "make image and base-image depend on image-deps"
    fi
}

main
test_summary
