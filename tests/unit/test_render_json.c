/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/render_json.c: the JSON report as a pure function of
 * a snapshot, literal snapshots in, literal JSON out. */

#include <string.h>

#include "gap.h"
#include "render_json.h"
#include "snapshot.h"
#include "summary.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

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
    kd_render_json_sample(&ds, NULL, &snap, NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"version\":2,\"pid\":42,\"sample\":3,\"skipped\":false,"
        "\"window\":{\"start\":\"2023-11-14T22:13:20.123456Z\","
        "\"stop\":\"2023-11-14T22:13:22.000000Z\",\"start_ns\":1000000000,"
        "\"stop_ns\":3000000000,\"duration_ns\":2000000000,"
        "\"start_trigger_ns\":null,\"stop_trigger_ns\":null,"
        "\"trigger_delta_ns\":null},"
        "\"threads\":[],\"upcalls\":null,"
        "\"syscall_events\":["
        "{\"tid\":43,\"name\":\"handler1\",\"syscall\":\"poll\","
        "\"number\":7,\"entry_ns\":1500000000,\"exit_ns\":1500002000,"
        "\"entry\":\"2023-11-14T22:13:20.500000Z\","
        "\"exit\":\"2023-11-14T22:13:20.500002Z\","
        "\"kernel_stack\":[\"do_sys_poll+0x1a [kernel]\"],"
        "\"user_stack\":[\"main+0x10 [workload]\"]},"
        "{\"tid\":44,\"name\":\"bad\\u001b]0;x\\u0007\",\"syscall\":\"poll\","
        "\"number\":7,\"entry_ns\":1600000000,\"exit_ns\":1600001000,"
        "\"entry\":\"2023-11-14T22:13:20.600000Z\","
        "\"exit\":\"2023-11-14T22:13:20.600001Z\","
        "\"kernel_stack\":[\"do_sys_poll+0x1a [kernel]\"],"
        "\"user_stack\":null}],"
        "\"summary\":null,"
        "\"warnings\":{\"map_full\":{\"syscalls\":9},"
        "\"recursion_misses\":{\"sched_switch\":5},\"switches_missed\":3,"
        "\"lost_stacks\":1,"
        "\"events_dropped\":4,\"triggers_missed\":0,"
        "\"upcall_module_unloaded\":false},"
        "\"target_exited\":true}\n");
    kd_ds_destroy(&ds);
}

#if defined(__x86_64__)
/* The threads, each section of them (who ran instead counted), and the
 * summary; names escaped.  Written from the JSON forms' definitions
 * (--json in the man page). */
