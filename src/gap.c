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

/* The syscalls of 'd', most time first, into 'gap'.  Returns the time
 * they blocked, those not listed included. */
static uint64_t
kd_gap_decode_syscalls(const struct kd_gap_detail *d, struct kd_gap *gap)
{
    uint64_t blocked = 0;

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
    return blocked + d->other_syscalls.blocked_ns;
}

/* Who ran instead, from 'd', longest first, into 'gap', and the rest of
 * the 'ready_ns' the thread waited. */
static void
kd_gap_decode_ran(const struct kd_gap_detail *d, uint64_t ready_ns,
                  struct kd_gap *gap)
{
    uint64_t listed = 0;

    gap->n_ran = kd_min_u64(d->n_ran, KD_GAP_RAN);
    memcpy(gap->ran, d->ran, gap->n_ran * sizeof *gap->ran);
    if (gap->n_ran) {
        qsort(gap->ran, gap->n_ran, sizeof *gap->ran, kd_gap_ran_cmp);
    }
    for (size_t i = 0; i < gap->n_ran; i++) {
        listed += gap->ran[i].ns;
    }
    gap->ran_others_ns = ready_ns > listed ? ready_ns - listed : 0;
}

/* The parts of 'gap' from its accounts 'acct' and the time its syscalls
 * 'blocked', what is not accounted for, and the dominant part. */
