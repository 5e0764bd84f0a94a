/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The interface between the eBPF program and user space: the values of
 * capture_on, the counters, the events, the maps' keys and values.  Written
 * once, here: the C side includes this file, and the binary embeds it and
 * substitutes it into the template (placeholder ABI) as it embeds the
 * template itself.  Both sides see the same text: no struct or enum can
 * drift.
 *
 * Only fixed-size integer types, and no kernel struct.
 */

#ifndef KD_ABI_H
#define KD_ABI_H 1

/* The fixed-size integer types, as each side names them: the template
 * defines KD_ABI_EBPF before this text (bcc's u64 and the like); user space
 * includes <stdint.h> first.  This file includes nothing: the template
 * includes no header where the kernel has BTF. */
#ifdef KD_ABI_EBPF
#define KD_U8 u8
#define KD_U16 u16
#define KD_S16 s16
#define KD_U32 u32
#define KD_S32 s32
#define KD_U64 u64
#else
#define KD_U8 uint8_t
#define KD_U16 uint16_t
#define KD_S16 int16_t
#define KD_U32 uint32_t
#define KD_S32 int32_t
#define KD_U64 uint64_t
#endif

/* Values of capture_on[0].  The map starts UNARMED (its zero), so that no
 * start trigger can start a sample while the other probes (the stop
 * trigger's above all) are still being attached.  Once every probe is
 * attached, user space arms a sample (IDLE), starts it (ON) unless a start
 * trigger does, and marks it STOPPED while it reports, so that no trigger
 * starts a sample before the maps are empty again. */
#define KD_CAPTURE_UNARMED  0
#define KD_CAPTURE_ON       1
#define KD_CAPTURE_IDLE     2
#define KD_CAPTURE_STOPPED  0xffff

/* Indexes into counters. */
enum kd_counter {
    KD_COUNTER_EVENTS_DROPPED,  /* Ring buffer full. */
    KD_COUNTER_TRIGGERS_MISSED, /* Start trigger while reporting. */
    KD_COUNTER_SWITCHES_MISSED, /* A switch in or out of a target thread
                                 * that the sched_switch program did not
                                 * see (see struct kd_tstate). */
    KD_COUNTER_PROFILE_LOST,    /* Samples of a sample (--profile-hz) with
                                 * no room in the maps. */
    KD_COUNTER_SLEEPS_LOST,     /* Sleeps likewise (--off-cpu). */
    KD_COUNTER_UNWIND_NO_MAP,   /* User stacks that reached an address in
                                 * no mapping the tables know: user space
                                 * reads the mappings again. */
    KD_N_COUNTERS
};

/* Events sent to user space through the ring buffer. */
enum kd_event_id {
    KD_EVENT_SYSCALL,
    KD_EVENT_START_TRIGGER,
    KD_EVENT_STOP_TRIGGER,
    KD_EVENT_LONG_POLL,         /* A struct kd_gap_event. */
    KD_EVENT_LONG_POLL_PROGRESS,    /* One still going on, as user space
                                     * reads it from the thread's tstate
                                     * entry (never sent by the program). */
    KD_EVENT_TRACE,             /* The history of the thread of the long
                                 * poll interval just sent (--trace-dir):
                                 * a struct kd_trace_head, then its
                                 * records. */
};

/* The maps that can fill up, KD_MAP(ID, NAME): each one counts the
 * entries it could not create in map_full[KD_MAP_ID]. */
#define KD_FULL_MAPS(KD_MAP)        \
    KD_MAP(TSTATE, "tstate")        \
    KD_MAP(TSTATS, "tstats")        \
    KD_MAP(SYSCALLS, "syscalls")    \
    KD_MAP(HARDIRQS, "hardirqs")    \
    KD_MAP(SOFTIRQS, "softirqs")    \
    KD_MAP(NAMES, "names")          \
    KD_MAP(HISTS, "hists")          \
    KD_MAP(RAN, "ran")

enum kd_full_map {
#define KD_FULL_MAP_ID(ID, NAME) KD_MAP_##ID,
    KD_FULL_MAPS(KD_FULL_MAP_ID)
#undef KD_FULL_MAP_ID
    KD_N_FULL_MAPS
};

