/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* What several files of unit tests use: the map entries of a fake sample,
 * with names given by a fake name function, a fake /proc, a sample for
 * the summary, a literal snapshot and a literal long poll interval.
 * Everything is static (inline): each file uses what it needs. */

#ifndef KD_TESTS_UNIT_FIXTURES_H
#define KD_TESTS_UNIT_FIXTURES_H 1

#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gap.h"
#include "sample.h"
#include "snapshot.h"
#include "summary.h"
#include "util.h"

/* Sample data. */

static inline struct kd_stat
stat4(uint64_t count, uint64_t total, uint64_t max, uint64_t min)
{
    struct kd_stat s = {
        .count = count, .total_ns = total, .max_ns = max, .min_ns = min,
    };
    return s;
}

static inline size_t
min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static inline void *
xmemdup(const void *p, size_t n)
{
    return memcpy(kd_xmalloc(n), p, n);
}

struct fake_name {
    uint32_t tid;
    const char *name;
};

struct fake_names {
    const struct fake_name *names;
    size_t n;
    uint32_t last_pid;
    int calls;
};

static inline char *
fake_thread_name(uint32_t pid, uint32_t tid, void *aux_)
{
    struct fake_names *aux = aux_;

    aux->last_pid = pid;
    aux->calls++;
    for (size_t i = 0; i < aux->n; i++) {
        if (aux->names[i].tid == tid) {
            return kd_xstrdup(aux->names[i].name);
        }
    }
    return NULL;
}

static inline struct kd_syscall_entry
sc(uint32_t tid, uint32_t nr, uint64_t count, uint64_t total, uint64_t max)
{
    struct kd_syscall_entry e = {
        .key = { .tid = tid, .nr = nr },
        .stat = stat4(count, total, max, 0),
    };
    return e;
}

static inline struct kd_hardirq_entry
hi(uint32_t tid, const char *name, uint64_t count, uint64_t total,
   uint64_t max)
{
    struct kd_hardirq_entry e;

    memset(&e, 0, sizeof e);
    e.key.tid = tid;
    memcpy(e.key.name, name, min_size(strlen(name), sizeof e.key.name));
    e.stat = stat4(count, total, max, 0);
    return e;
}

static inline struct kd_softirq_entry
si(uint32_t tid, uint32_t vec, uint64_t count, uint64_t total, uint64_t max)
{
    struct kd_softirq_entry e = {
        .key = { .tid = tid, .vec = vec },
        .stat = stat4(count, total, max, 0),
    };
    return e;
}

static inline struct kd_name_entry
nm(uint32_t tid, const char *comm)
{
    struct kd_name_entry e;

    memset(&e, 0, sizeof e);
    e.tid = tid;
    memcpy(e.name.comm, comm, min_size(strlen(comm), sizeof e.name.comm));
    return e;
}

/* The entries of a sample as its maps give them, for make_sample(): each
 * array, given with SAMPLE_ENTRIES(), with its count. */
struct sample_entries {
    const struct kd_syscall_entry *syscalls;
    size_t n_syscalls;
    const struct kd_tstats_entry *tstats;
    size_t n_tstats;
    const struct kd_hardirq_entry *hardirqs;
    size_t n_hardirqs;
    const struct kd_softirq_entry *softirqs;
    size_t n_softirqs;
    const struct kd_name_entry *names;
    size_t n_names;
};

/* Member NAME of struct sample_entries: the array ARRAY, and its count. */
#define SAMPLE_ENTRIES(NAME, ARRAY) \
    .NAME = (ARRAY), .n_##NAME = KD_ARRAY_SIZE(ARRAY)

/* A sample of process 'pid', not grouped yet (kd_sample_group()), that
 * holds copies of the entries 'e' lists; kd_sample_clear() frees them. */
