/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/render_text.c: the text report as a pure function of
 * a snapshot, literal snapshots in, literal text out. */

#include <stdint.h>
#include <string.h>

#include "render_text.h"
#include "report.h"
#include "snapshot.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
test_render_text_sample(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot_event events[2];
    struct kd_stack stacks[2];
    struct kd_snapshot snap;
    struct kd_miss miss;
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;

    make_snapshot(&snap, stacks, events, &miss);
    snap.upcall_module_gone = true;
    kd_render_text_sample(&ds, &snap, NULL);

    kd_report_sample(&expected, &snap.sample);
    kd_ds_put_cstr(&expected,
        "\n# WARNING: Kernel module openvswitch was unloaded: upcalls are "
        "not counted since.\n");
    kd_report_events_header(&expected);
    kd_report_event(&expected, 1500000000, 1500002000, 43, "handler1", 7);
    kd_ds_put_cstr(&expected,
        "          do_sys_poll+0x1a [kernel]\n"
        "          main+0x10 [workload]\n");
    kd_report_event(&expected, 1600000000, 1600001000, 44,
                    "bad\033]0;x\a", 7);
    kd_ds_put_cstr(&expected, "          do_sys_poll+0x1a [kernel]\n");
    kd_report_lost_stacks(&expected, 1);
    kd_ds_put_cstr(&expected,
        "\n# WARNING: 9 events were not counted because eBPF maps were "
        "full: syscalls 9.\n"
        "#          The statistics above are incomplete; size the maps for "
        "more\n"
        "#          threads with the --max-threads option.\n"
        "\n# WARNING: The kernel skipped kernel_delay's eBPF programs 5 "
        "times,\n"
        "#          as another eBPF program was running on the same CPU: "
        "sched_switch 5.\n"
        "#          The statistics above miss those events.\n"
        "\n# WARNING: kernel_delay's eBPF programs did not see 3 context "
        "switches\n"
        "#          of the traced threads (a thread switched out without "
        "having switched\n"
        "#          in, or in twice): the RUN and READY counts above are "
        "short by\n"
        "#          as many.\n");
    CHECK_STR(kd_ds_cstr(&ds), kd_ds_cstr(&expected));
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "\033");
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "\a");
    kd_ds_destroy(&ds);
    kd_ds_destroy(&expected);
}

/* Without events or warnings, the report is the statistics alone. */
static void
test_render_text_plain(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot snap;

    memset(&snap, 0, sizeof snap);
    kd_render_text_sample(&ds, &snap, NULL);
    kd_report_sample(&expected, &snap.sample);
    CHECK_STR(kd_ds_cstr(&ds), kd_ds_cstr(&expected));
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "WARNING");
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "SYSCALL EVENTS");
    kd_ds_destroy(&ds);
    kd_ds_destroy(&expected);
}

static void
test_render_text_final(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    uint64_t counters[KD_N_COUNTERS] = { 0 };

    kd_render_text_final(&ds, counters, 5);
    CHECK_STR(kd_ds_cstr(&ds), "");

    counters[KD_COUNTER_EVENTS_DROPPED] = 12;
    counters[KD_COUNTER_TRIGGERS_MISSED] = 3;
    kd_render_text_final(&ds, counters, 5);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# WARNING: Not all events were captured, 12 were dropped!\n"
        "#          Increase the BPF ring buffer size with the "
        "--buffer-page-count option.\n"
        "\n# WARNING: Not all start triggers were successful. 3 were missed "
        "due to\n"
        "#          slow userspace processing!\n");
    kd_ds_destroy(&ds);

    /* One sample: no missed trigger can matter, as the reference says. */
    kd_render_text_final(&ds, counters, 1);
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "start triggers");
    kd_ds_destroy(&ds);
}

static void
test_render_text_exited(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_text_exited(&ds, 42, true);
    CHECK_STR(kd_ds_cstr(&ds), "# NOTE: Process 42 exited while waiting "
              "for the start trigger.\n");
    kd_ds_destroy(&ds);
    kd_render_text_exited(&ds, 42, false);
    CHECK_STR(kd_ds_cstr(&ds), "\n# NOTE: Process 42 exited during the "
              "sample; the sample above ends there.\n");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
    TEST(test_render_text_sample),
    TEST(test_render_text_plain),
    TEST(test_render_text_final),
    TEST(test_render_text_exited),
};

CHECK_SUITE(render_text, tests)