/* What a histogram entry is of: a syscall number, or one of these. */
#define KD_HIST_READY       0x10000
#define KD_HIST_RUN         0x10001

#define KD_IRQ_NAME_LEN     32
#define KD_COMM_LEN         16

/* kd_tstate's flags. */
#define KD_TSTATE_SWITCHED  1   /* The thread switched in or out. */
#define KD_TSTATE_BASE      2   /* exec_base and pcount_base are set. */

/* Where a thread's time went, as running totals (struct kd_acct), kept
 * only where a report needs them (--long-poll-events, --summary, --json):
 * KD_ACCT_FIELD(ID, NAME).  At any time a thread runs, waits in the run
 * queue, is stopped or sleeps, so RUN + READY + STOP + SLEEP grow with the
 * clock.  HARDIRQ and SOFTIRQ are parts of RUN (interrupts take the CPU
 * from the thread they interrupt); SOFTIRQ is net of the hard IRQs that
 * interrupted a soft IRQ.  KERNEL is the part of RUN spent inside
 * syscalls, net of the interrupts that came meanwhile: the rest of RUN but
 * the interrupts is the time in user space.  The last three are counts. */
#define KD_ACCT_FIELDS(KD_ACCT_FIELD)       \
    KD_ACCT_FIELD(RUN, "run_ns")            \
    KD_ACCT_FIELD(READY, "ready_ns")        \
    KD_ACCT_FIELD(STOP, "stop_ns")          \
    KD_ACCT_FIELD(SLEEP, "sleep_ns")        \
    KD_ACCT_FIELD(HARDIRQ, "hardirq_ns")    \
    KD_ACCT_FIELD(SOFTIRQ, "softirq_ns")    \
    KD_ACCT_FIELD(KERNEL, "kernel_ns")      \
    KD_ACCT_FIELD(WAITS, "waits")           \
    KD_ACCT_FIELD(PREEMPTIONS, "preemptions") \
    KD_ACCT_FIELD(SLEEPS, "sleeps")

enum kd_acct_field {
#define KD_ACCT_ID(ID, NAME) KD_ACCT_##ID,
    KD_ACCT_FIELDS(KD_ACCT_ID)
#undef KD_ACCT_ID
    KD_N_ACCT
};

struct kd_acct {
    KD_U64 v[KD_N_ACCT];
};

/* Who held a CPU while threads of the target waited for it: per CPU, the
 * target threads registered as waiting in its run queue (map cpu_wait).
 * At every switch on a CPU with waiters, the task that leaves the CPU is
 * charged, to each waiter, for the time it ran since 'since' or since the
 * waiter's last charge, whichever is later. */
#define KD_CPU_WAITERS      8

struct kd_cpu_wait {
    KD_U64 cur;             /* The task on the CPU since its last switch
                             * (a task_struct pointer, 0: not seen). */
    KD_U64 since;           /* The last switch seen while there were
                             * waiters. */
    KD_U64 n;               /* Waiters registered: changed with the slots,
                             * atomically. */
    KD_U64 tids[KD_CPU_WAITERS];    /* 0: free.  64 bits for the atomic
                                     * operations of every eBPF target. */
};

/* Per thread: start times of the intervals in progress (map tstate).
 * sched_switch sets run_ts when the thread switches in and clears it when
 * it switches out, so a switch out without run_ts (once the thread
 * switched in or out in the sample: before that, it may have been running
 * when the sample started), or a switch in with run_ts, means a switch the
 * program did not see.  At each wake-up and switch out, exec_base and
 * pcount_base keep the thread's run time and timeslices as the kernel
 * counts them (schedstat's first and third fields), which tell whether a
 * switch in happened since without being seen, and when. */
struct kd_tstate {
    KD_U64 syscall_ts;
    KD_U64 poll_ts;
    KD_U64 run_ts;
    KD_U64 ready_ts;
    KD_U64 stop_ts;
    KD_U64 hardirq_ts;
    KD_U64 softirq_ts;
    KD_U32 softirq_vec;
    KD_U32 flags;           /* KD_TSTATE_*. */
    KD_U64 exec_base;       /* se.sum_exec_runtime and sched_info.pcount */
    KD_U64 pcount_base;     /* at the last wake-up or switch out seen
                             * (KD_TSTATE_BASE), and sched_info.run_delay */
    KD_U64 delay_base;      /* then. */
    char hardirq_name[KD_IRQ_NAME_LEN];