static void
test_render_json_threads(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_summary_row rows[2];
    struct kd_snapshot snap;

    memset(&snap, 0, sizeof snap);
    make_summary_sample(&snap.sample);
    snap.sample.with_ran = true;
    snap.with_summary = true;
    snap.rows = rows;
    snap.window.stop_ns = 500000000;
    kd_summary_compute(&snap.sample, rows);
    kd_render_json_sample(&ds, NULL, &snap, NULL);
    CHECK_CONTAINS(kd_ds_cstr(&ds),
        "\"threads\":[{\"tid\":1,\"name\":\"handler1\","
        "\"syscalls\":[{\"name\":\"poll\",\"number\":7,\"count\":5,"
        "\"total_ns\":400000000,\"max_ns\":0},{\"name\":\"read\","
        "\"number\":0,\"count\":2,\"total_ns\":50000000,\"max_ns\":0}],"
        "\"syscalls_but_poll\":{\"count\":2,\"total_ns\":50000000},"
        "\"long_poll\":null,\"run\":{\"count\":2,\"total_ns\":100000000,"
        "\"min_ns\":0,\"max_ns\":0},\"ready\":null,\"stopped\":null,"
        "\"hard_irqs\":[],\"soft_irqs\":[],\"histograms\":null,"
        "\"ran_instead\":[]},"
        "{\"tid\":2,\"name\":\"urcu2\",\"syscalls\":[],"
        "\"syscalls_but_poll\":{\"count\":0,\"total_ns\":0},"
        "\"long_poll\":null,\"run\":null,\"ready\":{\"count\":3,"
        "\"total_ns\":250000000,\"max_ns\":120000000},\"stopped\":null,"
        "\"hard_irqs\":[],\"soft_irqs\":[],\"histograms\":null,"
        "\"ran_instead\":[{\"tid\":3,\"pid\":1,\"name\":\"pmd\\u001b4\","
        "\"ns\":200000000,\"count\":4},{\"tid\":null,\"pid\":null,"
        "\"name\":null,\"ns\":50000000,\"count\":1}]}],"
        "\"upcalls\":null,\"syscall_events\":null,");
    CHECK_CONTAINS(kd_ds_cstr(&ds),
        "\"summary\":"
        "{\"window_ns\":500000000,\"threads\":[{\"tid\":2,\"name\":\"urcu2\","
        "\"run_ns\":0,\"ready_ns\":250000000,\"stopped_ns\":0,"
        "\"hard_irq_ns\":0,\"soft_irq_ns\":0,\"syscalls_but_poll_ns\":0,"
        "\"longest_ready_ns\":120000000,\"ran_instead_top\":{\"tid\":3,"
        "\"pid\":1,\"name\":\"pmd\\u001b4\",\"ns\":200000000,"
        "\"count\":4}},{\"tid\":1,\"name\":\"handler1\","
        "\"run_ns\":100000000,\"ready_ns\":0,\"stopped_ns\":0,"
        "\"hard_irq_ns\":0,\"soft_irq_ns\":0,"
        "\"syscalls_but_poll_ns\":50000000,\"longest_ready_ns\":0,"
        "\"ran_instead_top\":null}],\"worst\":2},\"warnings\":");
    kd_ds_destroy(&ds);
}
#endif /* __x86_64__ */

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
    snap.total.triggers_missed = 1;
    kd_render_json_sample(&ds, NULL, &snap, NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"version\":2,\"pid\":7,\"sample\":2,\"skipped\":true,"
        "\"window\":{\"start\":\"1970-01-01T00:00:00.000000Z\","
        "\"stop\":\"1970-01-01T00:00:00.000000Z\","
        "\"start_ns\":10,\"stop_ns\":25,"
        "\"duration_ns\":15,\"start_trigger_ns\":10,\"stop_trigger_ns\":25,"
        "\"trigger_delta_ns\":15},"
        "\"warnings\":{\"map_full\":{},\"recursion_misses\":{},"
        "\"switches_missed\":0,"
        "\"lost_stacks\":0,\"events_dropped\":0,\"triggers_missed\":1,"
        "\"upcall_module_unloaded\":false}}\n");
    kd_ds_destroy(&ds);
}

static void
test_render_json_exited(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_json_exited(&ds, NULL, 42, true);
    CHECK_STR(kd_ds_cstr(&ds), "{\"version\":2,\"pid\":42,"
              "\"target_exited\":true,\"waiting_for\":\"start trigger\"}\n");
    kd_ds_destroy(&ds);

    /* During a sample: the sample's record says it. */
    kd_render_json_exited(&ds, NULL, 42, false);
    CHECK_STR(kd_ds_cstr(&ds), "");
    kd_ds_destroy(&ds);
}

/* An interval still going on: its own type, no index, and the syscall it
 * is in (or null). */
static void
test_render_json_gap_progress(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_gap_event ev;
    struct kd_losses total = KD_LOSSES_INITIALIZER;
    struct kd_gap gap;

    make_gap_event(&ev);
    ev.head.id = KD_EVENT_LONG_POLL_PROGRESS;
    ev.head.entry_ts = ev.head.ts - 150000000;
    ev.head.syscall = 230;
    kd_gap_decode(&ev, 0, 3, &gap);
    kd_render_json_gap(&ds, NULL, &gap, &total);
    CHECK_CONTAINS(kd_ds_cstr(&ds), "{\"version\":2,"
                   "\"type\":\"long_poll_progress\",\"pid\":40,");
    CHECK_CONTAINS(kd_ds_cstr(&ds), ",\"syscall_in_progress\":"
                   "{\"name\":\"clock_nanosleep\",\"number\":230,"
                   "\"ns\":150000000},\"warnings\":");
    CHECK(!strstr(kd_ds_cstr(&ds), "\"index\""));
    kd_ds_destroy(&ds);

    ev.head.entry_ts = 0;
    kd_gap_decode(&ev, 0, 3, &gap);
    kd_render_json_gap(&ds, NULL, &gap, &total);
    CHECK_CONTAINS(kd_ds_cstr(&ds), ",\"syscall_in_progress\":null,");
    kd_ds_destroy(&ds);
}

