/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/trace.c: a long poll interval and its thread's
 * history as a trace in the JSON Trace Event Format. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gap.h"
#include "trace.h"
#include "util.h"
#include "check.h"

#define NR_READ 0
#define NR_POLL 7

/* Frames "kID" and "uID" for the stacks of a pair; "(tracepoint)" first
 * for those taken at one. */
static size_t
fake_frames(void *aux, int32_t kstack, int32_t ustack, bool tracepoint,
            char ***v)
{
    size_t n = 0;

    (void) aux;
    *v = kd_xcalloc(3, sizeof **v);
    if (tracepoint) {
        (*v)[n++] = kd_xstrdup("(tracepoint)");
    }
    if (kstack >= 0) {
        (*v)[n++] = kd_xasprintf("k%d", kstack);
    }
    if (ustack >= 0) {
        (*v)[n++] = kd_xasprintf("u%d", ustack);
    }
    return n;
}

static struct kd_trace_rec
rec(uint16_t kind, uint64_t ts, uint16_t cpu, uint32_t arg, uint32_t nr)
{
    struct kd_trace_rec r = {
        .ts = ts, .kind = kind, .cpu = cpu, .arg = arg, .nr = nr,
        .ustack = -1, .kstack = -1,
    };

    return r;
}

static struct kd_trace_rec
task_rec(uint16_t kind, uint64_t ts, uint32_t tid, uint32_t pid,
         const char *comm, uint64_t dur)
{
    struct kd_trace_rec r = rec(kind, ts, 0, tid, 0);

    r.pid = pid;
    r.dur = dur;
    strncpy(r.comm, comm, sizeof r.comm);
    return r;
}

/* The interval from 1 ms to 2 ms of thread 101 of process 100: a sleep
 * in poll() before it, woken by 'waker'; in it a read(), a wait behind
 * 'hog' (whose charge is read a little after the switch in), an IRQ, a
 * sample, a stop ended by 'bash'.  Its parts as the kernel counted them:
 * 490 us on CPU, 10 us in IRQs, 350 us in the run queue, 150 us
 * stopped. */