    /* Time accounting (struct kd_acct), where a report needs it. */
    KD_U64 sleep_ts;        /* Switched out asleep. */
    KD_U64 charged_ts;      /* Its run-queue wait is charged up to here. */
    KD_U32 wait_cpu;        /* 1 + the CPU it is registered as waiting
                             * on in cpu_wait, 0 when none. */
    KD_U32 wait_slot;       /* Its slot there. */
    KD_U64 softirq_hardirq; /* acct HARDIRQ when the soft IRQ began. */
    KD_U64 syscall_sleep;   /* acct SLEEP when the syscall began. */
    KD_U64 kernel_ts;       /* On a CPU inside a syscall since, or 0. */
    KD_U64 kernel_irq;      /* acct HARDIRQ + SOFTIRQ then. */
    KD_U32 syscall_nr;      /* The syscall entered at syscall_ts (long poll
                             * intervals only). */
    KD_U32 pad2;
    struct kd_acct acct;
};

struct kd_stat {
    KD_U64 count;
    KD_U64 total_ns;
    KD_U64 max_ns;
    KD_U64 min_ns;
};

/* Per thread: the statistics that have one entry per thread (tstats). */
struct kd_tstats {
    struct kd_stat poll;
    struct kd_stat run;
    struct kd_stat ready;
    struct kd_stat stop;
};

struct kd_syscall_key {
    KD_U32 tid;
    KD_U32 nr;
};

struct kd_hardirq_key {
    KD_U32 tid;
    char name[KD_IRQ_NAME_LEN];
};

struct kd_softirq_key {
    KD_U32 tid;
    KD_U32 vec;
};

struct kd_name {
    char comm[KD_COMM_LEN];
};

/* Who ran instead of a thread while it waited in the run queue, per
 * sample (map ran, --summary and --json): 'tid' waited while 'other' (a
 * thread of process 'pid', or 0 for an idle CPU) held the CPU. */
struct kd_ran_key {
    KD_U32 tid;
    KD_U32 other;
};

struct kd_ran {
    KD_U64 ns;
    KD_U64 count;           /* Charges: switches that ended its turn. */
    KD_U32 pid;
    KD_U32 pad;
    char comm[KD_COMM_LEN];
};

/* Long poll intervals (--long-poll-events): what happened between a
 * thread's return from poll() and its next call, kept per thread in its
 * tstate entry (struct kd_tstate_gap) and sent whole when the interval is
 * longer than the threshold (struct kd_gap_event).  The first
 * KD_GAP_SYSCALLS distinct syscalls and KD_GAP_RAN distinct tasks that ran
 * instead are kept by name; the others are summed. */
#define KD_GAP_SYSCALLS     8
#define KD_GAP_RAN          8

struct kd_gap_syscall {
    KD_U32 nr;
    KD_U32 count;
    KD_U64 total_ns;        /* From entry to exit. */
    KD_U64 blocked_ns;      /* Asleep in it. */
};

struct kd_gap_ran {
    KD_U32 tid;
    KD_U32 pid;
    KD_U64 ns;
    KD_U64 count;
    char comm[KD_COMM_LEN];
};

/* The stacks of an interval: the on-CPU profile (--profile-hz), the
 * thread's samples in it, and those whose stack or count found no room
 * (or no stack could be taken); where it slept (--off-cpu), its sleeps
 * that ended in it, and those whose stacks or count found no room.  The
 * counts themselves are in map profile_counts, one per (thread, interval,
 * kind, user stack, kernel stack[, waker, its stacks]); a stack id is -1
 * when there is no stack of that kind (no kernel stack, in user space; no
 * user stack of a waker of another process). */
struct kd_gap_profile {
    KD_U32 samples;
    KD_U32 lost_samples;
    KD_U32 sleeps;
    KD_U32 lost_sleeps;
};