static inline void
make_sample(struct kd_sample *s, uint32_t pid,
            const struct sample_entries *e)
{
    memset(s, 0, sizeof *s);
    s->pid = pid;
#define COPY(NAME)                                                      \
    if (e->n_##NAME) {                                                  \
        s->NAME = xmemdup(e->NAME, e->n_##NAME * sizeof *e->NAME);      \
        s->n_##NAME = e->n_##NAME;                                      \
    }
    COPY(syscalls);
    COPY(tstats);
    COPY(hardirqs);
    COPY(softirqs);
    COPY(names);
#undef COPY
}

/* A fake /proc, in a temporary directory. */

static inline int
remove_entry(const char *path, const struct stat *st, int flag,
             struct FTW *ftw)
{
    (void) st;
    (void) flag;
    (void) ftw;
    remove(path);
    return 0;
}

static inline void
remove_tree(const char *root)
{
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes 'len' bytes of 'data' to ROOT/REL, creating the directories. */
static inline void
write_file(const char *root, const char *rel, const char *data, size_t len)
{
    char *path = kd_xasprintf("%s/%s", root, rel);
    FILE *f;

    for (char *p = strchr(path + strlen(root) + 1, '/'); p;
         p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        abort();
    }
    fwrite(data, 1, len, f);
    fclose(f);
    free(path);
}

#define WRITE_STR(ROOT, REL, S) write_file((ROOT), (REL), (S), strlen(S))
#define WRITE_LIT(ROOT, REL, S) write_file((ROOT), (REL), (S), sizeof (S) - 1)

static inline char *
make_proc_root(void)
{
    char *root = kd_xstrdup("/tmp/kd-test-proc-XXXXXX");

    if (!mkdtemp(root)) {
        perror("mkdtemp");
        abort();
    }
    return root;
}

/* A process PID named COMM with command line CMDLINE (NUL-separated). */
static inline void
add_process(const char *root, unsigned int pid, const char *comm,
            const char *cmdline, size_t cmdline_len)
{
    char rel[64], *s;

    snprintf(rel, sizeof rel, "%u/comm", pid);
    s = kd_xasprintf("%s\n", comm);
    WRITE_STR(root, rel, s);
    free(s);

    snprintf(rel, sizeof rel, "%u/cmdline", pid);
    write_file(root, rel, cmdline, cmdline_len);

    snprintf(rel, sizeof rel, "%u/status", pid);
    s = kd_xasprintf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\n"
                     "Tgid:\t%u\nNgid:\t0\nPid:\t%u\nPPid:\t1\n"
                     "TracerPid:\t0\n", comm, pid, pid);
    WRITE_STR(root, rel, s);
    free(s);
}

/* A grouped sample of process 1, for the summary: handler1 (TID 1) ran
 * 100 ms and made syscalls (5 polls, left out of its syscall time, and 2
 * reads of 50 ms); urcu2 (TID 2) waited 250 ms in the run queue (120 ms
 * at most), 200 ms of it behind pmd4 (TID 3 of PID 1, a name with an
 * escape), 50 ms behind a task not known. */
static inline void
make_summary_sample(struct kd_sample *s)
{
    static struct kd_stat run = { .count = 2, .total_ns = 100000000 };
    static struct kd_stat ready = { .count = 3, .total_ns = 250000000,
                                    .max_ns = 120000000 };
    static struct kd_syscall_entry sys[2] = {
        { { 1, 7 }, { 5, 400000000, 0, 0 } },       /* poll: left out. */
        { { 1, 0 }, { 2, 50000000, 0, 0 } },        /* read. */
    };
    static struct kd_ran_entry ran[2] = {
        { { 2, 3 }, { 200000000, 4, 1, 0, "pmd\0334" } },
        { { 2, KD_RAN_UNKNOWN }, { 50000000, 1, 0, 0, "" } },
    };
    static struct kd_thread threads[2] = {
        { .tid = 1, .name = "handler1", .syscalls = sys, .n_syscalls = 2,
          .run = &run },
        { .tid = 2, .name = "urcu2", .ready = &ready, .ran = ran,
          .n_ran = 2 },
    };

    *s = (struct kd_sample) { .pid = 1, .threads = threads, .n_threads = 2 };
}

/* A literal snapshot, for the renderers. */

/* Local time is UTC for the tests, whatever the machine's zone. */
static inline void
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
static inline void
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
    /* Monotonic 1 s is 1700000000 s on the wall clock. */
    snap->wall_offset_ns = 1699999999000000000;
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
    snap->losses.lost_stacks = 1;
    snap->losses.map_full[KD_MAP_SYSCALLS] = 9;
    snap->total.events_dropped = 4;
    snap->losses.misses = miss;
    snap->losses.n_misses = 1;
    snap->losses.switches_missed = 3;
}

