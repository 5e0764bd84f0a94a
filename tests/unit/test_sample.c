/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/sample.c: a sample's map entries grouped by thread,
 * named and sorted as the reference does, and the thread filter. */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sample.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
test_sample_group(void)
{
    static const struct fake_name names[] = {
        { 3, "same" },
        { 5, "same" },
    };
    struct fake_names aux = { names, KD_ARRAY_SIZE(names), 0, 0 };
    struct kd_sample s;
    const struct kd_thread *t;

    const struct kd_syscall_entry syscalls[] = {
        sc(5, 1, 1, 100, 100),
        sc(9, 0, 1, 10, 10),
        sc(3, 2, 1, 300, 300),
        sc(5, 0, 1, 500, 500),
        sc(3, 4, 1, 300, 300),      /* Same total as nr 2: by nr. */
        sc(3, 3, 1, 900, 900),
        sc(9, 1, 1, 20, 20),
    };
    struct kd_tstats_entry tstats[4];
    const struct kd_hardirq_entry hardirqs[] = {
        hi(9, "b", 1, 1, 1),
        hi(9, "a", 1, 2, 2),
    };
    const struct kd_softirq_entry softirqs[] = {
        si(14, 9, 1, 5, 5),
        si(5, 1, 1, 7, 7),
    };
    /* The 16-character name has no terminating NUL. */
    const struct kd_name_entry exited[] = {
        nm(14, "abcdefghijklmnop"),
        nm(9, "gone-thread"),
        nm(3, "never-used"),
    };

    memset(tstats, 0, sizeof tstats);
    tstats[0].tid = 12;
    tstats[0].stats.run = stat4(1, 1, 1, 1);
    tstats[1].tid = 3;
    tstats[1].stats.poll = stat4(2, 4, 3, 1);
    tstats[1].stats.stop = stat4(1, 6, 6, 6);
    tstats[2].tid = 20;         /* All empty: no thread. */
    tstats[3].tid = 5;
    tstats[3].stats.ready = stat4(1, 2, 2, 2);

    make_sample(&s, 77, &(struct sample_entries) {
        SAMPLE_ENTRIES(syscalls, syscalls),
        SAMPLE_ENTRIES(tstats, tstats),
        SAMPLE_ENTRIES(hardirqs, hardirqs),
        SAMPLE_ENTRIES(softirqs, softirqs),
        SAMPLE_ENTRIES(names, exited),
    });

    kd_sample_group(&s, fake_thread_name, &aux);
    CHECK_UINT(aux.last_pid, 77);
    if (!CHECK_UINT(s.n_threads, 5)) {
        kd_sample_clear(&s);
        return;
    }

    /* By name ('<' < 'a' < 'g' < 's'), then by tid. */
    t = &s.threads[0];
    CHECK_UINT(t->tid, 12);
    CHECK_STR(t->name, "<unknown:77/12>");
    CHECK_UINT(t->n_syscalls, 0);
    CHECK(t->syscalls == NULL);
    CHECK(t->run != NULL && t->run->total_ns == 1);
    CHECK(t->poll == NULL);
    CHECK(t->ready == NULL);
    CHECK(t->stop == NULL);
    CHECK_UINT(t->n_hardirqs, 0);
    CHECK_UINT(t->n_softirqs, 0);

    t = &s.threads[1];
    CHECK_UINT(t->tid, 14);
    CHECK_STR(t->name, "abcdefghijklmnop");
    CHECK_UINT(t->n_syscalls, 0);
    CHECK(t->poll == NULL && t->run == NULL && t->ready == NULL
          && t->stop == NULL);
    if (CHECK_UINT(t->n_softirqs, 1)) {
        CHECK_UINT(t->softirqs[0].key.tid, 14);
        CHECK_UINT(t->softirqs[0].key.vec, 9);
    }

    t = &s.threads[2];
    CHECK_UINT(t->tid, 9);
    CHECK_STR(t->name, "gone-thread");
    if (CHECK_UINT(t->n_syscalls, 2)) {
        CHECK_UINT(t->syscalls[0].key.nr, 1);
        CHECK_UINT(t->syscalls[1].key.nr, 0);
        CHECK_UINT(t->syscalls[0].key.tid, 9);
        CHECK_UINT(t->syscalls[1].key.tid, 9);
    }
    if (CHECK_UINT(t->n_hardirqs, 2)) {
        CHECK_UINT(t->hardirqs[0].stat.total_ns, 2);
        CHECK_UINT(t->hardirqs[1].stat.total_ns, 1);
        CHECK_UINT(t->hardirqs[0].key.tid, 9);
    }
    CHECK(t->poll == NULL && t->run == NULL);

    t = &s.threads[3];
    CHECK_UINT(t->tid, 3);
    CHECK_STR(t->name, "same");
    if (CHECK_UINT(t->n_syscalls, 3)) {
        CHECK_UINT(t->syscalls[0].key.nr, 3);
        CHECK_UINT(t->syscalls[1].key.nr, 2);
        CHECK_UINT(t->syscalls[2].key.nr, 4);
    }
    CHECK(t->poll != NULL && t->poll->count == 2);
    CHECK(t->stop != NULL && t->stop->total_ns == 6);
    CHECK(t->run == NULL);
    CHECK(t->ready == NULL);
    CHECK_UINT(t->n_softirqs, 0);

    t = &s.threads[4];
    CHECK_UINT(t->tid, 5);
    CHECK_STR(t->name, "same");
    if (CHECK_UINT(t->n_syscalls, 2)) {
        CHECK_UINT(t->syscalls[0].key.nr, 0);
        CHECK_UINT(t->syscalls[1].key.nr, 1);
        CHECK_UINT(t->syscalls[0].key.tid, 5);
    }
    CHECK(t->ready != NULL && t->ready->total_ns == 2);
    if (CHECK_UINT(t->n_softirqs, 1)) {
        CHECK_UINT(t->softirqs[0].key.vec, 1);
    }

    kd_sample_clear(&s);
}