/* What a count of profile_counts counts (kd_profile_key.kind). */
#define KD_COUNT_ON_CPU     0   /* Samples of the thread on a CPU. */
#define KD_COUNT_BLOCKED    1   /* Sleeps of the thread there, each until
                                 * it ran again, woken by the waker. */

struct kd_profile_key {
    KD_U32 tid;
    KD_S32 user_stack_id;
    KD_S32 kernel_stack_id;
    KD_U32 kind;            /* KD_COUNT_*. */
    KD_U64 start_ns;        /* The interval's start. */
    KD_U32 waker_tid;       /* The task that woke it, 0 if not seen. */
    KD_S32 waker_user_stack_id;
    KD_S32 waker_kernel_stack_id;
    KD_U32 woken;           /* 1 if its wake-up was seen (a waker's TID
                             * may be 0: an idle CPU's interrupt). */
};

struct kd_profile_value {
    KD_U64 count;           /* Samples, or sleeps. */
    KD_U64 sleep_ns;        /* Sleeps: asleep, until woken (or until it ran
                             * again, wake-up not seen), */
    KD_U64 ready_ns;        /* then in the run queue. */
    KD_U32 waker_pid;
    KD_U32 pad;
    char waker_comm[KD_COMM_LEN];
};

/* A sleep of a thread in an interval, until it runs again (--off-cpu). */
struct kd_gap_block {
    KD_U64 ts;              /* Switched out asleep, 0 when not asleep. */
    KD_U64 woken_ts;        /* Its wake-up, else 0. */
    KD_S32 user_stack_id;
    KD_S32 kernel_stack_id;
    KD_U32 waker_tid;
    KD_U32 waker_pid;
    KD_S32 waker_user_stack_id;
    KD_S32 waker_kernel_stack_id;
    KD_U32 waker_seen;      /* 1 if the wake-up was seen, the waker
                             * known; else its time was reconstructed
                             * (kd_unseen_wakeup()). */
    KD_U32 pad;
    char waker_comm[KD_COMM_LEN];
};

struct kd_gap_detail {
    KD_U32 n_syscalls;
    KD_U32 n_ran;
    struct kd_gap_syscall syscalls[KD_GAP_SYSCALLS];
    struct kd_gap_syscall other_syscalls;   /* 'nr': how many distinct. */
    struct kd_gap_ran ran[KD_GAP_RAN];
    KD_U64 other_ran_ns;    /* Tasks beyond KD_GAP_RAN. */
    KD_U64 other_ran_count;
    struct kd_gap_profile profile;
};

/* A thread's tstate entry in --long-poll-events mode. */
struct kd_tstate_gap {
    struct kd_tstate t;
    KD_U64 start_ns;        /* The interval's start (poll() return), 0
                             * outside one. */
    struct kd_acct base;    /* acct at its start. */
    struct kd_gap_detail detail;
    struct kd_gap_block block;
};

struct kd_hist_key {
    KD_U32 tid;
    KD_U32 what;        /* Syscall number, KD_HIST_READY or KD_HIST_RUN. */
    KD_U32 slot;        /* bpf_log2l() of the value: 0, or 1 + log2. */
    KD_U32 pad;
};

/* One ring buffer event. */
struct kd_event {
    KD_U64 ts;          /* Syscalls: the exit time. */
    KD_U32 tid;
    KD_U32 id;          /* enum kd_event_id. */
    KD_U64 entry_ts;    /* Syscalls: the entry time. */
    KD_U32 syscall;
    KD_S32 user_stack_id;   /* Negative: no stack (error or disabled). */
    KD_S32 kernel_stack_id;
    KD_U32 pad;
};

/* One long poll interval, as sent through the ring buffer. */
struct kd_gap_event {
    struct kd_event head;   /* ts: the end, id: KD_EVENT_LONG_POLL. */
    KD_U64 start_ns;
    KD_U32 pid;
    KD_U32 pad;
    char comm[KD_COMM_LEN];
    struct kd_acct acct;    /* During the interval. */
    struct kd_gap_detail detail;
    struct kd_gap_block pending;    /* In progress (never sent by the
                                     * program: 'ts' 0): the sleep it is
                                     * in, if any (--off-cpu). */
};

