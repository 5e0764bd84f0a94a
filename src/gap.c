/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Long poll intervals decoded into the parts their time splits into. */

#include "gap.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const kd_gap_part_keys[] = {
#define KD_GAP_PART_KEY(ID, KEY, LABEL) KEY,
    KD_GAP_PARTS(KD_GAP_PART_KEY)
#undef KD_GAP_PART_KEY
};

static const char *const kd_gap_part_labels[] = {
#define KD_GAP_PART_LABEL(ID, KEY, LABEL) LABEL,
    KD_GAP_PARTS(KD_GAP_PART_LABEL)
#undef KD_GAP_PART_LABEL
};

const char *
kd_gap_part_key(enum kd_gap_part part)
{
    return part < KD_N_GAP_PARTS ? kd_gap_part_keys[part] : "?";
}

const char *
kd_gap_part_label(enum kd_gap_part part)
{
    return part < KD_N_GAP_PARTS ? kd_gap_part_labels[part] : "?";
}

static int
kd_gap_syscall_cmp(const void *a_, const void *b_)
{
    const struct kd_gap_syscall *a = a_, *b = b_;

    if (a->total_ns != b->total_ns) {
        return a->total_ns > b->total_ns ? -1 : 1;
    }
    return a->nr < b->nr ? -1 : a->nr > b->nr;
}