static void
kd_gap_decode_parts(const uint64_t *acct, uint64_t blocked,
                    struct kd_gap *gap)
{
    uint64_t irq, sum = 0, largest = 0;

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

void
kd_gap_decode(const struct kd_gap_event *ev, int64_t mono_to_wall_ns,
              unsigned int index, struct kd_gap *gap)
{
    const uint64_t *acct = ev->acct.v;
    uint64_t blocked;

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

    blocked = kd_gap_decode_syscalls(&ev->detail, gap);
    kd_gap_decode_ran(&ev->detail, acct[KD_ACCT_READY], gap);
    kd_gap_decode_parts(acct, blocked, gap);
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
    if (g->block.ts >= g->start_ns && g->block.ts <= now) {
        ev->pending = g->block;
    }
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

        if (c->key.tid != ev->head.tid || c->key.start_ns != ev->start_ns
            || c->key.kind != KD_COUNT_ON_CPU) {
            continue;
        }
        gap->stacks = kd_xreallocarray(gap->stacks, gap->n_stacks + 1,
                                       sizeof *gap->stacks);
        st = &gap->stacks[gap->n_stacks++];
        memset(st, 0, sizeof *st);
        st->user_stack_id = c->key.user_stack_id;
        st->kernel_stack_id = c->key.kernel_stack_id;
        st->samples = c->value.count > UINT32_MAX ? UINT32_MAX
                                                  : c->value.count;
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

static int
kd_gap_blocked_cmp(const void *a_, const void *b_)
{
    const struct kd_gap_blocked *a = a_, *b = b_;
    uint64_t na = kd_gap_blocked_ns(a), nb = kd_gap_blocked_ns(b);

    if (a->going_on != b->going_on) {
        return a->going_on ? -1 : 1;
    }
    if (na != nb) {
        return na > nb ? -1 : 1;
    }
    if (a->count != b->count) {
        return a->count > b->count ? -1 : 1;
    }
    if (a->kernel_stack_id != b->kernel_stack_id) {
        return a->kernel_stack_id < b->kernel_stack_id ? -1 : 1;
    }
    if (a->user_stack_id != b->user_stack_id) {
        return a->user_stack_id < b->user_stack_id ? -1 : 1;
    }
    return a->waker_tid < b->waker_tid ? -1 : a->waker_tid > b->waker_tid;
}

/* Adds to 'gap' (in progress at 'now') the sleep 'p' its thread is in. */
static void
kd_gap_add_pending(struct kd_gap *gap, const struct kd_gap_block *p,
                   uint64_t now)
{
    struct kd_gap_blocked *b;
    bool woken = p->woken_ts >= p->ts && p->woken_ts <= now;

    gap->blocked = kd_xreallocarray(gap->blocked, gap->n_blocked + 1,
                                    sizeof *gap->blocked);
    b = &gap->blocked[gap->n_blocked++];
    memset(b, 0, sizeof *b);
    b->going_on = true;
    b->user_stack_id = p->user_stack_id;
    b->kernel_stack_id = p->kernel_stack_id;
    b->waker_user_stack_id = -1;
    b->waker_kernel_stack_id = -1;
    b->count = 1;
    b->sleep_ns = (woken ? p->woken_ts : now) - p->ts;
    b->ready_ns = woken ? now - p->woken_ts : 0;
    b->merged = 1;
    if (woken && p->waker_seen) {
        b->woken = true;
        b->waker_tid = p->waker_tid;
        b->waker_pid = p->waker_pid;
        kd_fixed_cstr(b->waker_name, p->waker_comm, sizeof p->waker_comm);
        b->waker_user_stack_id = p->waker_user_stack_id;
        b->waker_kernel_stack_id = p->waker_kernel_stack_id;
    }
}

void
kd_gap_set_blocked(struct kd_gap *gap, const struct kd_gap_event *ev,
                   bool on, const struct kd_profile_count *counts, size_t n)
{
    const struct kd_gap_profile *p = &ev->detail.profile;

    gap->off_cpu = on;
    gap->blocked = NULL;
    gap->n_blocked = 0;
    if (!on) {
        return;
    }
    gap->n_sleeps = p->sleeps;
    gap->lost_sleeps = p->lost_sleeps;
    for (size_t i = 0; i < n; i++) {
        const struct kd_profile_count *c = &counts[i];
        struct kd_gap_blocked *b;

        if (c->key.tid != ev->head.tid || c->key.start_ns != ev->start_ns
            || c->key.kind != KD_COUNT_BLOCKED) {
            continue;
        }
        gap->blocked = kd_xreallocarray(gap->blocked, gap->n_blocked + 1,
                                        sizeof *gap->blocked);
        b = &gap->blocked[gap->n_blocked++];
        memset(b, 0, sizeof *b);
        b->user_stack_id = c->key.user_stack_id;
        b->kernel_stack_id = c->key.kernel_stack_id;
        b->woken = c->key.woken != 0;
        b->waker_tid = c->key.waker_tid;
        b->waker_pid = c->value.waker_pid;
        kd_fixed_cstr(b->waker_name, c->value.waker_comm,
                      sizeof c->value.waker_comm);
        b->waker_user_stack_id = c->key.waker_user_stack_id;
        b->waker_kernel_stack_id = c->key.waker_kernel_stack_id;
        b->count = c->value.count;
        b->sleep_ns = c->value.sleep_ns;
        b->ready_ns = c->value.ready_ns;
        b->merged = 1;
    }
    if (ev->pending.ts && ev->pending.ts <= ev->head.ts) {
        kd_gap_add_pending(gap, &ev->pending, ev->head.ts);
    }
    if (gap->n_blocked) {
        qsort(gap->blocked, gap->n_blocked, sizeof *gap->blocked,
              kd_gap_blocked_cmp);
    }
}

/* Whether formatted kernel frame 'frame' names a function whose name
 * starts with one of 'prefixes' (NULL-terminated). */
static bool
kd_frame_starts(const char *frame, const char *const *prefixes)
{
    for (; *prefixes; prefixes++) {
        if (!strncmp(frame, *prefixes, strlen(*prefixes))) {
            return true;
        }
    }
    return false;
}

enum kd_waker_context
kd_waker_context(char *const *frames, size_t n)
{
    /* The entry points of interrupts on x86_64 and arm64, and the
     * kernel's soft interrupt loop: the innermost one found tells. */
    static const char *const hard[] = {
        "asm_sysvec_", "sysvec_", "__sysvec_", "asm_common_interrupt",
        "common_interrupt", "hrtimer_interrupt", "handle_irq_event",
        "el1_interrupt", "el0_interrupt", "gic_handle_irq",
        "handle_domain_irq", "generic_handle_domain_irq", NULL,
    };
    static const char *const soft[] = {
        "handle_softirqs", "__do_softirq", "do_softirq", NULL,
    };

    for (size_t i = 0; i < n; i++) {
        if (kd_frame_starts(frames[i], soft)) {
            return KD_WAKER_SOFTIRQ;
        }
        if (kd_frame_starts(frames[i], hard)) {
            return KD_WAKER_HARDIRQ;
        }
    }
    return KD_WAKER_TASK;
}

static void
kd_frames_free(struct kd_frames *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i]);
    }
    free(f->v);
    *f = (struct kd_frames) { .v = NULL };
}

