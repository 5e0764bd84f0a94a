/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The reports as pure functions of a snapshot: literal snapshots in,
 * literal text and JSON out.  No kernel, no /proc. */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "render_json.h"
#include "render_text.h"
#include "report.h"
#include "snapshot.h"

/* Local time is UTC for the tests, whatever the machine's zone. */
static void
utc(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
}

static char kernel_frame[] = "do_sys_poll+0x1a [kernel]";
static char user_frame[] = "main+0x10 [workload]";
static char *kernel_frames[] = { kernel_frame };
static char *user_frames[] = { user_frame };

/* A snapshot of sample 3 of process 42: no thread statistics, two
 * syscall events of which the second lost its user stack, one map full,
 * one recursion miss. */
static void
make_snapshot(struct kd_snapshot *snap, struct kd_stack stacks[2],
              struct kd_snapshot_event events[2], struct kd_miss *miss)
{
    memset(snap, 0, sizeof *snap);
    utc();
    snap->tgid = 42;
    snap->window = (struct kd_window) {
        .index = 3,
        .start_ns = 1000000000,
        .stop_ns = 3000000000,
        .start_wall = { .tv_sec = 1700000000, .tv_nsec = 123456789 },
        .stop_wall = { .tv_sec = 1700000002, .tv_nsec = 0 },
    };
    stacks[0] = (struct kd_stack) { .taken = true, .kernel = true,
                                    .frames = kernel_frames,
                                    .n_frames = 1 };
    stacks[1] = (struct kd_stack) { .taken = true, .frames = user_frames,
                                    .n_frames = 1 };
    events[0] = (struct kd_snapshot_event) {
        .tid = 43, .syscall = 7, .entry_ns = 1500000000,
        .exit_ns = 1500002000, .kernel_stack_id = 0, .user_stack_id = 1,
        .name = "handler1",
    };
    events[1] = (struct kd_snapshot_event) {
        .tid = 44, .syscall = 7, .entry_ns = 1600000000,
        .exit_ns = 1600001000, .kernel_stack_id = 0, .user_stack_id = -1,
        .name = "bad\033]0;x\a",
    };
    *miss = (struct kd_miss) { .hook = "sched_switch", .count = 5 };
    snap->with_events = snap->with_stacks = true;
    snap->events = events;
    snap->n_events = 2;
    snap->stacks = stacks;
    snap->n_stacks = 2;
    snap->lost_stacks = 1;
    snap->lost[KD_MAP_SYSCALLS] = 9;
    snap->counters[KD_COUNTER_EVENTS_DROPPED] = 4;
    snap->misses = miss;
    snap->n_misses = 1;
    snap->upcall_module = "openvswitch";
}

static void
test_format_wall_time(void)
{
    struct timespec ts = { .tv_sec = 1700000000, .tv_nsec = 123456789 };
    char buf[40];

    utc();
    CHECK_STR(kd_format_wall_time(&ts, buf), "2023-11-14T22:13:20.123456");
    ts.tv_nsec = 999;       /* Under a microsecond: no fraction. */
    CHECK_STR(kd_format_wall_time(&ts, buf), "2023-11-14T22:13:20");
}

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
        "#          The statistics above miss those events.\n");
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

static void
test_render_json_sample(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot_event events[2];
    struct kd_stack stacks[2];
    struct kd_snapshot snap;
    struct kd_miss miss;

    make_snapshot(&snap, stacks, events, &miss);
    snap.window.target_exited = true;
    kd_render_json_sample(&ds, &snap, NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"version\":1,\"pid\":42,\"sample\":3,\"skipped\":false,"
        "\"window\":{\"start\":\"2023-11-14T22:13:20.123456\","
        "\"stop\":\"2023-11-14T22:13:22\",\"start_ns\":1000000000,"
        "\"stop_ns\":3000000000,\"duration_ns\":2000000000,"
        "\"start_trigger_ns\":null,\"stop_trigger_ns\":null,"
        "\"trigger_delta_ns\":null},"
        "\"threads\":[],\"upcalls\":null,"
        "\"syscall_events\":["
        "{\"tid\":43,\"name\":\"handler1\",\"syscall\":\"poll\","
        "\"number\":7,\"entry_ns\":1500000000,\"exit_ns\":1500002000,"
        "\"kernel_stack\":[\"do_sys_poll+0x1a [kernel]\"],"
        "\"user_stack\":[\"main+0x10 [workload]\"]},"
        "{\"tid\":44,\"name\":\"bad\\u001b]0;x\\u0007\",\"syscall\":\"poll\","
        "\"number\":7,\"entry_ns\":1600000000,\"exit_ns\":1600001000,"
        "\"kernel_stack\":[\"do_sys_poll+0x1a [kernel]\"],"
        "\"user_stack\":null}],"
        "\"summary\":null,"
        "\"warnings\":{\"map_full\":{\"syscalls\":9},"
        "\"recursion_misses\":{\"sched_switch\":5},\"lost_stacks\":1,"
        "\"events_dropped\":4,\"triggers_missed\":0,"
        "\"upcall_module_unloaded\":false},"
        "\"target_exited\":true}\n");
    kd_ds_destroy(&ds);
}

/* A skipped sample: its window and its warnings, nothing else. */
static void
test_render_json_skipped(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot snap;

    memset(&snap, 0, sizeof snap);
    utc();
    snap.tgid = 7;
    snap.window = (struct kd_window) {
        .index = 2, .start_ns = 10, .stop_ns = 25,
        .start_trigger_ns = 10, .stop_trigger_ns = 25, .delta_ns = 15,
        .skipped = true,
    };
    snap.counters[KD_COUNTER_TRIGGERS_MISSED] = 1;
    kd_render_json_sample(&ds, &snap, NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"version\":1,\"pid\":7,\"sample\":2,\"skipped\":true,"
        "\"window\":{\"start\":\"1970-01-01T00:00:00\","
        "\"stop\":\"1970-01-01T00:00:00\",\"start_ns\":10,\"stop_ns\":25,"
        "\"duration_ns\":15,\"start_trigger_ns\":10,\"stop_trigger_ns\":25,"
        "\"trigger_delta_ns\":15},"
        "\"warnings\":{\"map_full\":{},\"recursion_misses\":{},"
        "\"lost_stacks\":0,\"events_dropped\":0,\"triggers_missed\":1,"
        "\"upcall_module_unloaded\":false}}\n");
    kd_ds_destroy(&ds);
}

static void
test_render_json_exited_waiting(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_json_exited_waiting(&ds, 42);
    CHECK_STR(kd_ds_cstr(&ds), "{\"version\":1,\"pid\":42,"
              "\"target_exited\":true,\"waiting_for\":\"start trigger\"}\n");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
    TEST(test_format_wall_time),
    TEST(test_render_text_sample),
    TEST(test_render_text_plain),
    TEST(test_render_text_final),
    TEST(test_render_text_exited),
    TEST(test_render_json_sample),
    TEST(test_render_json_skipped),
    TEST(test_render_json_exited_waiting),
};

int
main(int argc, char *argv[])
{
    return check_main(tests, KD_ARRAY_SIZE(tests), argc, argv);
}