/*
 * The timeline of --trace-dir: per thread of the target, a ring of its
 * last --trace-history records (map trace_hist, in the order they were
 * written), what the scheduler, its syscalls and its interrupts did to it.
 * When a long poll interval is sent, its thread's ring follows it whole
 * (KD_EVENT_TRACE); one in progress is read from the map.
 */
enum kd_trace_kind {
    KD_TRACE_SWITCH_IN,         /* Got CPU 'cpu'.  'ustack', 'kstack': the
                                 * stacks of the sleep it ends (--off-cpu),
                                 * else -1. */
    KD_TRACE_SWITCH_OUT,        /* Left CPU 'cpu' in state 'arg'
                                 * (KD_TRACE_OUT_*); 'nr': 1 + the syscall
                                 * it is in, 0 for none. */
    KD_TRACE_WAKEUP,            /* Woken ('arg': from KD_TRACE_OUT_SLEEP or
                                 * KD_TRACE_OUT_STOPPED): waits in the run
                                 * queue of CPU 'cpu'. */
    KD_TRACE_WAKER,             /* Being woken, by thread 'arg' of process
                                 * 'pid' named 'comm', on CPU 'cpu'. */
    KD_TRACE_MIGRATE,           /* Waiting, moved to the run queue of CPU
                                 * 'cpu'. */
    KD_TRACE_SYS_ENTER,         /* Entered syscall 'nr'. */
    KD_TRACE_SYS_EXIT,          /* Left syscall 'nr'. */
    KD_TRACE_HARDIRQ,           /* A hard IRQ took its CPU 'cpu' for 'dur'
                                 * ns, up to 'ts'. */
    KD_TRACE_SOFTIRQ,           /* A soft IRQ, vector 'arg', likewise. */
    KD_TRACE_RAN,               /* While it waited, thread 'arg' of process
                                 * 'pid' named 'comm' held its CPU for 'dur'
                                 * ns, up to about 'ts' (pid 0xffffffff:
                                 * not known). */
    KD_TRACE_SAMPLE,            /* A profile sample on CPU 'cpu', of stacks
                                 * 'ustack' and 'kstack' (--profile-hz). */
    KD_TRACE_N_KINDS
};

/* A thread's state as it leaves its CPU (KD_TRACE_SWITCH_OUT). */
#define KD_TRACE_OUT_PREEMPTED  0   /* Still runnable: in the run queue. */
#define KD_TRACE_OUT_SLEEP      1
#define KD_TRACE_OUT_STOPPED    2

#define KD_TRACE_NOT_KNOWN      0xffffffff

struct kd_trace_rec {
    KD_U64 ts;
    KD_U64 dur;
    KD_U16 kind;                /* enum kd_trace_kind. */
    KD_U16 cpu;
    KD_U32 arg;
    KD_U32 pid;
    KD_U32 nr;
    KD_S32 ustack;
    KD_S32 kstack;
    char comm[KD_COMM_LEN];
};

/* The ring of a thread (map trace_hist) is 'written' then its records:
 * record i (from 0, as written) at i % the ring's size.  Sent with an
 * interval, it is preceded by this head. */
struct kd_trace_head {
    struct kd_event head;       /* id KD_EVENT_TRACE; ts and tid: those of
                                 * the interval it follows. */
    KD_U64 start_ns;            /* The interval's start. */
    KD_U64 written;             /* The ring's count when it was read. */
    KD_U32 size;                /* Records in the ring (a power of 2). */
    KD_U32 pad;
};

/*
 * User stacks unwound from the call frame information (CFI): the tables
 * user space builds from each mapping's .eh_frame (or .debug_frame), and
 * the stacks the program unwinds with them.
 *
 * A table row says how to find the caller's frame from one address on, up
 * to the next row: where the canonical frame address (CFA, the stack
 * pointer before the call) is, where the return address (RA) and the
 * caller's frame pointer (FP: x86_64's rbp, arm64's x29) were saved.
 * Rows are grouped by page (KD_UW_PAGE_SHIFT) of the file's addresses:
 * the page's entry in uw_pages gives its rows' place in uw_rows, whose
 * first row is at the page's start.  A mapping of the target, found in
 * uw_maps by address, gives its file's pages.
 */