/* Without a name function, every thread falls back to its exit record or
 * to "<unknown:PID/TID>"; identical names go by tid. */
static void
test_sample_group_no_name_fn(void)
{
    struct kd_sample s;

    const struct kd_syscall_entry syscalls[] = {
        sc(40, 0, 1, 1, 1),
        sc(31, 0, 1, 1, 1),
        sc(30, 0, 1, 1, 1),
        sc(2, 0, 1, 1, 1),
    };
    const struct kd_name_entry exited[] = {
        nm(31, "worker"),
        nm(30, "worker"),
        nm(40, ""),         /* Empty: as good as none. */
    };

    make_sample(&s, 8, &(struct sample_entries) {
        SAMPLE_ENTRIES(syscalls, syscalls),
        SAMPLE_ENTRIES(names, exited),
    });

    kd_sample_group(&s, NULL, NULL);
    if (CHECK_UINT(s.n_threads, 4)) {
        CHECK_UINT(s.threads[0].tid, 2);
        CHECK_STR(s.threads[0].name, "<unknown:8/2>");
        CHECK_UINT(s.threads[1].tid, 40);
        CHECK_STR(s.threads[1].name, "<unknown:8/40>");
        CHECK_UINT(s.threads[2].tid, 30);
        CHECK_STR(s.threads[2].name, "worker");
        CHECK_UINT(s.threads[3].tid, 31);
        CHECK_STR(s.threads[3].name, "worker");
    }
    kd_sample_clear(&s);
}

static void
test_thread_filter(void)
{
    static const unsigned int tids[] = { 42 };
    struct kd_thread_filter f;

    CHECK_INT(kd_thread_filter_init(&f, NULL, NULL, 0), 0);
    CHECK(kd_thread_filter_match(&f, 1, "anything"));
    kd_thread_filter_destroy(&f);

    CHECK_INT(kd_thread_filter_init(&f, "^(handler|revalidator)[0-9]+$",
                                    tids, 1), 0);
    CHECK(kd_thread_filter_match(&f, 7, "handler12"));
    CHECK(kd_thread_filter_match(&f, 7, "revalidator3"));
    CHECK(!kd_thread_filter_match(&f, 7, "urcu3"));
    CHECK(kd_thread_filter_match(&f, 42, "urcu3"));
    kd_thread_filter_destroy(&f);

    CHECK_INT(kd_thread_filter_init(&f, "(", NULL, 0), EINVAL);
}

static char *
filter_name(uint32_t pid, uint32_t tid, void *aux)
{
    (void) pid;
    (void) aux;
    return kd_xasprintf(tid == 1 ? "handler1" : tid == 2 ? "urcu2"
                        : "revalidator3");
}

static void
test_sample_filter(void)
{
    struct kd_sample s = { .pid = 1 };
    struct kd_thread_filter f;

    s.syscalls = kd_xcalloc(3, sizeof *s.syscalls);
    s.n_syscalls = 3;
    for (int i = 0; i < 3; i++) {
        s.syscalls[i].key.tid = i + 1;
        s.syscalls[i].key.nr = 39;
        s.syscalls[i].stat.count = 10 * (i + 1);
    }
    kd_sample_group(&s, filter_name, NULL);
    CHECK_UINT(s.n_threads, 3);
    kd_thread_filter_init(&f, "handler|revalidator", NULL, 0);
    kd_sample_filter(&s, &f);
    CHECK_UINT(s.n_threads, 2);
    if (s.n_threads == 2) {
        CHECK_STR(s.threads[0].name, "handler1");
        CHECK_UINT(s.threads[0].syscalls[0].stat.count, 10);
        CHECK_STR(s.threads[1].name, "revalidator3");
        CHECK_UINT(s.threads[1].syscalls[0].stat.count, 30);
    }
    kd_thread_filter_destroy(&f);
    kd_sample_clear(&s);
}

/* The upcalls of each CPU and in all: of one key, of every other key,
 * and of all keys. */
static void
test_sample_upcall_sums(void)
{
    uint64_t ok[3] = { 5, 0, 3 }, enobufs[3] = { 1, 2, 0 };
    uint64_t eagain[3] = { 0, 0, 4 };
    const struct kd_upcall_entry entries[] = {
        { 0, ok }, { 105, enobufs }, { 11, eagain },
    };
    uint64_t per_cpu[3];

    CHECK_UINT(kd_sample_upcall_sums(entries, 3, 3, 0, false, per_cpu), 8);
    CHECK(per_cpu[0] == 5 && per_cpu[1] == 0 && per_cpu[2] == 3);
    CHECK_UINT(kd_sample_upcall_sums(entries, 3, 3, 0, true, per_cpu), 7);
    CHECK(per_cpu[0] == 1 && per_cpu[1] == 2 && per_cpu[2] == 4);
    CHECK_UINT(kd_sample_upcall_sums(entries, 3, 3, UINT64_MAX, true,
                                     per_cpu), 15);
    CHECK(per_cpu[0] == 6 && per_cpu[1] == 2 && per_cpu[2] == 7);
}

static const struct test tests[] = {
    TEST(test_sample_group),
    TEST(test_sample_group_no_name_fn),
    TEST(test_thread_filter),
    TEST(test_sample_filter),
    TEST(test_sample_upcall_sums),
};

CHECK_SUITE(sample, tests)