static size_t
make_traced_gap(struct kd_gap *gap, struct kd_trace_rec *r)
{
    size_t n = 0;

    memset(gap, 0, sizeof *gap);
    gap->index = 1;
    gap->pid = 100;
    gap->tid = 101;
    strcpy(gap->name, "revalidator2");
    gap->start_ns = 1000000;
    gap->end_ns = 2000000;
    gap->start_wall.tv_sec = 1795000000;
    gap->start_wall.tv_nsec = 123456789;
    gap->end_wall.tv_sec = 1795000000;
    gap->end_wall.tv_nsec = 124456789;
    gap->parts[KD_GAP_ON_CPU] = 490000;
    gap->parts[KD_GAP_HARDIRQ] = 10000;
    gap->parts[KD_GAP_RUN_QUEUE] = 350000;
    gap->parts[KD_GAP_STOPPED] = 150000;
    gap->dominant = KD_GAP_ON_CPU;
    gap->waits = 2;
    gap->preemptions = 1;
    gap->n_syscalls = 1;
    gap->syscalls[0] = (struct kd_gap_syscall) {
        .nr = NR_READ, .count = 1, .total_ns = 600000,
    };
    gap->n_ran = 1;
    gap->ran[0] = (struct kd_gap_ran) { .tid = 9, .pid = 9, .ns = 300000 };
    strcpy(gap->ran[0].comm, "hog");
    gap->ran_others_ns = 50000;

    r[n++] = rec(KD_TRACE_SYS_ENTER, 400000, 1, 0, NR_POLL);
    r[n++] = rec(KD_TRACE_SWITCH_OUT, 500000, 1, KD_TRACE_OUT_SLEEP,
                 NR_POLL + 1);
    r[n++] = task_rec(KD_TRACE_WAKER, 840000, 7, 7, "waker", 0);
    r[n++] = rec(KD_TRACE_WAKEUP, 850000, 1, KD_TRACE_OUT_SLEEP, 0);
    r[n] = rec(KD_TRACE_SWITCH_IN, 900000, 1, 0, 0);
    r[n++].kstack = 3;
    r[n++] = rec(KD_TRACE_SYS_EXIT, 1000000, 1, 0, NR_POLL);
    r[n++] = rec(KD_TRACE_SYS_ENTER, 1100000, 1, 0, NR_READ);
    r[n++] = rec(KD_TRACE_SWITCH_OUT, 1200000, 1, KD_TRACE_OUT_PREEMPTED,
                 NR_READ + 1);
    r[n++] = task_rec(KD_TRACE_RAN, 1500100, 9, 9, "hog", 300000);
    r[n++] = rec(KD_TRACE_SWITCH_IN, 1500000, 1, 0, 0);
    r[n] = rec(KD_TRACE_HARDIRQ, 1600000, 1, 0, 0);
    r[n++].dur = 10000;
    r[n] = rec(KD_TRACE_SAMPLE, 1650000, 1, 0, 0);
    r[n].kstack = 4;
    r[n++].ustack = 5;
    r[n++] = rec(KD_TRACE_SYS_EXIT, 1700000, 1, 0, NR_READ);
    r[n++] = rec(KD_TRACE_SWITCH_OUT, 1750000, 1, KD_TRACE_OUT_STOPPED, 0);
    r[n++] = task_rec(KD_TRACE_WAKER, 1890000, 3, 3, "bash", 0);
    r[n++] = rec(KD_TRACE_WAKEUP, 1900000, 2, KD_TRACE_OUT_STOPPED, 0);
    r[n++] = task_rec(KD_TRACE_RAN, 1950000, 0, KD_TRACE_NOT_KNOWN, "", 50000);
    r[n++] = rec(KD_TRACE_SWITCH_IN, 1950000, 2, 0, 0);
    r[n++] = rec(KD_TRACE_SYS_ENTER, 2000000, 2, 0, NR_POLL);
    r[n++] = rec(KD_TRACE_SYS_EXIT, 2000500, 2, 0, NR_POLL);
    return n;
}

/* The fixture's trace, exactly: the tracks' names, the interval with its
 * parts, the history's start, the states (a sleep with its stacks, taken
 * at a tracepoint), who ran instead within each wait (the charge read
 * after the switch in cut at it; one not known), the IRQ in the run, the
 * sample, the syscalls (poll() before the interval, the one that ends it
 * left out: it has no length), each wake-up as a slice of the waker and
 * a flow arrow to the wait it begins; nothing after the end. */
