/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_GAP_H
#define KD_GAP_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "kd_abi.h"

/* Long poll intervals (--long-poll-events): one interval as the eBPF
 * program sent it (struct kd_gap_event, kd_abi.h), decoded into the parts
 * its time splits into.  Pure: nothing here touches the kernel. */

/* The parts of an interval, KD_GAP_PART(ID, KEY, LABEL): they add up to
 * the interval.  KEY names it in JSON ("KEY_ns") and in "dominant", LABEL
 * in the text. */
#define KD_GAP_PARTS(KD_GAP_PART)                                       \
    KD_GAP_PART(ON_CPU, "on_cpu", "on CPU")                             \
    KD_GAP_PART(RUN_QUEUE, "run_queue", "waiting in the run queue")     \
    KD_GAP_PART(STOPPED, "stopped", "stopped")                          \
    KD_GAP_PART(HARDIRQ, "hardirq", "in hard IRQs")                     \
    KD_GAP_PART(SOFTIRQ, "softirq", "in soft IRQs")                     \
    KD_GAP_PART(BLOCKED_SYSCALLS, "blocked_in_syscalls",                \
                "blocked in syscalls")                                  \
    KD_GAP_PART(BLOCKED_OTHER, "blocked_outside_syscalls",              \
                "blocked outside syscalls")                             \
    KD_GAP_PART(UNACCOUNTED, "unaccounted", "unaccounted")

enum kd_gap_part {
#define KD_GAP_PART_ID(ID, KEY, LABEL) KD_GAP_##ID,
    KD_GAP_PARTS(KD_GAP_PART_ID)
#undef KD_GAP_PART_ID
    KD_N_GAP_PARTS
};

const char *kd_gap_part_key(enum kd_gap_part);
const char *kd_gap_part_label(enum kd_gap_part);

/* How many of an interval's on-CPU stacks a report keeps; the samples of
 * the others are summed. */
#define KD_GAP_STACKS 16

/* How many of an interval's (blocked stack, waker) pairs a report keeps;
 * the others are summed. */
#define KD_GAP_BLOCKED 8

/* An entry of map profile_counts: the samples of one stack pair of one
 * interval of one thread, or its sleeps there with one waker. */
struct kd_profile_count {
    struct kd_profile_key key;
    struct kd_profile_value value;
};

/* Where a waker ran when it woke a thread: as a task, or in an interrupt
 * of the task that was on its CPU (told by its kernel stack). */
enum kd_waker_context {
    KD_WAKER_TASK,
    KD_WAKER_HARDIRQ,
    KD_WAKER_SOFTIRQ,
};

/* Frames, the kernel's first, innermost first. */
struct kd_frames {
    char **v;                       /* NULL until resolved. */
    size_t n;
    size_t n_kernel;                /* The first ones. */
};

/* One stack of an interval's on-CPU profile (--profile-hz). */
struct kd_gap_profile_stack {
    int32_t user_stack_id;          /* -1: none (kernel_stack_id alike). */
    int32_t kernel_stack_id;
    uint32_t samples;
    uint64_t ns;                    /* Its share of the time on CPU. */

    /* Its frames, the kernel's first, innermost first; NULL until
     * resolved (kd_gap_set_frames()). */
    char **frames;
    size_t n_frames;
    size_t n_kernel_frames;         /* The first ones. */
    bool lost;                      /* A stack of it was gone from the
                                     * map when it was resolved. */
    size_t merged;                  /* How many stack pairs it stands
                                     * for (kd_gap_merge_stacks()). */
};

/* Where an interval's thread slept, woken by one waker (--off-cpu): its
 * sleeps there, with their time asleep and then in the run queue. */
struct kd_gap_blocked {
    int32_t user_stack_id;          /* -1: none (the others alike). */
    int32_t kernel_stack_id;
    bool woken;                     /* A wake-up seen: the waker known. */
    uint32_t waker_tid;
    uint32_t waker_pid;
    char waker_name[KD_COMM_LEN + 1];
    int32_t waker_user_stack_id;    /* Only for a thread of the target. */
    int32_t waker_kernel_stack_id;
    enum kd_waker_context context;  /* From its frames (kd_gap_set_
                                     * blocked_frames()). */
    uint64_t count;
    uint64_t sleep_ns;
    uint64_t ready_ns;
    struct kd_frames frames;        /* Where it slept. */
    struct kd_frames waker_frames;  /* Where the waker was (no user frames
                                     * in an interrupt). */
    bool lost;                      /* A stack of it was gone. */
    size_t merged;                  /* How many pairs it stands for. */
    bool going_on;                  /* In progress: the sleep the thread
                                     * is in, up to the report (not in
                                     * 'n_sleeps'). */
};