void
kd_gap_set_blocked_frames(struct kd_gap *gap, size_t i,
                          struct kd_frames frames,
                          struct kd_frames waker_frames, bool lost)
{
    struct kd_gap_blocked *b = &gap->blocked[i];

    kd_frames_free(&b->frames);
    kd_frames_free(&b->waker_frames);
    b->frames = frames;
    b->waker_frames = waker_frames;
    b->lost = lost;
    b->context = kd_waker_context(waker_frames.v, waker_frames.n_kernel);
    if (b->context != KD_WAKER_TASK) {
        /* The user frames are those of the task it interrupted. */
        for (size_t j = waker_frames.n_kernel; j < waker_frames.n; j++) {
            free(b->waker_frames.v[j]);
        }
        b->waker_frames.n = waker_frames.n_kernel;
    }
}

/* Whether 'a' and 'b' have as many frames, naming the same functions. */
static bool
kd_frames_same_functions(const struct kd_frames *a,
                         const struct kd_frames *b)
{
    if (a->n != b->n) {
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (!kd_frame_same_function(a->v[i], b->v[i])) {
            return false;
        }
    }
    return true;
}

static bool
kd_blocked_same(const struct kd_gap_blocked *a,
                const struct kd_gap_blocked *b)
{
    return !a->lost && !b->lost && !a->going_on && !b->going_on
           && a->woken == b->woken
           && a->context == b->context
           && !strcmp(a->waker_name, b->waker_name)
           && kd_frames_same_functions(&a->frames, &b->frames)
           && kd_frames_same_functions(&a->waker_frames, &b->waker_frames);
}

void
kd_gap_merge_blocked(struct kd_gap *gap)
{
    size_t n = 0;

    for (size_t i = 0; i < gap->n_blocked; i++) {
        struct kd_gap_blocked *b = &gap->blocked[i];
        size_t j;

        for (j = 0; j < n; j++) {
            if (kd_blocked_same(&gap->blocked[j], b)) {
                break;
            }
        }
        if (j < n) {
            gap->blocked[j].count += b->count;
            gap->blocked[j].sleep_ns += b->sleep_ns;
            gap->blocked[j].ready_ns += b->ready_ns;
            gap->blocked[j].merged += b->merged;
            kd_frames_free(&b->frames);
            kd_frames_free(&b->waker_frames);
        } else {
            gap->blocked[n++] = *b;
        }
    }
    if (n) {
        qsort(gap->blocked, n, sizeof *gap->blocked, kd_gap_blocked_cmp);
    }
    gap->other_blocked_count = 0;
    gap->other_blocked_ns = 0;
    for (size_t i = KD_GAP_BLOCKED; i < n; i++) {
        gap->other_blocked_count += gap->blocked[i].count;
        gap->other_blocked_ns += kd_gap_blocked_ns(&gap->blocked[i]);
        kd_frames_free(&gap->blocked[i].frames);
        kd_frames_free(&gap->blocked[i].waker_frames);
    }
    gap->n_blocked = n < KD_GAP_BLOCKED ? n : KD_GAP_BLOCKED;
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
    for (size_t i = 0; i < gap->n_blocked; i++) {
        kd_frames_free(&gap->blocked[i].frames);
        kd_frames_free(&gap->blocked[i].waker_frames);
    }
    free(gap->blocked);
    gap->blocked = NULL;
    gap->n_blocked = 0;
}