/* One long poll interval: every field of the record, names escaped, and
 * the warnings. */
static void
test_render_json_gap(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_gap_event ev;
    struct kd_losses total = KD_LOSSES_INITIALIZER;
    struct kd_gap gap;

    total.events_dropped = 2;
    make_gap_event(&ev);
    ev.comm[3] = '\033';
    ev.acct.v[KD_ACCT_SLEEP] = 300000000;   /* Unaccounted: -100 ms. */
    kd_gap_decode(&ev, 1000000000000000000LL, 3, &gap);
    with_tz("UTC");
    kd_render_json_gap(&ds, NULL, &gap, &total);
    with_tz(NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"version\":2,\"type\":\"long_poll\",\"index\":3,\"pid\":40,"
        "\"tid\":42,\"name\":\"rev\\u001blidator12345\","
        "\"start_ns\":5000000000,\"end_ns\":6000000000,"
        "\"start\":\"2001-09-09T01:46:45.000000Z\","
        "\"end\":\"2001-09-09T01:46:46.000000Z\","
        "\"gap_ns\":1000000000,\"on_cpu_ns\":97000000,"
        "\"run_queue_ns\":300000000,\"stopped_ns\":400000000,"
        "\"hardirq_ns\":1000000,\"softirq_ns\":2000000,"
        "\"blocked_in_syscalls_ns\":150000000,"
        "\"blocked_outside_syscalls_ns\":150000000,"
        "\"unaccounted_ns\":-100000000,"
        "\"on_cpu_user_ns\":57000000,\"on_cpu_kernel_ns\":40000000,"
        "\"dominant\":\"stopped\",\"waits\":5,\"preemptions\":4,"
        "\"sleeps\":2,\"syscalls\":[{\"name\":\"clock_nanosleep\","
        "\"number\":230,\"count\":1,\"total_ns\":150100000,"
        "\"blocked_ns\":149990000},{\"name\":\"sched_setaffinity\","
        "\"number\":203,\"count\":1,\"total_ns\":3000000,"
        "\"blocked_ns\":10000}],\"other_syscalls\":{\"count\":3,"
        "\"total_ns\":5000,\"blocked_ns\":0},\"ran_instead\":[{\"tid\":43,"
        "\"pid\":40,\"name\":\"pmd4\",\"ns\":290000000,\"count\":6},"
        "{\"tid\":0,\"pid\":0,\"name\":\"swapper/1\",\"ns\":6000000,"
        "\"count\":1}],\"ran_instead_others_ns\":4000000,"
        "\"warnings\":{\"map_full\":{},\"recursion_misses\":{},"
        "\"switches_missed\":0,\"lost_stacks\":0,\"events_dropped\":2,"
        "\"triggers_missed\":0,\"upcall_module_unloaded\":false}}\n");
    kd_ds_destroy(&ds);

    kd_render_json_watch_end(&ds, NULL, 40, &total, 5, true);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"version\":2,\"type\":\"long_poll_end\",\"pid\":40,"
        "\"reported\":5,\"warnings\":{\"map_full\":{},"
        "\"recursion_misses\":{},\"switches_missed\":0,\"lost_stacks\":0,"
        "\"events_dropped\":2,\"triggers_missed\":0,"
        "\"upcall_module_unloaded\":false},\"target_exited\":true}\n");
    kd_ds_destroy(&ds);
}

/* The target records of --wait-target, and the "node" of --node-name,
 * escaped, in every kind of record. */
