/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "sample.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int
kd_cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

static int
kd_cmp_total_desc(const struct kd_stat *a, const struct kd_stat *b)
{
    return a->total_ns > b->total_ns ? -1 : a->total_ns < b->total_ns;
}

static int
kd_syscall_cmp(const void *a_, const void *b_)
{
    const struct kd_syscall_entry *a = a_, *b = b_;
    int cmp = kd_cmp_u32(a->key.tid, b->key.tid);

    if (!cmp) {
        cmp = kd_cmp_total_desc(&a->stat, &b->stat);
    }
    return cmp ? cmp : kd_cmp_u32(a->key.nr, b->key.nr);
}

static int
kd_tstats_cmp(const void *a_, const void *b_)
{
    const struct kd_tstats_entry *a = a_, *b = b_;

    return kd_cmp_u32(a->tid, b->tid);
}

static int
kd_hardirq_cmp(const void *a_, const void *b_)
{
    const struct kd_hardirq_entry *a = a_, *b = b_;
    int cmp = kd_cmp_u32(a->key.tid, b->key.tid);

    if (!cmp) {
        cmp = kd_cmp_total_desc(&a->stat, &b->stat);
    }
    return cmp ? cmp : strncmp(a->key.name, b->key.name,
                               sizeof a->key.name);
}

static int
kd_softirq_cmp(const void *a_, const void *b_)
{
    const struct kd_softirq_entry *a = a_, *b = b_;
    int cmp = kd_cmp_u32(a->key.tid, b->key.tid);

    if (!cmp) {
        cmp = kd_cmp_total_desc(&a->stat, &b->stat);
    }
    return cmp ? cmp : kd_cmp_u32(a->key.vec, b->key.vec);
}

static int
kd_hist_cmp(const void *a_, const void *b_)
{
    const struct kd_hist_entry *a = a_, *b = b_;
    int cmp = kd_cmp_u32(a->key.tid, b->key.tid);

    if (!cmp) {
        cmp = kd_cmp_u32(a->key.what, b->key.what);
    }
    return cmp ? cmp : kd_cmp_u32(a->key.slot, b->key.slot);
}

static int
kd_ran_cmp(const void *a_, const void *b_)
{
    const struct kd_ran_entry *a = a_, *b = b_;
    int cmp = kd_cmp_u32(a->key.tid, b->key.tid);

    if (!cmp) {
        cmp = a->ran.ns > b->ran.ns ? -1 : a->ran.ns < b->ran.ns;
    }
    return cmp ? cmp : kd_cmp_u32(a->key.other, b->key.other);
}

static int
kd_name_cmp(const void *a_, const void *b_)
{
    const struct kd_name_entry *a = a_, *b = b_;

    return kd_cmp_u32(a->tid, b->tid);
}

static int
kd_thread_cmp(const void *a_, const void *b_)
{
    const struct kd_thread *a = a_, *b = b_;
    int cmp = strcmp(a->name, b->name);

    return cmp ? cmp : kd_cmp_u32(a->tid, b->tid);
}

/* qsort() that accepts an empty (NULL) array. */
static void
kd_qsort(void *base, size_t n, size_t size,
         int (*cmp)(const void *, const void *))
{
    if (n) {
        qsort(base, n, size, cmp);
    }
}

/* A cursor over one array sorted by tid. */
struct kd_cursor {
    const char *base;
    size_t size;        /* Element size. */
    size_t n;
    size_t i;
};

static uint32_t
kd_cursor_tid(const struct kd_cursor *c)
{
    uint32_t tid;

    /* Every entry starts with its tid. */
    memcpy(&tid, c->base + c->i * c->size, sizeof tid);
    return tid;
}

static const void *
kd_cursor_take(struct kd_cursor *c, uint32_t tid, size_t *n)
{
    const void *first = c->base + c->i * c->size;

    *n = 0;
    while (c->i < c->n && kd_cursor_tid(c) == tid) {
        c->i++;
        (*n)++;
    }
    return *n ? first : NULL;
}

static const struct kd_stat *
kd_stat_or_null(const struct kd_stat *stat)
{
    return stat->count ? stat : NULL;
}

