/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/hints.c: the next step after an error.  The texts are
 * written out here; the commands they name are checked to be there. */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hints.h"
#include "util.h"
#include "check.h"

/* What kd_hint_print() writes for the lines of 'ds'. */
static char *
printed(struct kd_ds *ds)
{
    size_t size;
    char *buf;
    FILE *f = open_memstream(&buf, &size);

    if (!f) {
        abort();
    }
    kd_hint_print(ds, f);
    fclose(f);
    return buf;
}

static void
test_hint_print(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    char *out;

    kd_ds_put_cstr(&ds, "one\ntwo\n");
    out = printed(&ds);
    CHECK_STR(out, "kernel_delay: hint: one\nkernel_delay: hint: two\n");
    CHECK_STR(kd_ds_cstr(&ds), "");
    free(out);

    /* A last line without its newline, and nothing at all. */
    kd_ds_put_cstr(&ds, "last");
    out = printed(&ds);
    CHECK_STR(out, "kernel_delay: hint: last\n");
    free(out);
    out = printed(&ds);
    CHECK_STR(out, "");
    free(out);
}

static void
test_hint_target(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_hint_no_vswitchd(&ds);
    CHECK_STR(kd_ds_cstr(&ds),
              "no running ovs-vswitchd was found; 'pidof ovs-vswitchd' "
              "shows whether Open vSwitch runs\n"
              "to trace another process, give its PID: kernel_delay -p "
              "PID\n");
    kd_ds_destroy(&ds);

    kd_hint_many_vswitchd(&ds);
    CHECK_STR(kd_ds_cstr(&ds), "'pidof ovs-vswitchd' lists them; choose "
              "one: kernel_delay -p PID\n");
    kd_ds_destroy(&ds);

    kd_hint_no_process(&ds, 4000000);
    CHECK_STR(kd_ds_cstr(&ds), "no process or thread 4000000 runs (it may "
              "have exited); 'pidof ovs-vswitchd' gives Open vSwitch's "
              "PID\n");
    kd_ds_destroy(&ds);

    kd_hint_no_thread(&ds, 42);
    CHECK_STR(kd_ds_cstr(&ds), "its threads: ls /proc/42/task, or ps -T -p "
              "42\n");
    kd_ds_destroy(&ds);
}

static void
test_hint_permissions(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_hint_not_root(&ds);
    CHECK_CONTAINS(kd_ds_cstr(&ds), "run it as root, e.g. with sudo");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN");
    kd_ds_destroy(&ds);

    /* Bits 21 (CAP_SYS_ADMIN), 38 (CAP_PERFMON), 39 (CAP_BPF). */
    CHECK(!kd_hint_caps_lacking(UINT64_C(0x1ffffffffff)));
    CHECK(!kd_hint_caps_lacking(UINT64_C(1) << 21));
    CHECK(!kd_hint_caps_lacking(UINT64_C(3) << 38));
    CHECK(kd_hint_caps_lacking(UINT64_C(1) << 38));
    CHECK(kd_hint_caps_lacking(UINT64_C(1) << 39));
    CHECK(kd_hint_caps_lacking(0));
    /* What setpriv --bounding-set -bpf,-sys_admin,-perfmon leaves. */
    CHECK(kd_hint_caps_lacking(UINT64_C(0x13ffedfffff)));

    kd_hint_no_capability(&ds, UINT64_C(0x13ffedfffff));
    CHECK_STR(kd_ds_cstr(&ds), "root lacks CAP_SYS_ADMIN, CAP_PERFMON, "
              "CAP_BPF here (a container? a security policy?): eBPF "
              "tracing needs CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON\n"
              "in a container: --privileged, or --cap-add for each of "
              "them\n");
    kd_ds_destroy(&ds);
    kd_hint_no_capability(&ds, UINT64_C(1) << 39);
    CHECK_CONTAINS(kd_ds_cstr(&ds), "root lacks CAP_SYS_ADMIN, CAP_PERFMON "
                   "here");
    kd_ds_destroy(&ds);

    kd_hint_usdt_unreadable(&ds, 42, EACCES);
    CHECK_STR(kd_ds_cstr(&ds), "reading process 42's memory maps needs "
              "root (or CAP_SYS_PTRACE): Permission denied; run it with "
              "sudo\n");
    kd_ds_destroy(&ds);
    kd_hint_usdt_unreadable(&ds, 42, ENOENT);
    CHECK_STR(kd_ds_cstr(&ds), "process 42 has exited\n");
    kd_ds_destroy(&ds);
    kd_hint_usdt_unreadable(&ds, 42, 0);
    CHECK_STR(kd_ds_cstr(&ds), "its executable (/proc/42/exe) or a library "
              "it maps could not be read as ELF\n");
    kd_ds_destroy(&ds);
}

/* The kinds, from the trigger module's table: each with its arguments
 * and its names, as trigger.h lists them. */
static void
test_hint_trigger_syntax(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_hint_trigger_syntax(&ds);
    CHECK_STR(kd_ds_cstr(&ds),
              "a trigger is TYPE:ARGUMENTS, one of:\n"
              "  u:PROVIDER:PROBE (usdt)\n"
              "  t:SYSTEM:EVENT (trace)\n"
              "  k:FUNCTION (kprobe)\n"
              "  kr:FUNCTION (kretprobe)\n"
              "  up:[LIBRARY:]FUNCTION (uprobe)\n"
              "  ur:[LIBRARY:]FUNCTION (uretprobe, upr)\n"
              "e.g. --start-trigger up:bridge_run --stop-trigger "
              "ur:bridge_run; see TRIGGERS in kernel_delay(8)\n");
    kd_ds_destroy(&ds);
}

static void
test_hint_missing_function(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_hint_missing_function(&ds, 7, NULL);
    CHECK_CONTAINS(kd_ds_cstr(&ds), "'nm /proc/7/exe' then says "
                   "\"no symbols\"; 'nm -D /proc/7/exe' lists");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "openvswitch-switch-dbgsym");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "/usr/lib/debug");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "'kernel_delay -p 7 --list-probes'");
    kd_ds_destroy(&ds);

    kd_hint_missing_function(&ds, 7, "libc.so.6");
    CHECK_STR(kd_ds_cstr(&ds), "'nm -D --defined-only FILE' lists the "
              "functions a library exports (FILE from 'grep libc.so.6 "
              "/proc/7/maps')\n");
    kd_ds_destroy(&ds);

    kd_hint_missing_library(&ds, 7);
    CHECK_STR(kd_ds_cstr(&ds), "'grep -o \"/.*\\.so.*\" /proc/7/maps | "
              "sort -u' lists the libraries it maps\n");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
    TEST(test_hint_print),
    TEST(test_hint_target),
    TEST(test_hint_permissions),
    TEST(test_hint_trigger_syntax),
    TEST(test_hint_missing_function),
};

CHECK_SUITE(hints, tests)