static int
kd_gap_ran_cmp(const void *a_, const void *b_)
{
    const struct kd_gap_ran *a = a_, *b = b_;

    if (a->ns != b->ns) {
        return a->ns > b->ns ? -1 : 1;
    }
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int
kd_gap_stack_cmp(const void *a_, const void *b_)
{
    const struct kd_gap_profile_stack *a = a_, *b = b_;

    if (a->samples != b->samples) {
        return a->samples > b->samples ? -1 : 1;
    }
    if (a->user_stack_id != b->user_stack_id) {
        return a->user_stack_id < b->user_stack_id ? -1 : 1;
    }
    return a->kernel_stack_id < b->kernel_stack_id ? -1
           : a->kernel_stack_id > b->kernel_stack_id;
}

static struct timespec
kd_gap_wall(uint64_t mono_ns, int64_t mono_to_wall_ns)
{
    int64_t ns = (int64_t) mono_ns + mono_to_wall_ns;
    struct timespec ts = {
        .tv_sec = ns / 1000000000,
        .tv_nsec = ns % 1000000000,
    };

    return ts;
}

static uint64_t
kd_min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

void
kd_gap_decode(const struct kd_gap_event *ev, int64_t mono_to_wall_ns,
              unsigned int index, struct kd_gap *gap)
{
    const struct kd_gap_detail *d = &ev->detail;
    const uint64_t *acct = ev->acct.v;
    uint64_t irq, blocked = 0, listed = 0, sum = 0, largest = 0;

    memset(gap, 0, sizeof *gap);
    gap->in_progress = ev->head.id == KD_EVENT_LONG_POLL_PROGRESS;
    gap->index = gap->in_progress ? 0 : index;
    gap->open_syscall = -1;
    if (gap->in_progress && ev->head.entry_ts
        && ev->head.entry_ts <= ev->head.ts) {
        gap->open_syscall = ev->head.syscall;
        gap->open_syscall_ns = ev->head.ts - ev->head.entry_ts;
    }
    gap->pid = ev->pid;
    gap->tid = ev->head.tid;
    kd_fixed_cstr(gap->name, ev->comm, sizeof ev->comm);
    gap->start_ns = ev->start_ns;
    gap->end_ns = ev->head.ts > ev->start_ns ? ev->head.ts : ev->start_ns;
    gap->start_wall = kd_gap_wall(gap->start_ns, mono_to_wall_ns);
    gap->end_wall = kd_gap_wall(gap->end_ns, mono_to_wall_ns);
    gap->waits = acct[KD_ACCT_WAITS];
    gap->preemptions = acct[KD_ACCT_PREEMPTIONS];
    gap->sleeps = acct[KD_ACCT_SLEEPS];

    gap->n_syscalls = kd_min_u64(d->n_syscalls, KD_GAP_SYSCALLS);
    memcpy(gap->syscalls, d->syscalls,
           gap->n_syscalls * sizeof *gap->syscalls);
    if (gap->n_syscalls) {
        qsort(gap->syscalls, gap->n_syscalls, sizeof *gap->syscalls,
              kd_gap_syscall_cmp);
    }
    gap->other_syscalls = d->other_syscalls;
    for (size_t i = 0; i < gap->n_syscalls; i++) {
        blocked += gap->syscalls[i].blocked_ns;
    }
    blocked += d->other_syscalls.blocked_ns;

    gap->n_ran = kd_min_u64(d->n_ran, KD_GAP_RAN);
    memcpy(gap->ran, d->ran, gap->n_ran * sizeof *gap->ran);
    if (gap->n_ran) {
        qsort(gap->ran, gap->n_ran, sizeof *gap->ran, kd_gap_ran_cmp);
    }
    for (size_t i = 0; i < gap->n_ran; i++) {
        listed += gap->ran[i].ns;
    }
    gap->ran_others_ns = acct[KD_ACCT_READY] > listed
                         ? acct[KD_ACCT_READY] - listed : 0;

    /* Interrupts are part of the time on CPU; syscalls, of the time
     * asleep. */
    irq = acct[KD_ACCT_HARDIRQ] + acct[KD_ACCT_SOFTIRQ];
    gap->parts[KD_GAP_ON_CPU] = acct[KD_ACCT_RUN]
                                - kd_min_u64(irq, acct[KD_ACCT_RUN]);
    gap->on_cpu_kernel_ns = kd_min_u64(acct[KD_ACCT_KERNEL],
                                       gap->parts[KD_GAP_ON_CPU]);
    gap->on_cpu_user_ns = gap->parts[KD_GAP_ON_CPU] - gap->on_cpu_kernel_ns;
    gap->parts[KD_GAP_RUN_QUEUE] = acct[KD_ACCT_READY];
    gap->parts[KD_GAP_STOPPED] = acct[KD_ACCT_STOP];
    gap->parts[KD_GAP_HARDIRQ] = acct[KD_ACCT_HARDIRQ];
    gap->parts[KD_GAP_SOFTIRQ] = acct[KD_ACCT_SOFTIRQ];
    gap->parts[KD_GAP_BLOCKED_SYSCALLS] = kd_min_u64(blocked,
                                                     acct[KD_ACCT_SLEEP]);
    gap->parts[KD_GAP_BLOCKED_OTHER] = acct[KD_ACCT_SLEEP]
                                       - gap->parts[KD_GAP_BLOCKED_SYSCALLS];
    for (int i = 0; i < KD_GAP_UNACCOUNTED; i++) {
        sum += gap->parts[i];
    }
    gap->unaccounted_ns = (int64_t) (kd_gap_ns(gap) - sum);
    gap->parts[KD_GAP_UNACCOUNTED] = gap->unaccounted_ns > 0
                                     ? gap->unaccounted_ns : 0;

    gap->dominant = KD_GAP_ON_CPU;
    for (int i = 0; i < KD_N_GAP_PARTS; i++) {
        if (gap->parts[i] > largest) {
            largest = gap->parts[i];
            gap->dominant = i;
        }
    }
}

/* Adds 'ns' to '*v' when 'since' is a time before 'now'. */
static void
kd_gap_add_since(uint64_t *v, uint64_t since, uint64_t now)
{
    if (since && since < now) {
        *v += now - since;
    }
}

bool
kd_gap_event_in_progress(const struct kd_tstate_gap *g, uint32_t tid,
                         uint32_t pid, uint64_t now, struct kd_gap_event *ev)
{
    const struct kd_tstate *t = &g->t;
    struct kd_gap_detail *d = &ev->detail;
    struct kd_gap_syscall *s = NULL;
    uint64_t *acct = ev->acct.v;

    if (!g->start_ns || g->start_ns > now) {
        return false;
    }
    memset(ev, 0, sizeof *ev);
    ev->head.ts = now;
    ev->head.tid = tid;
    ev->head.id = KD_EVENT_LONG_POLL_PROGRESS;
    ev->head.user_stack_id = -1;
    ev->head.kernel_stack_id = -1;
    ev->start_ns = g->start_ns;
    ev->pid = pid;
    for (int i = 0; i < KD_N_ACCT; i++) {
        acct[i] = t->acct.v[i] - g->base.v[i];
    }
    kd_gap_add_since(&acct[KD_ACCT_RUN], t->run_ts, now);
    kd_gap_add_since(&acct[KD_ACCT_READY], t->ready_ts, now);
    kd_gap_add_since(&acct[KD_ACCT_SLEEP], t->sleep_ts, now);
    kd_gap_add_since(&acct[KD_ACCT_STOP], t->stop_ts, now);
    kd_gap_add_since(&acct[KD_ACCT_KERNEL], t->kernel_ts, now);
    *d = g->detail;
    d->n_syscalls = d->n_syscalls < KD_GAP_SYSCALLS
                    ? d->n_syscalls : KD_GAP_SYSCALLS;
    d->n_ran = d->n_ran < KD_GAP_RAN ? d->n_ran : KD_GAP_RAN;

    /* The syscall it is in, entered inside the interval. */
    if (t->syscall_ts >= g->start_ns && t->syscall_ts <= now) {
        uint64_t asleep = t->acct.v[KD_ACCT_SLEEP] - t->syscall_sleep;

        kd_gap_add_since(&asleep, t->sleep_ts, now);
        ev->head.entry_ts = t->syscall_ts;
        ev->head.syscall = t->syscall_nr;
        for (uint32_t i = 0; i < d->n_syscalls; i++) {
            if (d->syscalls[i].nr == t->syscall_nr) {
                s = &d->syscalls[i];
            }
        }
        if (!s && d->n_syscalls < KD_GAP_SYSCALLS) {
            s = &d->syscalls[d->n_syscalls++];
            s->nr = t->syscall_nr;
        } else if (!s) {
            s = &d->other_syscalls;
        }
        s->count++;
        s->total_ns += now - t->syscall_ts;
        s->blocked_ns += asleep;
    }
    return true;
}

/* 'part' samples of 'whole' as a share of 'ns'. */
static uint64_t
kd_gap_share_ns(uint64_t ns, uint32_t part, uint32_t whole)
{
    return whole ? (uint64_t) ((double) ns * part / whole + 0.5) : 0;
}

void
kd_gap_set_profile(struct kd_gap *gap, const struct kd_gap_event *ev,
                   unsigned int hz, const struct kd_profile_count *counts,
                   size_t n)
{
    const struct kd_gap_profile *p = &ev->detail.profile;
    uint64_t on_cpu = gap->parts[KD_GAP_ON_CPU];

    gap->profile_hz = hz;
    gap->stacks = NULL;
    gap->n_stacks = 0;
    if (!hz) {
        return;
    }
    gap->samples = p->samples;
    gap->lost_samples = p->lost_samples;
    gap->lost_ns = kd_gap_share_ns(on_cpu, p->lost_samples, p->samples);
    for (size_t i = 0; i < n; i++) {
        const struct kd_profile_count *c = &counts[i];
        struct kd_gap_profile_stack *st;

        if (c->key.tid != ev->head.tid || c->key.start_ns != ev->start_ns) {
            continue;
        }
        gap->stacks = kd_xreallocarray(gap->stacks, gap->n_stacks + 1,
                                       sizeof *gap->stacks);
        st = &gap->stacks[gap->n_stacks++];
        memset(st, 0, sizeof *st);
        st->user_stack_id = c->key.user_stack_id;
        st->kernel_stack_id = c->key.kernel_stack_id;
        st->samples = c->samples > UINT32_MAX ? UINT32_MAX : c->samples;
        st->ns = kd_gap_share_ns(on_cpu, st->samples, p->samples);
        st->merged = 1;
    }
    if (gap->n_stacks) {
        qsort(gap->stacks, gap->n_stacks, sizeof *gap->stacks,
              kd_gap_stack_cmp);
    }
}

void
kd_gap_set_frames(struct kd_gap *gap, size_t i, char **frames, size_t n,
                  size_t n_kernel, bool lost)
{
    struct kd_gap_profile_stack *s = &gap->stacks[i];

    for (size_t j = 0; j < s->n_frames; j++) {
        free(s->frames[j]);
    }
    free(s->frames);
    s->frames = frames;
    s->n_frames = n;
    s->n_kernel_frames = n_kernel;
    s->lost = lost;
}

/* Whether frames 'a' and 'b' name the same function: equal but for the
 * offset of "name+0xOFF [module]". */
static bool
kd_frame_same_function(const char *a, const char *b)
{
    size_t la = strcspn(a, "+ "), lb = strcspn(b, "+ ");
    const char *ma = strchr(a, ' '), *mb = strchr(b, ' ');

    return la == lb && !strncmp(a, b, la)
           && !strcmp(ma ? ma : "", mb ? mb : "");
}

static bool
kd_stack_same_functions(const struct kd_gap_profile_stack *a,
                        const struct kd_gap_profile_stack *b)
{
    if (a->n_frames != b->n_frames || a->lost || b->lost) {
        return false;
    }
    for (size_t i = 0; i < a->n_frames; i++) {
        if (!kd_frame_same_function(a->frames[i], b->frames[i])) {
            return false;
        }
    }
    return true;
}

void
kd_gap_merge_stacks(struct kd_gap *gap)
{
    uint64_t on_cpu = gap->parts[KD_GAP_ON_CPU];
    size_t n = 0;

    /* Sorted by decreasing samples: the first of each group keeps its
     * frames. */
    for (size_t i = 0; i < gap->n_stacks; i++) {
        struct kd_gap_profile_stack *st = &gap->stacks[i];
        size_t j;

        for (j = 0; j < n; j++) {
            if (kd_stack_same_functions(&gap->stacks[j], st)) {
                break;
            }
        }
        if (j < n) {
            gap->stacks[j].samples += st->samples;
            gap->stacks[j].merged += st->merged;
            kd_gap_set_frames(gap, i, NULL, 0, 0, false);
        } else {
            gap->stacks[n++] = *st;
        }
    }
    gap->n_stacks = n;
    if (n) {
        qsort(gap->stacks, n, sizeof *gap->stacks, kd_gap_stack_cmp);
    }
    gap->other_samples = 0;
    for (size_t i = KD_GAP_STACKS; i < n; i++) {
        gap->other_samples += gap->stacks[i].samples;
        kd_gap_set_frames(gap, i, NULL, 0, 0, false);
    }
    gap->n_stacks = n < KD_GAP_STACKS ? n : KD_GAP_STACKS;
    for (size_t i = 0; i < gap->n_stacks; i++) {
        gap->stacks[i].ns = kd_gap_share_ns(on_cpu, gap->stacks[i].samples,
                                            gap->samples);
    }
    gap->other_ns = kd_gap_share_ns(on_cpu, gap->other_samples,
                                    gap->samples);
}

void
kd_gap_destroy(struct kd_gap *gap)
{
    for (size_t i = 0; i < gap->n_stacks; i++) {
        kd_gap_set_frames(gap, i, NULL, 0, 0, false);
    }
    free(gap->stacks);
    gap->stacks = NULL;
    gap->n_stacks = 0;
}