static char *
kd_exited_name(const struct kd_sample *sample, uint32_t tid)
{
    struct kd_name_entry key = { .tid = tid };
    const struct kd_name_entry *e;

    if (!sample->n_names) {
        return NULL;
    }
    e = bsearch(&key, sample->names, sample->n_names, sizeof *sample->names,
                kd_name_cmp);
    if (!e || !e->name.comm[0]) {
        return NULL;
    }
    return kd_xasprintf("%.*s", KD_COMM_LEN, e->name.comm);
}

/* Sorts each array of 'sample' by tid (then by its order of report). */
static void
kd_sample_sort(struct kd_sample *sample)
{
    kd_qsort(sample->syscalls, sample->n_syscalls, sizeof *sample->syscalls,
             kd_syscall_cmp);
    kd_qsort(sample->tstats, sample->n_tstats, sizeof *sample->tstats,
             kd_tstats_cmp);
    kd_qsort(sample->hardirqs, sample->n_hardirqs, sizeof *sample->hardirqs,
             kd_hardirq_cmp);
    kd_qsort(sample->softirqs, sample->n_softirqs, sizeof *sample->softirqs,
             kd_softirq_cmp);
    kd_qsort(sample->names, sample->n_names, sizeof *sample->names,
             kd_name_cmp);
    kd_qsort(sample->hists, sample->n_hists, sizeof *sample->hists,
             kd_hist_cmp);
    kd_qsort(sample->ran, sample->n_ran, sizeof *sample->ran, kd_ran_cmp);
}

/* The smallest tid among the entries 'cursors' have left, in '*tid'.
 * Returns false when they have none left. */
static bool
kd_cursors_min_tid(const struct kd_cursor *cursors, size_t n, uint32_t *tid)
{
    bool any = false;

    for (size_t i = 0; i < n; i++) {
        if (cursors[i].i < cursors[i].n) {
            uint32_t ctid = kd_cursor_tid(&cursors[i]);

            if (!any || ctid < *tid) {
                *tid = ctid;
            }
            any = true;
        }
    }
    return any;
}

/* The name of thread 'tid', as a new string: by 'name_fn', else by the
 * name the eBPF program recorded when the thread exited, else
 * "<unknown:PID/TID>". */
static char *
kd_sample_name_thread(const struct kd_sample *sample, uint32_t tid,
                      kd_thread_name_fn *name_fn, void *aux)
{
    char *name = name_fn ? name_fn(sample->pid, tid, aux) : NULL;

    if (!name) {
        name = kd_exited_name(sample, tid);
    }
    if (!name) {
        name = kd_xasprintf("<unknown:%u/%u>", sample->pid, tid);
    }
    return name;
}