/* Sets the time zone to 'tz' for the wall-clock times of a test, or, with
 * NULL, back to what it was before. */
static inline void
with_tz(const char *tz)
{
    static char *saved;
    static bool set;

    if (tz) {
        const char *old = getenv("TZ");

        saved = old ? strdup(old) : NULL;
        set = true;
        setenv("TZ", tz, 1);
    } else if (set) {
        if (saved) {
            setenv("TZ", saved, 1);
        } else {
            unsetenv("TZ");
        }
        free(saved);
        saved = NULL;
        set = false;
    }
    tzset();
}

/* A long poll interval as the eBPF program sends it (struct kd_gap_event):
 * 1 s from 5 s to 6 s (CLOCK_MONOTONIC) of thread 42 of process 40, named
 * with all 16 bytes: 100 ms on CPU (1 ms of hard and 2 ms of soft IRQs),
 * 300 ms in the run queue (290 ms behind pmd4, 6 ms behind an idle CPU),
 * 400 ms stopped, 199 ms asleep (150 ms of it in syscalls), 1 ms not
 * accounted for. */
static inline void
make_gap_event(struct kd_gap_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->head.ts = 6000000000ull;
    ev->head.tid = 42;
    ev->head.id = KD_EVENT_LONG_POLL;
    ev->start_ns = 5000000000ull;
    ev->pid = 40;
    memcpy(ev->comm, "revalidator12345", KD_COMM_LEN);
    ev->acct.v[KD_ACCT_RUN] = 100000000;
    ev->acct.v[KD_ACCT_READY] = 300000000;
    ev->acct.v[KD_ACCT_STOP] = 400000000;
    ev->acct.v[KD_ACCT_SLEEP] = 199000000;
    ev->acct.v[KD_ACCT_HARDIRQ] = 1000000;
    ev->acct.v[KD_ACCT_SOFTIRQ] = 2000000;
    ev->acct.v[KD_ACCT_KERNEL] = 40000000;
    ev->acct.v[KD_ACCT_WAITS] = 5;
    ev->acct.v[KD_ACCT_PREEMPTIONS] = 4;
    ev->acct.v[KD_ACCT_SLEEPS] = 2;
    ev->detail.n_syscalls = 2;
    ev->detail.syscalls[0] = (struct kd_gap_syscall) {
        .nr = 203, .count = 1, .total_ns = 3000000, .blocked_ns = 10000,
    };
    ev->detail.syscalls[1] = (struct kd_gap_syscall) {
        .nr = 230, .count = 1, .total_ns = 150100000,
        .blocked_ns = 149990000,
    };
    ev->detail.other_syscalls = (struct kd_gap_syscall) {
        .count = 3, .total_ns = 5000,
    };
    ev->detail.n_ran = 2;
    ev->detail.ran[0] = (struct kd_gap_ran) {
        .tid = 0, .pid = 0, .ns = 6000000, .count = 1, .comm = "swapper/1",
    };
    ev->detail.ran[1] = (struct kd_gap_ran) {
        .tid = 43, .pid = 40, .ns = 290000000, .count = 6, .comm = "pmd4",
    };
}

/* An interval's on-CPU profile for make_gap_event()'s event (97 ms on
 * CPU, thread 42): 100 samples, 2 lost; three stack pairs of its interval,
 * the last two of the same functions (at other offsets), and two counts
 * of other intervals.  '*gap' is decoded from '*ev', profiled at 99 Hz,
 * its frames set; kd_gap_destroy() frees them. */