static void
test_trace_write(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_trace_stacks stacks = { .frames = fake_frames };
    struct kd_trace_rec r[32];
    struct kd_gap gap;
    struct kd_trace_input in = {
        .gap = &gap, .recs = r, .process = "ovs-vswitchd",
        .node = "node-1", .version = "0.1.0", .stacks = &stacks,
    };

    in.n_recs = make_traced_gap(&gap, r);
    kd_trace_write(&ds, &in);
    CHECK_STR(kd_ds_cstr(&ds),
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"kernel_delay\""
        ",\"version\":\"0.1.0\",\"node\":\"node-1\",\"pid\":100,\"tid\":101,"
        "\"thread\":\"revalidator2\",\"start_ns\":1000000,\"end_ns\":2000000,"
        "\"in_progress\":false,\"history\":true,\"history_records\":20,\"hist"
        "ory_lost\":0,\"history_start_ns\":400000,\"history_covers_interval\""
        ":true},\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"pid\":100,\"tid\":101,\"name\":\"process_name\",\"ar"
        "gs\":{\"name\":\"ovs-vswitchd\"}},\n"
        "{\"ph\":\"M\",\"pid\":100,\"tid\":101,\"name\":\"thread_name\",\"arg"
        "s\":{\"name\":\"revalidator2\"}},\n"
        "{\"ph\":\"M\",\"pid\":100,\"tid\":101,\"name\":\"thread_sort_index\""
        ",\"args\":{\"sort_index\":0}},\n"
        "{\"ph\":\"M\",\"pid\":100,\"tid\":1073741925,\"name\":\"thread_name"
        "\",\"args\":{\"name\":\"revalidator2: poll loop\"}},\n"
        "{\"ph\":\"M\",\"pid\":100,\"tid\":1073741925,\"name\":\"thread_sort_"
        "index\",\"args\":{\"sort_index\":1}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":1073741925,\"cat\":\"long_poll\","
        "\"name\":\"long poll interval\",\"ts\":1000.000,\"dur\":1000.000,\"a"
        "rgs\":{\"gap_ns\":1000000,\"start_ns\":1000000,\"end_ns\":2000000,\""
        "start\":\"2026-11-18T11:06:40.123456Z\",\"end\":\"2026-11-18T11:06:4"
        "0.124456Z\",\"on_cpu_ns\":490000,\"run_queue_ns\":350000,\"stopped_n"
        "s\":150000,\"hardirq_ns\":10000,\"softirq_ns\":0,\"blocked_in_syscal"
        "ls_ns\":0,\"blocked_outside_syscalls_ns\":0,\"unaccounted_ns\":0,\"d"
        "ominant\":\"on_cpu\",\"waits\":2,\"preemptions\":1,\"sleeps\":0,\"in"
        "_progress\":false,\"syscalls\":[{\"name\":\"read\",\"count\":1,\"tot"
        "al_ns\":600000,\"blocked_ns\":0}],\"ran_instead\":[{\"tid\":9,\"pid"
        "\":9,\"name\":\"hog\",\"ns\":300000}],\"ran_instead_others_ns\":5000"
        "0}},\n"
        "{\"ph\":\"i\",\"pid\":100,\"tid\":1073741925,\"cat\":\"history\",\"n"
        "ame\":\"history begins (20 records)\",\"ts\":400.000,\"s\":\"t\"},\n"
        "{\"ph\":\"M\",\"pid\":7,\"tid\":7,\"name\":\"thread_name\",\"args\":"
        "{\"name\":\"waker\"}},\n"
        "{\"ph\":\"M\",\"pid\":3,\"tid\":3,\"name\":\"thread_name\",\"args\":"
        "{\"name\":\"bash\"}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"a"
        "sleep in poll\",\"ts\":500.000,\"dur\":350.000,\"args\":{\"state\":"
        "\"asleep\",\"cpu\":1,\"syscall\":\"poll\",\"stack\":[\"(tracepoint)"
        "\",\"k3\"]}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"r"
        "unnable (CPU 1)\",\"ts\":850.000,\"dur\":50.000,\"args\":{\"state\":"
        "\"runnable\",\"cpu\":1}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"r"
        "unning (CPU 1)\",\"ts\":900.000,\"dur\":300.000,\"args\":{\"state\":"
        "\"running\",\"cpu\":1}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"r"
        "unnable (CPU 1)\",\"ts\":1200.000,\"dur\":300.000,\"args\":{\"state"
        "\":\"runnable\",\"cpu\":1}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"r"
        "unning (CPU 1)\",\"ts\":1500.000,\"dur\":250.000,\"args\":{\"state\""
        ":\"running\",\"cpu\":1}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"s"
        "topped\",\"ts\":1750.000,\"dur\":150.000,\"args\":{\"state\":\"stopp"
        "ed\",\"cpu\":1}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"r"
        "unnable (CPU 2)\",\"ts\":1900.000,\"dur\":50.000,\"args\":{\"state\""
        ":\"runnable\",\"cpu\":2}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"state\",\"name\":\"r"
        "unning (CPU 2)\",\"ts\":1950.000,\"dur\":50.000,\"args\":{\"state\":"
        "\"running\",\"cpu\":2}},\n"
        "{\"ph\":\"X\",\"pid\":7,\"tid\":7,\"cat\":\"wakeup\",\"name\":\"wake"
        "s revalidator2 (TID 101)\",\"ts\":840.000,\"dur\":1.000,\"args\":{\""
        "cpu\":0}},\n"
        "{\"ph\":\"s\",\"pid\":7,\"tid\":7,\"cat\":\"wakeup\",\"name\":\"wake"
        "-up\",\"ts\":840.001,\"id\":1},\n"
        "{\"ph\":\"f\",\"pid\":100,\"tid\":101,\"cat\":\"wakeup\",\"name\":\""
        "wake-up\",\"ts\":850.001,\"bp\":\"e\",\"id\":1},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":1073741925,\"cat\":\"syscall\",\"n"
        "ame\":\"poll\",\"ts\":400.000,\"dur\":600.000,\"args\":{\"nr\":7}},"
        "\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"ran_instead\",\"name"
        "\":\"hog (TID 9, PID 9)\",\"ts\":1200.000,\"dur\":300.000,\"args\":{"
        "\"cpu\":1,\"tid\":9,\"pid\":9,\"name\":\"hog\"}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"irq\",\"name\":\"har"
        "d IRQ\",\"ts\":1590.000,\"dur\":10.000,\"args\":{\"state\":\"hardirq"
        "\",\"cpu\":1}},\n"
        "{\"ph\":\"i\",\"pid\":100,\"tid\":101,\"cat\":\"sample\",\"name\":\""
        "on-CPU sample\",\"ts\":1650.000,\"s\":\"t\",\"args\":{\"cpu\":1,\"st"
        "ack\":[\"k4\",\"u5\"]}},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":1073741925,\"cat\":\"syscall\",\"n"
        "ame\":\"read\",\"ts\":1100.000,\"dur\":600.000,\"args\":{\"nr\":0}},"
        "\n"
        "{\"ph\":\"X\",\"pid\":3,\"tid\":3,\"cat\":\"wakeup\",\"name\":\"wake"
        "s revalidator2 (TID 101)\",\"ts\":1890.000,\"dur\":1.000,\"args\":{"
        "\"cpu\":0}},\n"
        "{\"ph\":\"s\",\"pid\":3,\"tid\":3,\"cat\":\"wakeup\",\"name\":\"wake"
        "-up\",\"ts\":1890.001,\"id\":2},\n"
        "{\"ph\":\"f\",\"pid\":100,\"tid\":101,\"cat\":\"wakeup\",\"name\":\""
        "wake-up\",\"ts\":1900.001,\"bp\":\"e\",\"id\":2},\n"
        "{\"ph\":\"X\",\"pid\":100,\"tid\":101,\"cat\":\"ran_instead\",\"name"
        "\":\"(not known)\",\"ts\":1900.000,\"dur\":50.000,\"args\":{\"cpu\":"
        "2}}\n"
        "]}\n");
    kd_ds_destroy(&ds);
}