void
kd_sample_group(struct kd_sample *sample, kd_thread_name_fn *name_fn,
                void *aux)
{
    struct kd_cursor cursors[6] = {
        { (const char *) sample->syscalls, sizeof *sample->syscalls,
          sample->n_syscalls, 0 },
        { (const char *) sample->tstats, sizeof *sample->tstats,
          sample->n_tstats, 0 },
        { (const char *) sample->hardirqs, sizeof *sample->hardirqs,
          sample->n_hardirqs, 0 },
        { (const char *) sample->softirqs, sizeof *sample->softirqs,
          sample->n_softirqs, 0 },
        { (const char *) sample->hists, sizeof *sample->hists,
          sample->n_hists, 0 },
        { (const char *) sample->ran, sizeof *sample->ran,
          sample->n_ran, 0 },
    };
    size_t max_threads;

    kd_sample_sort(sample);

    max_threads = sample->n_syscalls + sample->n_tstats
                  + sample->n_hardirqs + sample->n_softirqs
                  + sample->n_hists + sample->n_ran;
    sample->threads = kd_xcalloc(max_threads, sizeof *sample->threads);
    sample->n_threads = 0;

    /* Merge: take the smallest tid among the cursors, then everything each
     * cursor has for it. */
    for (;;) {
        struct kd_thread *t;
        const struct kd_tstats_entry *ts;
        uint32_t tid = 0;
        size_t n;

        if (!kd_cursors_min_tid(cursors, KD_ARRAY_SIZE(cursors), &tid)) {
            break;
        }

        t = &sample->threads[sample->n_threads];
        t->tid = tid;
        t->syscalls = kd_cursor_take(&cursors[0], tid, &t->n_syscalls);
        ts = kd_cursor_take(&cursors[1], tid, &n);
        if (ts) {
            t->poll = kd_stat_or_null(&ts->stats.poll);
            t->run = kd_stat_or_null(&ts->stats.run);
            t->ready = kd_stat_or_null(&ts->stats.ready);
            t->stop = kd_stat_or_null(&ts->stats.stop);
        }
        t->hardirqs = kd_cursor_take(&cursors[2], tid, &t->n_hardirqs);
        t->softirqs = kd_cursor_take(&cursors[3], tid, &t->n_softirqs);
        t->hists = kd_cursor_take(&cursors[4], tid, &t->n_hists);
        t->ran = kd_cursor_take(&cursors[5], tid, &t->n_ran);

        /* A thread whose only entry is empty has nothing to report. */
        if (!t->n_syscalls && !t->poll && !t->run && !t->ready && !t->stop
            && !t->n_hardirqs && !t->n_softirqs) {
            memset(t, 0, sizeof *t);
            continue;
        }

        t->name = kd_sample_name_thread(sample, tid, name_fn, aux);
        sample->n_threads++;
    }

    kd_qsort(sample->threads, sample->n_threads, sizeof *sample->threads,
             kd_thread_cmp);
}

int
kd_thread_filter_init(struct kd_thread_filter *f, const char *regex,
                      const unsigned int *tids, size_t n_tids)
{
    memset(f, 0, sizeof *f);
    f->tids = tids;
    f->n_tids = n_tids;
    if (regex) {
        if (regcomp(&f->regex, regex, REG_EXTENDED | REG_NOSUB)) {
            return EINVAL;
        }
        f->has_regex = true;
    }
    return 0;
}

void
kd_thread_filter_destroy(struct kd_thread_filter *f)
{
    if (f->has_regex) {
        regfree(&f->regex);
        f->has_regex = false;
    }
}

bool
kd_thread_filter_match(const struct kd_thread_filter *f, uint32_t tid,
                       const char *name)
{
    if (!f->has_regex && !f->n_tids) {
        return true;
    }
    for (size_t i = 0; i < f->n_tids; i++) {
        if (f->tids[i] == tid) {
            return true;
        }
    }
    return f->has_regex && !regexec(&f->regex, name, 0, NULL, 0);
}

void
kd_sample_filter(struct kd_sample *sample,
                 const struct kd_thread_filter *filter)
{
    size_t kept = 0;

    for (size_t i = 0; i < sample->n_threads; i++) {
        struct kd_thread *t = &sample->threads[i];

        if (kd_thread_filter_match(filter, t->tid, t->name)) {
            sample->threads[kept++] = *t;
        } else {
            free(t->name);
        }
    }
    sample->n_threads = kept;
}

const char *
kd_sample_thread_name(const struct kd_sample *sample, uint32_t tid)
{
    /* Threads are sorted by name; callers look each tid up once. */
    for (size_t i = 0; i < sample->n_threads; i++) {
        if (sample->threads[i].tid == tid) {
            return sample->threads[i].name;
        }
    }
    return NULL;
}

void
kd_sample_clear(struct kd_sample *sample)
{
    uint32_t pid = sample->pid;

    for (size_t i = 0; i < sample->n_threads; i++) {
        free(sample->threads[i].name);
    }
    free(sample->threads);
    free(sample->syscalls);
    free(sample->tstats);
    free(sample->hardirqs);
    free(sample->softirqs);
    free(sample->names);
    free(sample->hists);
    free(sample->ran);
    for (size_t i = 0; i < sample->n_upcalls; i++) {
        free(sample->upcalls[i].per_cpu);
    }
    free(sample->upcalls);
    memset(sample, 0, sizeof *sample);
    sample->pid = pid;
}
