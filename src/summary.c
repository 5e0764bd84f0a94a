/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Where each thread's time went during a sample, and who ran instead. */

#include "summary.h"

#include <stdlib.h>
#include <string.h>

#include "syscalls.h"
#include "util.h"

void
kd_summary_syscalls_but_poll(const struct kd_thread *t, uint64_t *count,
                             uint64_t *total_ns)
{
    static int poll = -2;

    /* Looked up once: the lookup searches the table by name.  Poll is
     * what glibc's poll() calls: ppoll where there is no poll (arm64). */
    if (poll == -2) {
        poll = kd_syscall_poll_nr();
    }
    *count = *total_ns = 0;
    for (size_t i = 0; i < t->n_syscalls; i++) {
        if ((int64_t) t->syscalls[i].key.nr != poll) {
            *count += t->syscalls[i].stat.count;
            *total_ns += t->syscalls[i].stat.total_ns;
        }
    }
}

static uint64_t
kd_summary_total(const struct kd_stat *stat)
{
    return stat ? stat->total_ns : 0;
}

static int
kd_summary_cmp(const void *a_, const void *b_)
{
    const struct kd_summary_row *a = a_, *b = b_;

    if (a->ready_ns != b->ready_ns) {
        return a->ready_ns > b->ready_ns ? -1 : 1;
    }
    int cmp = strcmp(a->name, b->name);

    return cmp ? cmp : (a->tid < b->tid ? -1 : a->tid > b->tid);
}

void
kd_summary_compute(const struct kd_sample *sample,
                   struct kd_summary_row *rows)
{
    for (size_t i = 0; i < sample->n_threads; i++) {
        const struct kd_thread *t = &sample->threads[i];
        struct kd_summary_row *r = &rows[i];
        uint64_t count;

        memset(r, 0, sizeof *r);
        r->tid = t->tid;
        r->name = t->name;
        r->run_ns = kd_summary_total(t->run);
        r->ready_ns = kd_summary_total(t->ready);
        r->max_ready_ns = t->ready ? t->ready->max_ns : 0;
        r->stop_ns = kd_summary_total(t->stop);
        for (size_t j = 0; j < t->n_hardirqs; j++) {
            r->hardirq_ns += t->hardirqs[j].stat.total_ns;
        }
        for (size_t j = 0; j < t->n_softirqs; j++) {
            r->softirq_ns += t->softirqs[j].stat.total_ns;
        }
        kd_summary_syscalls_but_poll(t, &count, &r->syscall_ns);
        r->ran = t->ran;
        r->n_ran = t->n_ran;
    }
    if (sample->n_threads) {
        qsort(rows, sample->n_threads, sizeof *rows, kd_summary_cmp);
    }
}

const char *
kd_summary_ran_name(const struct kd_ran_entry *e, char buf[KD_COMM_LEN + 1])
{
    if (e->key.other == KD_RAN_UNKNOWN) {
        return NULL;
    }
    return kd_fixed_cstr(buf, e->ran.comm, sizeof e->ran.comm);
}