static void
test_render_json_target(void)
{
    struct kd_losses total = KD_LOSSES_INITIALIZER;
    struct timespec now = { .tv_sec = 1000000006, .tv_nsec = 0 };
    const char *node = "node\033\"1";
    const char *head = "{\"version\":2,\"node\":\"node\\u001b\\\"1\",";
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot_event events[2];
    struct kd_stack stacks[2];
    struct kd_snapshot snap;
    struct kd_gap_event ev;
    struct kd_miss miss;
    struct kd_gap gap;

    with_tz("UTC");
    kd_render_json_target(&ds, NULL, KD_TARGET_WAITING, 0, &now);
    kd_render_json_target(&ds, NULL, KD_TARGET_ATTACHED, 40, &now);
    kd_render_json_target(&ds, "n1", KD_TARGET_LOST, 40, &now);
    with_tz(NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"version\":2,\"type\":\"target\",\"event\":\"waiting\","
        "\"pid\":null,\"time\":\"2001-09-09T01:46:46.000000Z\"}\n"
        "{\"version\":2,\"type\":\"target\",\"event\":\"attached\","
        "\"pid\":40,\"time\":\"2001-09-09T01:46:46.000000Z\"}\n"
        "{\"version\":2,\"node\":\"n1\",\"type\":\"target\","
        "\"event\":\"lost\",\"pid\":40,"
        "\"time\":\"2001-09-09T01:46:46.000000Z\"}\n");
    kd_ds_destroy(&ds);

    kd_render_json_target(&ds, node, KD_TARGET_ATTACHED, 40, &now);
    CHECK(!strncmp(kd_ds_cstr(&ds), head, strlen(head)));
    kd_ds_destroy(&ds);
    kd_render_json_exited(&ds, node, 42, true);
    CHECK(!strncmp(kd_ds_cstr(&ds), head, strlen(head)));
    kd_ds_destroy(&ds);
    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_render_json_gap(&ds, node, &gap, &total);
    CHECK(!strncmp(kd_ds_cstr(&ds), head, strlen(head)));
    kd_ds_destroy(&ds);
    kd_render_json_watch_end(&ds, node, 40, &total, 1, false);
    CHECK(!strncmp(kd_ds_cstr(&ds), head, strlen(head)));
    kd_ds_destroy(&ds);
    make_snapshot(&snap, stacks, events, &miss);
    kd_render_json_sample(&ds, node, &snap, NULL);
    CHECK(!strncmp(kd_ds_cstr(&ds), head, strlen(head)));
    kd_ds_destroy(&ds);
}

/* --profile-hz: "profile" and "on_cpu_stacks", frames escaped; neither
 * without it. */