/* The frames of on-CPU stack 'st', as a view (the stack still owns
 * them). */
static inline struct kd_frames
kd_gap_stack_frames(const struct kd_gap_profile_stack *st)
{
    struct kd_frames f = {
        .v = st->frames, .n = st->n_frames, .n_kernel = st->n_kernel_frames,
    };

    return f;
}

/* Its whole time off CPU. */
static inline uint64_t
kd_gap_blocked_ns(const struct kd_gap_blocked *b)
{
    return b->sleep_ns + b->ready_ns;
}

struct kd_gap {
    unsigned int index;             /* 1 for the first one reported; 0
                                     * for one still going on. */
    bool of_sample;                 /* Not an interval: a thread's stacks
                                     * in a sample (time and trigger
                                     * modes), 'parts' its run time only. */
    bool in_progress;               /* It has not ended: 'end_ns' is when
                                     * it was read. */
    int64_t open_syscall;           /* In progress: the syscall the thread
                                     * is in (counted among its syscalls),
                                     * or -1. */
    uint64_t open_syscall_ns;       /* Since its entry. */
    uint32_t pid;
    uint32_t tid;
    char name[KD_COMM_LEN + 1];     /* The thread's, when it ended. */

    /* CLOCK_MONOTONIC ns, as bpf_ktime_get_ns(), and the wall clock. */
    uint64_t start_ns, end_ns;
    struct timespec start_wall, end_wall;

    /* The parts, in ns; 'unaccounted' is what the others leave of the
     * interval, negative if they add up to more. */
    uint64_t parts[KD_N_GAP_PARTS];
    int64_t unaccounted_ns;
    enum kd_gap_part dominant;      /* The largest part. */

    /* The time on CPU split as OVS's "(Ums user, Sms system)" does:
     * inside syscalls, and the rest. */
    uint64_t on_cpu_user_ns;
    uint64_t on_cpu_kernel_ns;

    uint64_t waits;                 /* Run-queue waits. */
    uint64_t preemptions;
    uint64_t sleeps;

    /* Its syscalls but the last poll(), by decreasing total time; then
     * those beyond the first KD_GAP_SYSCALLS distinct ones. */
    struct kd_gap_syscall syscalls[KD_GAP_SYSCALLS];
    size_t n_syscalls;
    struct kd_gap_syscall other_syscalls;

    /* The tasks that held its CPU while it waited in the run queue, by
     * decreasing time; then the rest of its run-queue time (tasks beyond
     * the first KD_GAP_RAN, or not known). */
    struct kd_gap_ran ran[KD_GAP_RAN];
    size_t n_ran;
    uint64_t ran_others_ns;

    /* The on-CPU profile (--profile-hz; 'profile_hz' 0: off): the
     * thread's samples in the interval, its stacks by decreasing samples
     * (KD_GAP_STACKS at most, once merged), the samples of the stacks
     * beyond them and those whose stack or count found no room in the
     * maps; each with its share of the time on CPU. */
    unsigned int profile_hz;
    uint32_t samples;
    struct kd_gap_profile_stack *stacks;
    size_t n_stacks;
    uint32_t other_samples;
    uint64_t other_ns;
    uint32_t lost_samples;
    uint64_t lost_ns;

    /* Where it slept (--off-cpu; 'off_cpu' false: off): its sleeps that
     * ended in the interval, by (blocked stack, waker) by decreasing time
     * (KD_GAP_BLOCKED at most, once merged), the sleeps and time of the
     * others, and the sleeps whose stacks or count found no room. */
    bool off_cpu;
    uint32_t n_sleeps;
    struct kd_gap_blocked *blocked;
    size_t n_blocked;
    uint64_t other_blocked_count;
    uint64_t other_blocked_ns;
    uint32_t lost_sleeps;
};

/* The interval's length. */
static inline uint64_t
kd_gap_ns(const struct kd_gap *gap)
{
    return gap->end_ns - gap->start_ns;
}