static inline void
make_profiled_gap(struct kd_gap_event *ev, struct kd_gap *gap)
{
    static const char *const frames[3][3] = {
        { "spin+0x1 [ovs-vswitchd]", "main+0x2 [ovs-vswitchd]", NULL },
        { "clear_user+0x10 [kernel]", "read+0x5 [libc.so.6]",
          "main+0x2 [ovs-vswitchd]" },
        { "clear_user+0x22 [kernel]", "read+0x9 [libc.so.6]",
          "main+0x7 [ovs-vswitchd]" },
    };
    struct kd_profile_count counts[5];

    make_gap_event(ev);
    ev->detail.profile.samples = 100;
    ev->detail.profile.lost_samples = 2;
    memset(counts, 0, sizeof counts);
    for (int i = 0; i < 5; i++) {
        counts[i].key.tid = i == 3 ? 43 : 42;
        counts[i].key.start_ns = i == 4 ? ev->start_ns + 1 : ev->start_ns;
        counts[i].key.user_stack_id = 10 + i;
        counts[i].key.kernel_stack_id = i ? 20 + i : -1;
    }
    counts[0].value.count = 50;
    counts[1].value.count = 30;
    counts[2].value.count = 18;
    counts[3].value.count = 7;
    counts[4].value.count = 9;
    kd_gap_decode(ev, 0, 1, gap);
    kd_gap_set_profile(gap, ev, 99, counts, 5);
    for (size_t i = 0; i < gap->n_stacks; i++) {
        int which = gap->stacks[i].samples == 50 ? 0
                    : gap->stacks[i].samples == 30 ? 1 : 2;
        char **f = kd_xcalloc(3, sizeof *f);
        size_t n = 0;

        while (n < 3 && frames[which][n]) {
            f[n] = kd_xstrdup(frames[which][n]);
            n++;
        }
        kd_gap_set_frames(gap, i, f, n, which ? 1 : 0, false);
    }
}

/* Where make_gap_event()'s thread 42 slept (--off-cpu): 5 sleeps, 1 lost;
 * counts of four (blocked stack, waker) pairs of its interval, in the
 * order: read woken by "writer" (TID 44 of the target) twice, 300 ms
 * asleep and 2 ms in the run queue; the same functions at other offsets
 * and the same waker once, 100 ms and 1 ms; a futex wait woken by a hard
 * IRQ of "swapper/1" (TID 0), 50 ms; a sleep whose wake-up was not seen,
 * 10 ms; and one count of another thread and one of another interval.
 * '*gap' is decoded from '*ev', its pairs and frames set (not merged). */
