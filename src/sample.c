/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* One sample's map entries grouped per thread, and the thread filter. */

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

/* The arrays of a sample, per KD_SAMPLE_MAPS: where each is in the sample
 * and in a thread, and how it is sorted. */
static const struct kd_sample_array {
    size_t array;               /* Offsets in struct kd_sample. */
    size_t count;
    size_t thread_array;        /* Offsets in struct kd_thread. */
    size_t thread_count;
    size_t size;                /* Of an entry. */
    int (*cmp)(const void *, const void *);
    bool reported;
} kd_sample_arrays[] = {
#define KD_SAMPLE_MAP(NAME, KEY, ENTRY, VALUE, NEED, CMP, REPORTED)     \
    {                                                                   \
        offsetof(struct kd_sample, NAME),                               \
        offsetof(struct kd_sample, n_##NAME),                           \
        offsetof(struct kd_thread, NAME),                               \
        offsetof(struct kd_thread, n_##NAME),                           \
        sizeof(ENTRY), CMP, REPORTED,                                   \
    },
    KD_SAMPLE_MAPS(KD_SAMPLE_MAP)
#undef KD_SAMPLE_MAP
};

#define KD_N_SAMPLE_ARRAYS KD_ARRAY_SIZE(kd_sample_arrays)

/* The array 'a' of 'sample', and its count. */
static void **
kd_sample_array(struct kd_sample *sample, const struct kd_sample_array *a)
{
    return (void **) ((char *) sample + a->array);
}

static size_t *
kd_sample_count(struct kd_sample *sample, const struct kd_sample_array *a)
{
    return (size_t *) ((char *) sample + a->count);
}

/* Thread 't''s view of array 'a', and its count. */
static const void **
kd_thread_array(struct kd_thread *t, const struct kd_sample_array *a)
{
    return (const void **) ((char *) t + a->thread_array);
}

static size_t *
kd_thread_count(struct kd_thread *t, const struct kd_sample_array *a)
{
    return (size_t *) ((char *) t + a->thread_count);
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

/* Gives thread 't' its entries of tid 't->tid', each array's from its
 * cursor in 'cursors' (one per array of kd_sample_arrays).  Returns false
 * if it has nothing to report. */
static bool
kd_thread_take(struct kd_thread *t, struct kd_cursor *cursors)
{
    const struct kd_tstats_entry *ts;
    bool reported = false;

    for (size_t i = 0; i < KD_N_SAMPLE_ARRAYS; i++) {
        const struct kd_sample_array *a = &kd_sample_arrays[i];

        *kd_thread_array(t, a) = kd_cursor_take(&cursors[i], t->tid,
                                                kd_thread_count(t, a));
    }

    /* A tstats entry without counts is none. */
    ts = t->tstats;
    if (ts) {
        t->poll = kd_stat_or_null(&ts->stats.poll);
        t->run = kd_stat_or_null(&ts->stats.run);
        t->ready = kd_stat_or_null(&ts->stats.ready);
        t->stop = kd_stat_or_null(&ts->stats.stop);
        if (!t->poll && !t->run && !t->ready && !t->stop) {
            t->tstats = NULL;
            t->n_tstats = 0;
        }
    }

    /* A thread with entries only in maps not reported on their own (or
     * only an empty one) has nothing to report. */
    for (size_t i = 0; i < KD_N_SAMPLE_ARRAYS; i++) {
        const struct kd_sample_array *a = &kd_sample_arrays[i];

        if (a->reported && *kd_thread_count(t, a)) {
            reported = true;
        }
    }
    return reported;
}

/* The name of thread 't' of 'sample', as a new string: by 'name_fn', else
 * by the name the eBPF program recorded when the thread exited, else
 * "<unknown:PID/TID>". */
static char *
kd_sample_name_thread(const struct kd_sample *sample,
                      const struct kd_thread *t, kd_thread_name_fn *name_fn,
                      void *aux)
{
    char *name = name_fn ? name_fn(sample->pid, t->tid, aux) : NULL;

    if (!name && t->names && t->names->name.comm[0]) {
        char comm[sizeof t->names->name.comm + 1];

        name = kd_xstrdup(kd_fixed_cstr(comm, t->names->name.comm,
                                        sizeof t->names->name.comm));
    }
    if (!name) {
        name = kd_xasprintf("<unknown:%u/%u>", sample->pid, t->tid);
    }
    return name;
}

void
kd_sample_group(struct kd_sample *sample, kd_thread_name_fn *name_fn,
                void *aux)
{
    struct kd_cursor cursors[KD_N_SAMPLE_ARRAYS];
    size_t max_threads = 0;

    /* Sort each array by tid (then by its order of report). */
    for (size_t i = 0; i < KD_N_SAMPLE_ARRAYS; i++) {
        const struct kd_sample_array *a = &kd_sample_arrays[i];
        size_t n = *kd_sample_count(sample, a);

        kd_qsort(*kd_sample_array(sample, a), n, a->size, a->cmp);
        cursors[i] = (struct kd_cursor) {
            *kd_sample_array(sample, a), a->size, n, 0
        };
        max_threads += n;
    }
    sample->threads = kd_xcalloc(max_threads, sizeof *sample->threads);
    sample->n_threads = 0;

    /* Merge: take the smallest tid among the cursors, then everything each
     * cursor has for it. */
    for (;;) {
        struct kd_thread *t;
        uint32_t tid = 0;

        if (!kd_cursors_min_tid(cursors, KD_N_SAMPLE_ARRAYS, &tid)) {
            break;
        }
        t = &sample->threads[sample->n_threads];
        t->tid = tid;
        if (!kd_thread_take(t, cursors)) {
            memset(t, 0, sizeof *t);
            continue;
        }
        t->name = kd_sample_name_thread(sample, t, name_fn, aux);
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

uint64_t
kd_sample_upcall_sums(const struct kd_upcall_entry *entries, size_t n,
                      int n_cpus, uint64_t key, bool other,
                      uint64_t per_cpu[])
{
    uint64_t total = 0;

    for (int cpu = 0; cpu < n_cpus; cpu++) {
        per_cpu[cpu] = 0;
        for (size_t i = 0; i < n; i++) {
            if ((entries[i].key == key) != other) {
                per_cpu[cpu] += entries[i].per_cpu[cpu];
            }
        }
        total += per_cpu[cpu];
    }
    return total;
}

void
kd_sample_clear(struct kd_sample *sample)
{
    uint32_t pid = sample->pid;

    for (size_t i = 0; i < sample->n_threads; i++) {
        free(sample->threads[i].name);
    }
    free(sample->threads);
    for (size_t i = 0; i < KD_N_SAMPLE_ARRAYS; i++) {
        free(*kd_sample_array(sample, &kd_sample_arrays[i]));
    }
    for (size_t i = 0; i < sample->n_upcalls; i++) {
        free(sample->upcalls[i].per_cpu);
    }
    free(sample->upcalls);
    memset(sample, 0, sizeof *sample);
    sample->pid = pid;
}