/* Whether the thread of 'gap', in progress, is in a sleep (it comes
 * first among its pairs). */
static inline bool
kd_gap_sleeping(const struct kd_gap *gap)
{
    return gap->n_blocked && gap->blocked[0].going_on;
}

/* Decodes 'ev' into 'gap': its monotonic times are turned into wall-clock
 * times by adding 'mono_to_wall_ns' (CLOCK_REALTIME - CLOCK_MONOTONIC).
 * Counts the syscalls and tasks the event has no more room for as
 * KD_GAP_SYSCALLS and KD_GAP_RAN. */
void kd_gap_decode(const struct kd_gap_event *ev, int64_t mono_to_wall_ns,
                   unsigned int index, struct kd_gap *gap);

/* Keeps the on-CPU profile of '*gap', decoded from 'ev' and sampled at
 * 'hz' (0: none): its stacks, those of the 'n' 'counts' (read from map
 * profile_counts) that are of its thread and interval; each stack's
 * samples, and its estimated time, its share of the time on CPU as its
 * share of the samples. */
void kd_gap_set_profile(struct kd_gap *gap, const struct kd_gap_event *ev,
                        unsigned int hz,
                        const struct kd_profile_count *counts, size_t n);

/* Gives stack 'i' of 'gap' its 'n' frames (taking 'frames', an array of
 * strings the gap then owns), the kernel's the first 'n_kernel', 'lost'
 * if one of its stacks was gone. */
void kd_gap_set_frames(struct kd_gap *gap, size_t i, char **frames,
                       size_t n, size_t n_kernel, bool lost);

/* Once every stack of 'gap' has its frames: merges the stacks whose frames
 * name the same functions ("name+0xOFF [module]" with any offsets: the
 * same code paths at other instructions), each keeping the frames of its
 * most sampled member, then keeps the KD_GAP_STACKS most sampled and
 * sums the others. */
void kd_gap_merge_stacks(struct kd_gap *gap);

/* Keeps where the thread of '*gap', decoded from 'ev', slept ('on' false:
 * not traced): the 'n' 'counts' (read from map profile_counts) of its
 * sleeps in its interval and, in progress, the sleep it is in. */
void kd_gap_set_blocked(struct kd_gap *gap, const struct kd_gap_event *ev,
                        bool on, const struct kd_profile_count *counts,
                        size_t n);

/* Gives pair 'i' of 'gap' the 'frames' of where it slept and the
 * 'waker_frames' of its waker (the gap then owns their arrays and
 * strings), 'lost' if one of their stacks was gone; the waker's context
 * is told from its kernel frames, and an interrupt's user frames (of the
 * task it interrupted) are dropped. */
void kd_gap_set_blocked_frames(struct kd_gap *gap, size_t i,
                               struct kd_frames frames,
                               struct kd_frames waker_frames, bool lost);

/* Once every pair has its frames: merges those whose frames name the same
 * functions and whose wakers have the same name, context and functions,
 * then keeps the KD_GAP_BLOCKED longest and sums the others. */
void kd_gap_merge_blocked(struct kd_gap *gap);

/* The context of a waker whose kernel frames are 'frames' (innermost
 * first): in a hard or soft interrupt, or a task. */
enum kd_waker_context kd_waker_context(char *const *frames, size_t n);

/* Frees what 'gap' owns (its stacks' frames). */
void kd_gap_destroy(struct kd_gap *gap);

/* Builds into 'ev' the interval that thread 'tid' of process 'pid', whose
 * tstate entry is 'g', is in at 'now' (on bpf_ktime_get_ns()'s clock, as
 * CLOCK_MONOTONIC), as the eBPF program would send it were it to end then:
 * what is going on (its turn on CPU, its wait, its sleep, its stop, its
 * time inside a syscall) counted up to 'now', and the syscall it is in
 * counted among its syscalls.  Its id is KD_EVENT_LONG_POLL_PROGRESS, and
 * its head's 'entry_ts' and 'syscall' tell the syscall it is in ('entry_ts'
 * 0: none).  Returns false if the thread is in no interval. */
bool kd_gap_event_in_progress(const struct kd_tstate_gap *g, uint32_t tid,
                              uint32_t pid, uint64_t now,
                              struct kd_gap_event *ev);

#endif /* gap.h */