static inline void
make_blocked_gap(struct kd_gap_event *ev, struct kd_gap *gap)
{
    static const char *const frames[4][3] = {
        { "schedule+0x1 [kernel]", "read+0x5 [libc.so.6]",
          "wait_reply+0x10 [ovs-vswitchd]" },
        { "schedule+0x7 [kernel]", "read+0x9 [libc.so.6]",
          "wait_reply+0x30 [ovs-vswitchd]" },
        { "futex_wait+0x2 [kernel]", "lll_lock+0x5 [libc.so.6]", NULL },
        { "do_nanosleep+0x3 [kernel]", "nanosleep+0x4 [libc.so.6]", NULL },
    };
    static const char *const wakers[4][3] = {
        { "try_to_wake_up+0x1 [kernel]", "write+0x2 [libc.so.6]",
          "send_reply+0x3 [ovs-vswitchd]" },
        { "try_to_wake_up+0x5 [kernel]", "write+0x6 [libc.so.6]",
          "send_reply+0x7 [ovs-vswitchd]" },
        { "try_to_wake_up+0x1 [kernel]",
          "hrtimer_interrupt+0x10 [kernel]", "spin+0x1 [ovs-vswitchd]" },
        { NULL, NULL, NULL },
    };
    static const uint64_t sleep_ns[6] = {
        300000000, 100000000, 50000000, 10000000, 7, 7,
    };
    struct kd_profile_count counts[6];

    make_gap_event(ev);
    ev->detail.profile.sleeps = 5;
    ev->detail.profile.lost_sleeps = 1;
    memset(counts, 0, sizeof counts);
    for (int i = 0; i < 6; i++) {
        struct kd_profile_count *c = &counts[i];

        c->key.tid = i == 4 ? 43 : 42;
        c->key.kind = KD_COUNT_BLOCKED;
        c->key.start_ns = i == 5 ? ev->start_ns + 1 : ev->start_ns;
        c->key.user_stack_id = 10 + i;
        c->key.kernel_stack_id = 20 + i;
        c->key.woken = i != 3;
        c->key.waker_tid = i < 2 ? 44 : 0;
        c->key.waker_user_stack_id = i < 2 ? 30 + i : -1;
        c->key.waker_kernel_stack_id = i != 3 ? 40 + i : -1;
        c->value.count = i ? 1 : 2;
        c->value.sleep_ns = sleep_ns[i];
        c->value.ready_ns = i < 2 ? (i ? 1000000 : 2000000) : 0;
        c->value.waker_pid = i < 2 ? 40 : 0;
        memcpy(c->value.waker_comm, i < 2 ? "writer" : "swapper/1",
               i < 2 ? 6 : 9);
    }
    kd_gap_decode(ev, 0, 1, gap);
    kd_gap_set_blocked(gap, ev, true, counts, 6);
    for (size_t i = 0; i < gap->n_blocked; i++) {
        int which = (int) (gap->blocked[i].user_stack_id - 10);
        struct kd_frames f = { .v = kd_xcalloc(3, sizeof *f.v) };
        struct kd_frames w = { .v = kd_xcalloc(3, sizeof *w.v) };

        while (f.n < 3 && frames[which][f.n]) {
            f.v[f.n] = kd_xstrdup(frames[which][f.n]);
            f.n++;
        }
        f.n_kernel = 1;
        while (w.n < 3 && wakers[which][w.n]) {
            w.v[w.n] = kd_xstrdup(wakers[which][w.n]);
            w.n++;
        }
        w.n_kernel = which == 2 ? 2 : w.n ? 1 : 0;
        kd_gap_set_blocked_frames(gap, i, f, w, false);
    }
}

/* A sample of two threads, 42 ("revalidator12345") and 43 ("idle"), with
 * --profile-hz 99 and --off-cpu: 42's on-CPU stacks and sleeps as in
 * make_profiled_gap() and make_blocked_gap(), 43 none; 3 samples and 1
 * sleep lost.  kd_gap_destroy() frees 'gaps[0]'. */
static inline void
make_stacks_snapshot(struct kd_snapshot *snap, struct kd_thread threads[2],
                     struct kd_gap gaps[2])
{
    struct kd_gap_event ev;
    struct kd_gap blocked;

    memset(snap, 0, sizeof *snap);
    memset(threads, 0, 2 * sizeof *threads);
    threads[0].tid = 42;
    threads[0].name = "revalidator12345";
    threads[1].tid = 43;
    threads[1].name = "idle";
    snap->sample.threads = threads;
    snap->sample.n_threads = 2;
    snap->profile_hz = 99;
    snap->off_cpu = true;
    make_profiled_gap(&ev, &gaps[0]);
    kd_gap_merge_stacks(&gaps[0]);
    make_blocked_gap(&ev, &blocked);
    kd_gap_merge_blocked(&blocked);
    gaps[0].off_cpu = true;
    gaps[0].n_sleeps = blocked.n_sleeps;
    gaps[0].blocked = blocked.blocked;
    gaps[0].n_blocked = blocked.n_blocked;
    gaps[0].of_sample = true;
    memset(&gaps[1], 0, sizeof gaps[1]);
    gaps[1].tid = 43;
    gaps[1].profile_hz = 99;
    gaps[1].off_cpu = true;
    gaps[1].of_sample = true;
    snap->thread_stacks = gaps;
    snap->losses.lost_samples = 3;
    snap->losses.lost_sleeps = 1;
}

#endif /* fixtures.h */