/* The states' slices add up, within the interval, to its parts: running
 * to the time on CPU and in IRQs, runnable to the run queue, stopped to
 * the stop. */
static void
test_trace_parts(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_trace_rec r[32];
    struct kd_gap gap;
    struct kd_trace_input in = { .gap = &gap, .recs = r };
    uint64_t sums[3] = { 0 };
    const char *keys[3] = { "running", "runnable", "stopped" };
    const char *p;

    in.n_recs = make_traced_gap(&gap, r);
    kd_trace_write(&ds, &in);
    for (p = kd_ds_cstr(&ds); (p = strstr(p, "\"cat\":\"state\"")); p++) {
        unsigned long long ts, tsf, dur, durf;
        const char *t = strstr(p, "\"ts\":");
        const char *st = strstr(p, "\"state\":\"") + 9;

        sscanf(t, "\"ts\":%llu.%llu,\"dur\":%llu.%llu", &ts, &tsf, &dur,
               &durf);
        ts = ts * 1000 + tsf;
        dur = dur * 1000 + durf;
        for (int i = 0; i < 3; i++) {
            if (!strncmp(st, keys[i], strlen(keys[i]))) {
                uint64_t s = ts > gap.start_ns ? ts : gap.start_ns;
                uint64_t e = ts + dur < gap.end_ns ? ts + dur : gap.end_ns;

                sums[i] += e > s ? e - s : 0;
            }
        }
    }
    CHECK_UINT(sums[0], gap.parts[KD_GAP_ON_CPU] + gap.parts[KD_GAP_HARDIRQ]);
    CHECK_UINT(sums[1], gap.parts[KD_GAP_RUN_QUEUE]);
    CHECK_UINT(sums[2], gap.parts[KD_GAP_STOPPED]);
    kd_ds_destroy(&ds);
}