static void
test_render_json_gap_stacks(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_losses total = KD_LOSSES_INITIALIZER;
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_profiled_gap(&ev, &gap);
    free(gap.stacks[0].frames[0]);
    gap.stacks[0].frames[0] = kd_xstrdup("sp\033n+0x1 [ovs-vswitchd]");
    kd_gap_merge_stacks(&gap);
    kd_render_json_gap(&ds, NULL, &gap, &total);
    CHECK(strstr(kd_ds_cstr(&ds),
        ",\"ran_instead_others_ns\":4000000,"
        "\"profile\":{\"hz\":99,\"samples\":100,\"other_samples\":0,"
        "\"other_ns\":0,\"lost_samples\":2,\"lost_ns\":1940000},"
        "\"on_cpu_stacks\":[{\"samples\":50,\"ns\":48500000,\"merged\":1,"
        "\"lost\":false,\"frames\":[\"sp\\u001bn+0x1 [ovs-vswitchd]\","
        "\"main+0x2 [ovs-vswitchd]\"]},{\"samples\":48,\"ns\":46560000,"
        "\"merged\":2,\"lost\":false,\"frames\":[\"clear_user+0x10 "
        "[kernel]\",\"read+0x5 [libc.so.6]\",\"main+0x2 [ovs-vswitchd]\"]}],"
        "\"warnings\":"));
    kd_ds_destroy(&ds);
    kd_gap_destroy(&gap);

    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_render_json_gap(&ds, NULL, &gap, &total);
    CHECK(!strstr(kd_ds_cstr(&ds), "profile"));
    CHECK(!strstr(kd_ds_cstr(&ds), "on_cpu_stacks"));
    CHECK(!strstr(kd_ds_cstr(&ds), "off_cpu"));
    CHECK(!strstr(kd_ds_cstr(&ds), "blocked\":["));
    kd_ds_destroy(&ds);

    /* --off-cpu. */
    make_blocked_gap(&ev, &gap);
    kd_gap_merge_blocked(&gap);
    strcpy(gap.blocked[1].waker_name, "swap;\033r/1");
    kd_render_json_gap(&ds, NULL, &gap, &total);
    CHECK(strstr(kd_ds_cstr(&ds),
        ",\"off_cpu\":{\"sleeps\":5,\"other_sleeps\":0,\"other_ns\":0,\"lost_s"
        "leeps\":1},\"blocked\":[{\"count\":3,\"ns\":403000000,\"sleep_ns\":40"
        "0000000,\"run_queue_ns\":3000000,\"merged\":2,\"lost\":false,\"going_"
        "on\":false,\"frames\":[\"schedule+0x1 [kernel]\",\"read+0x5 [libc.so."
        "6]\",\"wait_reply+0x10 [ovs-vswitchd]\"],\"waker\":{\"tid\":44,\"pid"
        "\":40,\"name\":\"writer\",\"context\":\"task\",\"frames\":[\"try_to_w"
        "ake_up+0x1 [kernel]\",\"write+0x2 [libc.so.6]\",\"send_reply+0x3 [ovs"
        "-vswitchd]\"]}},{\"count\":1,\"ns\":50000000,\"sleep_ns\":50000000,\""
        "run_queue_ns\":0,\"merged\":1,\"lost\":false,\"going_on\":false,\"fra"
        "mes\":[\"futex_wait+0x2 [kernel]\",\"lll_lock+0x5 [libc.so.6]\"],\"wa"
        "ker\":{\"tid\":0,\"pid\":0,\"name\":\"swap;\\u001br/1\",\"context\":"
        "\"hardirq\",\"frames\":[\"try_to_wake_up+0x1 [kernel]\",\"hrtimer_int"
        "errupt+0x10 [kernel]\"]}},{\"count\":1,\"ns\":10000000,\"sleep_ns\":1"
        "0000000,\"run_queue_ns\":0,\"merged\":1,\"lost\":false,\"going_on\":f"
        "alse,\"frames\":[\"do_nanosleep+0x3 [kernel]\",\"nanosleep+0x4 [libc."
        "so.6]\"],\"waker\":null}],\"warnings\""));
    kd_ds_destroy(&ds);
    kd_gap_destroy(&gap);
}

/* --profile-hz and --off-cpu in a sample: each thread's stacks in its
 * object, what found no room in the sample's. */
static void
test_render_json_thread_stacks(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot snap;
    struct kd_thread threads[2];
    struct kd_gap gaps[2];

    make_stacks_snapshot(&snap, threads, gaps);
    kd_render_json_sample(&ds, NULL, &snap, NULL);
    CHECK_CONTAINS(kd_ds_cstr(&ds), "\"ran_instead\":null,\"profile\":{"
                   "\"hz\":99,\"samples\":100,");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "]}],\"off_cpu\":{\"sleeps\":5,");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "\"name\":\"idle\",");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "\"profile\":{\"hz\":99,\"samples\":0,"
                   "\"other_samples\":0,\"other_ns\":0,\"lost_samples\":0,"
                   "\"lost_ns\":0},\"on_cpu_stacks\":[],\"off_cpu\":{"
                   "\"sleeps\":0,\"other_sleeps\":0,\"other_ns\":0,"
                   "\"lost_sleeps\":0},\"blocked\":[]}");
    CHECK_CONTAINS(kd_ds_cstr(&ds), ",\"stacks_lost\":{\"samples\":3,"
                   "\"sleeps\":1},\"warnings\":");
    kd_ds_destroy(&ds);
    kd_gap_destroy(&gaps[0]);
}

static const struct test tests[] = {
    TEST(test_render_json_target),
    TEST(test_render_json_sample),
    TEST(test_render_json_thread_stacks),
#if defined(__x86_64__)
    TEST(test_render_json_threads),
#endif
    TEST(test_render_json_skipped),
    TEST(test_render_json_exited),
    TEST(test_render_json_gap),
    TEST(test_render_json_gap_progress),
    TEST(test_render_json_gap_stacks),
};

CHECK_SUITE(render_json, tests)