#define KD_UW_DEPTH         127     /* Frames in a stack at most. */
#define KD_UW_PAGE_SHIFT    12
#define KD_UW_SHARD_SHIFT   16      /* Rows in a value of uw_rows: 2^16. */
#define KD_UW_SHARD_ROWS    (1 << KD_UW_SHARD_SHIFT)

/* Where the CFA is (kd_uw_row.cfa). */
#define KD_UW_CFA_NONE      0   /* No CFI here: follow the frame pointer. */
#define KD_UW_CFA_SP        1   /* At SP + cfa_off. */
#define KD_UW_CFA_FP        2   /* At FP + cfa_off. */
#define KD_UW_CFA_PLT       3   /* x86_64's PLT: SP + 8, + 8 more when
                                 * (pc & 15) >= cfa_off. */
#define KD_UW_CFA_SIGNAL    4   /* A signal trampoline: the interrupted
                                 * registers are in the signal frame. */
#define KD_UW_CFA_END       5   /* The outermost frame (RA undefined). */

/* Where the caller's FP is (kd_uw_row.regs, low 4 bits). */
#define KD_UW_FP_SAME       0   /* Unchanged. */
#define KD_UW_FP_AT         1   /* Saved at CFA + fp_off. */
#define KD_UW_FP_LOST       2   /* Not known: a CFA from it is cut. */
/* Where the RA is (kd_uw_row.regs, high 4 bits). */
#define KD_UW_RA_AT         0   /* Saved at CFA + ra_off. */
#define KD_UW_RA_LR         1   /* arm64: still in the link register. */

/* One row: from the page's start + 'off' on. */
struct kd_uw_row {
    KD_U16 off;
    KD_U8 cfa;
    KD_U8 regs;
    KD_S32 cfa_off;
    KD_S16 fp_off;
    KD_S16 ra_off;
};

/* A page's rows: 'count' rows from row 'first' of uw_rows (its shard,
 * first >> KD_UW_SHARD_SHIFT, holds them all); none: no CFI there. */
struct kd_uw_page {
    KD_U32 first;
    KD_U32 count;
};

/* uw_maps' key: an address, big-endian, as an LPM trie compares. */
struct kd_uw_map_key {
    KD_U32 prefixlen;
    KD_U8 addr[8];
};

/* A mapping of the target, [start, end): an address 'a' in it is address
 * a - bias of its file, whose pages from page_lo on are entries page_base
 * on of uw_pages; none (n_pages 0): frame pointers only. */
struct kd_uw_map {
    KD_U64 start;
    KD_U64 end;
    KD_U64 bias;
    KD_U32 page_base;
    KD_U32 page_lo;
    KD_U32 n_pages;
    KD_U32 pad;
};


/* How a walk ended (kd_ustack.end): whole, or cut short, and why, as a
 * JSON key and as a text. */
#define KD_UW_ENDS(KD_UW_END)                                           \
    KD_UW_END(WHOLE, "whole", "whole")                                  \
    KD_UW_END(DEPTH, "depth", "deeper than 127 frames")                 \
    KD_UW_END(READ, "unreadable", "stack not readable")                 \
    KD_UW_END(NO_MAP, "no_mapping", "address in no known mapping")      \
    KD_UW_END(BAD_FRAME, "bad_frame", "frame outside the stack")        \
    KD_UW_END(NO_CFI, "no_cfi", "no CFI and no frame pointer")          \
    KD_UW_END(NO_REGS, "no_registers", "no user registers")

enum kd_uw_end {
#define KD_UW_END_ID(ID, KEY, TEXT) KD_UW_END_##ID,
    KD_UW_ENDS(KD_UW_END_ID)
#undef KD_UW_END_ID
    KD_UW_N_ENDS
};

/* A user stack of user_stacks (or event_user_stacks): its key is the
 * low 31 bits of 'hash'. */
struct kd_ustack {
    KD_U64 hash;
    KD_U32 len;             /* Frames in pcs. */
    KD_U32 end;             /* enum kd_uw_end. */
    KD_U64 pcs[KD_UW_DEPTH + 1];
};

#endif /* kd_abi.h */