/* A thread with no ring, and one in progress whose ring lost its start:
 * said in otherData and the interval's name. */
static void
test_trace_partial(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_trace_rec r[32];
    struct kd_gap gap;
    struct kd_trace_input in = { .gap = &gap, .recs = r, .no_history = true };
    size_t n = make_traced_gap(&gap, r);

    kd_trace_write(&ds, &in);
    CHECK(strstr(kd_ds_cstr(&ds), "\"history\":false,\"history_records\":0,"
                 "\"history_lost\":0,\"history_start_ns\":0,"
                 "\"history_covers_interval\":false},") != NULL);
    CHECK(!strstr(kd_ds_cstr(&ds), "\"state\""));
    kd_ds_destroy(&ds);

    gap.in_progress = true;
    in.no_history = false;
    in.recs = r + 10;
    in.n_recs = n - 10;
    in.lost = 1000;
    kd_trace_write(&ds, &in);
    CHECK(strstr(kd_ds_cstr(&ds), "\"in_progress\":true,\"history\":true,"
                 "\"history_records\":10,\"history_lost\":1000,"
                 "\"history_start_ns\":1600000,"
                 "\"history_covers_interval\":false},") != NULL);
    CHECK(strstr(kd_ds_cstr(&ds), "\"name\":\"long poll interval (in "
                 "progress)\"") != NULL);
    CHECK(strstr(kd_ds_cstr(&ds), "\"name\":\"history begins (10 records, "
                 "older ones overwritten)\",\"ts\":1600.000") != NULL);
    kd_ds_destroy(&ds);
}

/* The ring, oldest first, before and after it wrapped. */
static void
test_trace_ring_order(void)
{
    struct kd_trace_rec ring[4], out[4];
    uint64_t lost;

    for (int i = 0; i < 4; i++) {
        ring[i] = rec(KD_TRACE_SYS_ENTER, 0, 0, 0, 0);
    }
    ring[0].ts = 40;
    ring[1].ts = 50;
    ring[2].ts = 20;
    ring[3].ts = 30;
    CHECK_UINT(kd_trace_ring_order(ring, 4, 2, out, &lost), 2);
    CHECK_UINT(lost, 0);
    CHECK_UINT(out[0].ts, 40);
    CHECK_UINT(out[1].ts, 50);
    CHECK_UINT(kd_trace_ring_order(ring, 4, 6, out, &lost), 4);
    CHECK_UINT(lost, 2);
    CHECK_UINT(out[0].ts, 20);
    CHECK_UINT(out[1].ts, 30);
    CHECK_UINT(out[2].ts, 40);
    CHECK_UINT(out[3].ts, 50);
}

/* Named by node, PID, TID and start in UTC; the node made safe for a
 * file name. */
static void
test_trace_file_name(void)
{
    struct kd_trace_rec r[32];
    struct kd_gap gap;
    char *name;

    make_traced_gap(&gap, r);
    name = kd_trace_file_name("node-1", &gap);
    CHECK_STR(name,
              "kernel_delay-node-1-100-101-20261118T110640.123456Z.json");
    free(name);
    name = kd_trace_file_name("../a b/-c", &gap);
    CHECK_STR(name,
              "kernel_delay-.._a_b_-c-100-101-20261118T110640.123456Z.json");
    free(name);
    name = kd_trace_file_name(NULL, &gap);
    CHECK_STR(name, "kernel_delay-_-100-101-20261118T110640.123456Z.json");
    free(name);
}

static const struct test tests[] = {
    TEST(test_trace_write),
    TEST(test_trace_parts),
    TEST(test_trace_partial),
    TEST(test_trace_ring_order),
    TEST(test_trace_file_name),
};

CHECK_SUITE(trace, tests)
