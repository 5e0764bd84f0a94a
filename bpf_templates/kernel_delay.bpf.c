/*
 * kernel_delay eBPF program template.
 *
 * This text is embedded in the kernel_delay binary and completed at run
 * time: every placeholder (an upper-case name between two at signs) is
 * replaced (see src/template.c) before
 * libbcc compiles it.  kernel_delay refuses to compile a text in which a
 * placeholder is left.
 *
 * No kernel header is included for struct layouts: the offsets of the
 * task_struct, irqaction and pt_regs fields read here come from the running
 * kernel's BTF and are substituted as plain numbers.  So no code here may
 * use a kernel struct's members, nor a macro that does (PT_REGS_RC() and
 * the like): without headers, those structs are only declared.
 *
 * Every hook is a raw tracepoint.  Each one first checks, as cheaply as
 * possible, whether the event concerns the target process, so that the
 * cost added to the rest of the host stays minimal.
 *
 * Time intervals are only counted when they both start and end while
 * capture is on, as the reference does.
 *
 * Switches shape the program: each is a KD_WITH_* macro, 1 or 0, set
 * once below from its placeholder and tested only as "#if KD_WITH_*".
 * KD_WITH_STATS, the per-sample statistics of the reference's report
 * (every mode but --long-poll-events); KD_WITH_ACCT, each thread's running
 * time accounts (struct kd_acct) and who ran instead of it while it waited
 * (--summary, --json, --long-poll-events); KD_WITH_GAPS, the long poll
 * intervals (--long-poll-events); KD_WITH_HISTOGRAMS (--histogram);
 * KD_WITH_EVENTS, the ring buffer, and KD_WITH_SYSCALL_EVENTS and
 * KD_WITH_STACKS, what goes through it (-s, --stack-trace-size);
 * KD_WITH_START_TRIGGER and KD_WITH_STOP_TRIGGER (--start-trigger,
 * --stop-trigger); KD_WITH_UPCALL_STATS (unless --skip-upcall-stats, when
 * the kernel can trace ovs_dp_upcall()); KD_WITH_PROFILE, the on-CPU
 * profile of long poll intervals (--profile-hz, with KD_WITH_GAPS only);
 * KD_WITH_BLOCKED, where their threads slept and who woke them (--off-cpu,
 * likewise); KD_WITH_UNWIND, user stacks unwound from the call frame
 * information rather than through frame pointers (unless
 * --frame-pointers); KD_WITH_TRACE, each thread's last records of what
 * happened to it, sent with its long poll intervals (--trace-dir, with
 * KD_WITH_GAPS only).  Every other placeholder is a
 * value, also set once below: the body has none.
 */
@INCLUDES@

/* The interface with user space: bpf_templates/kd_abi.h. */
#define KD_ABI_EBPF 1
@ABI@

#define KD_TGID             @TGID@
#define KD_OFF_TASK_PID     @OFF_TASK_PID@
#define KD_OFF_TASK_TGID    @OFF_TASK_TGID@
#define KD_OFF_TASK_STATE   @OFF_TASK_STATE@
#define KD_SIZE_TASK_STATE  @SIZE_TASK_STATE@
#define KD_OFF_IRQ_NAME     @OFF_IRQACTION_NAME@
#define KD_OFF_SYSCALL_NR   @OFF_PT_REGS_SYSCALL_NR@
#define KD_SIZE_SYSCALL_NR  @SIZE_PT_REGS_SYSCALL_NR@
#define KD_OFF_REGS_RC      @OFF_PT_REGS_RC@
#define KD_SYSCALL_POLL     @SYSCALL_POLL@
#define KD_MAX_THREADS      @MAX_THREADS@
#define KD_MAX_SYSCALLS     @MAX_SYSCALL_ENTRIES@
#define KD_MAX_IRQS         @MAX_IRQ_ENTRIES@
#define KD_OFF_TASK_CPU     @OFF_TASK_CPU@
#define KD_OFF_TASK_COMM    @OFF_TASK_COMM@
#define KD_OFF_TASK_SUM_EXEC @OFF_TASK_SUM_EXEC@
#define KD_OFF_TASK_PCOUNT  @OFF_TASK_PCOUNT@
#define KD_OFF_TASK_RUN_DELAY @OFF_TASK_RUN_DELAY@
#define KD_MAX_CPUS         @MAX_CPUS@
#define KD_MAX_RAN          @MAX_RAN_ENTRIES@
#define KD_LONG_POLL_MIN_NS @LONG_POLL_MIN_NS@
#define KD_MAX_HISTS        @MAX_HIST_ENTRIES@
#define KD_BUFFER_PAGES     @BUFFER_PAGE_COUNT@
#define KD_STACK_TRACES     @STACK_TRACE_SIZE@
#define KD_RB_WAKEUP_EVENTS @RB_WAKEUP_EVENTS@
#define KD_EVENTS_MIN_NS    @SYSCALL_EVENTS_MIN_NS@
#define KD_SKIP_POLL_EVENTS @SKIP_POLL_EVENTS@
#define KD_PROFILE_STACKS   @PROFILE_STACKS@
/* Stack maps' ids are below their size rounded up to a power of two. */
#define KD_STACK_TRACES_IDS @STACK_TRACE_IDS@
#define KD_PROFILE_STACKS_IDS @PROFILE_STACK_IDS@
#define KD_UW_PAGES         @UW_PAGES@
#define KD_UW_SHARDS        @UW_SHARDS@
#define KD_UW_MAPS          @UW_MAPS@
#define KD_UW_ARM64         @UW_ARM64@
#define KD_OFF_REGS_PC      @OFF_PT_REGS_PC@
#define KD_OFF_REGS_SP      @OFF_PT_REGS_SP@
#define KD_OFF_REGS_FP      @OFF_PT_REGS_FP@
#define KD_OFF_REGS_LR      @OFF_PT_REGS_LR@
#define KD_TRACE_SIZE       @TRACE_HISTORY@

#define KD_WITH_STATS           @WITH_STATS@
#define KD_WITH_ACCT            @WITH_ACCT@
#define KD_WITH_GAPS            @WITH_GAPS@
#define KD_WITH_HISTOGRAMS      @WITH_HISTOGRAMS@
#define KD_WITH_EVENTS          @WITH_EVENTS@
#define KD_WITH_SYSCALL_EVENTS  @WITH_SYSCALL_EVENTS@
#define KD_WITH_STACKS          @WITH_STACKS@
#define KD_WITH_START_TRIGGER   @WITH_START_TRIGGER@
#define KD_WITH_STOP_TRIGGER    @WITH_STOP_TRIGGER@
#define KD_WITH_UPCALL_STATS    @WITH_UPCALL_STATS@
#define KD_WITH_PROFILE         @WITH_PROFILE@
#define KD_WITH_BLOCKED         @WITH_BLOCKED@
#define KD_WITH_UNWIND          @WITH_UNWIND@
#define KD_WITH_TRACE           @WITH_TRACE@

/* Scheduler and interrupt constants; part of the kernel's stable ABI. */
#define KD_TASK_RUNNING     0x0000
#define KD_TASK_STOPPED     0x0004
#define KD_IRQ_NONE         0

BPF_ARRAY(capture_on, u64, 1);
BPF_PERCPU_ARRAY(map_full, u64, KD_N_FULL_MAPS);
BPF_PERCPU_ARRAY(counters, u64, KD_N_COUNTERS);

/* A thread's entry in tstate: with its long poll interval in
 * --long-poll-events mode (and its sleep, with --off-cpu).  New entries are copied from tstate_zero: the
 * larger one does not fit on the eBPF stack. */
#if KD_WITH_GAPS || KD_WITH_BLOCKED
#define KD_TSTATE_VALUE struct kd_tstate_gap
#else
#define KD_TSTATE_VALUE struct kd_tstate
#endif
BPF_HASH(tstate, u32, KD_TSTATE_VALUE, KD_MAX_THREADS);
BPF_ARRAY(tstate_zero, KD_TSTATE_VALUE, 1);

#if KD_WITH_STATS
BPF_HASH(tstats, u32, struct kd_tstats, KD_MAX_THREADS);
BPF_HASH(syscalls, struct kd_syscall_key, struct kd_stat, KD_MAX_SYSCALLS);
BPF_HASH(hardirqs, struct kd_hardirq_key, struct kd_stat, KD_MAX_IRQS);
BPF_HASH(softirqs, struct kd_softirq_key, struct kd_stat, KD_MAX_IRQS);
BPF_HASH(names, u32, struct kd_name, KD_MAX_THREADS);
#endif
#if KD_WITH_HISTOGRAMS
BPF_HASH(hists, struct kd_hist_key, u64, KD_MAX_HISTS);
#endif
#if KD_WITH_ACCT
BPF_ARRAY(cpu_wait, struct kd_cpu_wait, KD_MAX_CPUS);
#endif
#if KD_WITH_ACCT && !KD_WITH_GAPS
BPF_HASH(ran, struct kd_ran_key, struct kd_ran, KD_MAX_RAN);
#endif

#if KD_WITH_EVENTS
BPF_RINGBUF_OUTPUT(events, KD_BUFFER_PAGES);

static __always_inline struct kd_event *
kd_event_reserve(u32 id, u64 now)
{
    struct kd_event *event = events.ringbuf_reserve(sizeof *event);

    if (!event) {
        counters.increment(KD_COUNTER_EVENTS_DROPPED);
        return NULL;
    }
    event->ts = now;
    event->tid = (u32) bpf_get_current_pid_tgid();
    event->id = id;
    event->entry_ts = 0;
    event->syscall = 0;
    event->user_stack_id = -1;
    event->kernel_stack_id = -1;
    event->pad = 0;
    return event;
}
#endif

/*
 * User stacks unwound from the call frame information (KD_WITH_UNWIND;
 * the tables are described in kd_abi.h).  A program that wants the
 * current task's user stack begins a walk (kd_uw_begin(): the task's user
 * registers, and what the stack is for, into a slot of uw_state) and, as
 * its last step, tail-calls the unwinder of its kind of program
 * (KD_UW_DISPATCH).  The unwinder follows KD_UW_FRAMES frames and
 * tail-calls itself for the next ones, up to KD_UW_DEPTH frames; then it
 * keeps the stack in a map of stacks and finishes the work the program
 * left (kd_uw_done(), at the end of this text).  Tail calls keep each
 * program small for the verifier, which walks every frame of a bounded
 * loop.  The slots of a CPU are a stack: a program that begins a walk may
 * be interrupted by another that begins and ends one of its own, before
 * it comes back to its own, which is then on top again.
 */
#if KD_WITH_UNWIND
#define KD_UW_FOR_PROFILE   0   /* kd_profile(): a sample's count. */
#define KD_UW_FOR_SYSCALL   1   /* sys_exit: a syscall event (-s). */
#define KD_UW_FOR_SLEEP     2   /* sched_switch: a sleep begins. */
#define KD_UW_FOR_WAKER     3   /* sched_waking: its waker. */
#define KD_UW_SLOTS         4   /* Walks a CPU can have begun at once. */
#define KD_UW_FRAMES        8   /* Frames per program run. */
#define KD_UW_CALLS         ((KD_UW_DEPTH + KD_UW_FRAMES - 1) / KD_UW_FRAMES)
#define KD_UW_BISECT        13  /* Steps: 2^13 > the rows of a page. */

/* A value of uw_rows, KD_UW_SHARD_ROWS rows, as bytes (libbcc takes
 * seconds to describe an array of many structs). */
struct kd_uw_shard {
    u8 raw[KD_UW_SHARD_ROWS * sizeof(struct kd_uw_row)];
};

#define KD_UW_LOG           64  /* Reads a walk may log (for the cache). */

/* A walk of one kind (KD_UW_FOR_*), under way or the last one, and what
 * its stack is for.  The last walk is a cache: a walk of the same kind
 * from the same registers, in the same tables, whose every read of the
 * stack gives what the last one read, is the same walk (the unwinder is
 * a function of those), and takes its stack without the tables.  A
 * thread that makes the same call again and again (-s on a busy loop), or
 * sleeps in the same place, walks its stack once. */
struct kd_uw_state {
    u64 pc, sp, fp, lr;     /* The registers of the frame at pc. */
    u64 pc0, sp0, fp0, lr0; /* Those the walk began with, */
    u64 gen;                /* in the tables of this uw_maps_at. */
    u64 cpc, csp, cfp, clr; /* Those of the last walk, */
    u64 cgen;               /* its tables, */
    u32 cached;             /* 1 if it is a cache (it read no more than
                             * KD_UW_LOG, all of them readable). */
    u32 nreads;             /* What it read: 'nreads' addresses and */
    u64 raddr[KD_UW_LOG];   /* values. */
    u64 rval[KD_UW_LOG];
    u32 exact;              /* pc is where the frame is, not a return
                             * address (the first frame, or after a
                             * signal frame). */
    u32 calls;              /* Tail calls made. */
    u32 tid;                /* Whose sleep it is (SLEEP, WAKER). */
    struct kd_uw_map map;   /* The last mapping found (most callers are in
                             * the same file), end 0 for none. */
    struct kd_profile_key key;  /* PROFILE: the count to add. */
    struct kd_event event;      /* SYSCALL: the event to send. */
    struct kd_ustack stack;
};

/* The kinds of the walks a CPU has begun and not ended, innermost
 * last. */
struct kd_uw_stack {
    u32 depth;
    u32 kinds[KD_UW_SLOTS];
};

/* The target's mappings, by address; uw_maps_at counts their changes (a
 * walk in other tables is no cache). */
BPF_LPM_TRIE(uw_maps, struct kd_uw_map_key, struct kd_uw_map, KD_UW_MAPS);
BPF_ARRAY(uw_maps_at, u64, 1);
BPF_ARRAY(uw_pages, struct kd_uw_page, KD_UW_PAGES);
BPF_ARRAY(uw_rows, struct kd_uw_shard, KD_UW_SHARDS);
/* One walk per kind: a kind's programs never nest with one another. */
BPF_PERCPU_ARRAY(uw_state, struct kd_uw_state, KD_UW_SLOTS);
BPF_PERCPU_ARRAY(uw_stack, struct kd_uw_stack, 1);
/* How many walks ended each way (enum kd_uw_end). */
BPF_PERCPU_ARRAY(uw_ends, u64, KD_UW_N_ENDS);
/* The unwinders: that of raw tracepoint programs and, as a perf event
 * program can only tail-call its own kind, kd_profile()'s. */
BPF_PROG_ARRAY(uw_progs, 1);
#if KD_WITH_PROFILE
BPF_PROG_ARRAY(uw_perf_progs, 1);
#endif

/* A user register of 'regs' (kernel memory), at offset 'off'. */
static __always_inline u64
kd_uw_reg(void *regs, long off)
{
    u64 v = 0;

    bpf_probe_read_kernel(&v, sizeof v, (char *) regs + off);
    return v;
}

/* How many walks this CPU has begun and not ended. */
static __always_inline u32
kd_uw_depth(void)
{
    int zero = 0;
    struct kd_uw_stack *st = uw_stack.lookup(&zero);

    return st ? st->depth : 0;
}

/* The walk this CPU began last and has not ended, or NULL; its kind into
 * '*kind'. */
static __always_inline struct kd_uw_state *
kd_uw_current(u32 *kind)
{
    int zero = 0;
    struct kd_uw_stack *st = uw_stack.lookup(&zero);

    if (!st || !st->depth) {
        return NULL;
    }
    *kind = st->kinds[(st->depth - 1) & (KD_UW_SLOTS - 1)];
    return uw_state.lookup(kind);
}

/* Begins a walk of the current task's user stack, for 'kind', on top of
 * this CPU's: from the registers the task left user space with, unless
 * 'regs_set' (the caller sets pc, sp, fp and lr).  Returns the state, for
 * the caller to say more of what the stack is for, or NULL (no stack: its
 * id stays -1).  The depth is taken first, so that a program that
 * interrupts this one has the next. */
static __always_inline struct kd_uw_state *
kd_uw_start(u32 kind, bool regs_set)
{
    int zero = 0;
    struct kd_uw_stack *st = uw_stack.lookup(&zero);
    u64 *at = uw_maps_at.lookup(&zero);
    struct kd_uw_state *s = uw_state.lookup(&kind);
    u32 depth;
    void *regs;

    if (!st || !at || !s || st->depth >= KD_UW_SLOTS) {
        uw_ends.increment(KD_UW_END_NO_REGS);
        return NULL;
    }
    depth = st->depth;
    st->depth = depth + 1;
    st->kinds[depth & (KD_UW_SLOTS - 1)] = kind;
    if (!regs_set) {
        regs = (void *) bpf_task_pt_regs(bpf_get_current_task_btf());
        s->pc = kd_uw_reg(regs, KD_OFF_REGS_PC);
        s->sp = kd_uw_reg(regs, KD_OFF_REGS_SP);
        s->fp = kd_uw_reg(regs, KD_OFF_REGS_FP);
        s->lr = KD_UW_ARM64 ? kd_uw_reg(regs, KD_OFF_REGS_LR) : 0;
    }
    s->calls = 0;
    s->gen = *at;
    return s;
}

/* kd_uw_start() from the registers the task left user space with. */
static __always_inline struct kd_uw_state *
kd_uw_begin(u32 kind)
{
    return kd_uw_start(kind, false);
}

static __always_inline void kd_uw_failed(void);
#endif

#if KD_WITH_SYSCALL_EVENTS
#if KD_WITH_STACKS
BPF_STACK_TRACE(stack_traces, KD_STACK_TRACES);
#if KD_WITH_UNWIND
BPF_HASH(user_stack_traces, u32, struct kd_ustack, KD_STACK_TRACES_IDS);
#endif
#endif

/* Syscall events wake the reader up once every KD_RB_WAKEUP_EVENTS per
 * CPU, not for each event: flags 0 wakes it whenever it has caught up, so
 * a fast reader costs the traced thread an irq_work, and itself a context
 * switch, per syscall.  The rest it finds at its periodic wake-up (every
 * 100 ms at most) or when the sample ends; user space sizes the interval
 * so that the CPUs' pending events fill at most a quarter of the buffer. */
BPF_PERCPU_ARRAY(rb_pending, u64, 1);

static __always_inline u64
kd_rb_wakeup_flags(void)
{
    int zero = 0;
    u64 *pending = rb_pending.lookup(&zero);

    if (!pending || ++*pending >= KD_RB_WAKEUP_EVENTS) {
        if (pending) {
            *pending = 0;
        }
        return BPF_RB_FORCE_WAKEUP;
    }
    return BPF_RB_NO_WAKEUP;
}

/* Sends one syscall to user space, if it is one the user asked for. */
static __always_inline void
kd_syscall_event(struct bpf_raw_tracepoint_args *ctx, u64 nr, u64 entry_ts,
                 u64 now)
{
    struct kd_event *event;

    u64 min_ns = KD_EVENTS_MIN_NS;

    /* As the reference: "-s N" keeps syscalls longer than N ns, "-s"
     * keeps them all. */
    if ((min_ns && now - entry_ts <= min_ns)
        || (KD_SKIP_POLL_EVENTS && nr == KD_SYSCALL_POLL)) {
        return;
    }
#if KD_WITH_STACKS && KD_WITH_UNWIND
    /* Sent once its user stack is unwound (kd_uw_done()): a reservation
     * cannot live through the tail calls. */
    struct kd_uw_state *s = kd_uw_begin(KD_UW_FOR_SYSCALL);

    if (s) {
        struct kd_event *e = &s->event;

        e->ts = now;
        e->tid = (u32) bpf_get_current_pid_tgid();
        e->id = KD_EVENT_SYSCALL;
        e->entry_ts = entry_ts;
        e->syscall = nr;
        e->user_stack_id = -1;
        e->kernel_stack_id = stack_traces.get_stackid(ctx, 0);
        e->pad = 0;
        return;
    }
#endif
    event = kd_event_reserve(KD_EVENT_SYSCALL, now);
    if (!event) {
        return;
    }
    event->entry_ts = entry_ts;
    event->syscall = nr;
#if KD_WITH_STACKS
#if !KD_WITH_UNWIND
    event->user_stack_id = stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
#endif
    event->kernel_stack_id = stack_traces.get_stackid(ctx, 0);
#endif
    events.ringbuf_submit(event, kd_rb_wakeup_flags());
}
#endif

static __always_inline bool
kd_capturing(void)
{
    int key = 0;
    u64 *on = capture_on.lookup(&key);

    return on && *on == KD_CAPTURE_ON;
}

/* True when the current task belongs to the target and capture is on.
 * Returns the thread id through 'tid'. */
static __always_inline bool
kd_current_captured(u32 *tid)
{
    u64 pid_tgid = bpf_get_current_pid_tgid();

    if ((pid_tgid >> 32) != KD_TGID) {
        return false;
    }
    *tid = (u32) pid_tgid;
    return kd_capturing();
}

static __always_inline void
kd_map_full(int map)
{
    map_full.increment(map);
}

/* The entry of thread 'tid', created if need be. */
static __always_inline struct kd_tstate *
kd_tstate_get(u32 tid)
{
    KD_TSTATE_VALUE *st = tstate.lookup(&tid);
    KD_TSTATE_VALUE *zero;
    int key = 0;

    if (st) {
        return (struct kd_tstate *) st;
    }
    zero = tstate_zero.lookup(&key);
    if (zero) {
        tstate.insert(&tid, zero);
    }
    st = tstate.lookup(&tid);
    if (!st) {
        kd_map_full(KD_MAP_TSTATE);
    }
    return (struct kd_tstate *) st;
}

/* The entry of thread 'tid', if it has one. */
static __always_inline struct kd_tstate *
kd_tstate_find(u32 tid)
{
    return (struct kd_tstate *) tstate.lookup(&tid);
}

#if KD_WITH_STATS
static __always_inline struct kd_tstats *
kd_tstats_get(u32 tid)
{
    struct kd_tstats zero = {};
    struct kd_tstats *st = tstats.lookup_or_try_init(&tid, &zero);

    if (!st) {
        kd_map_full(KD_MAP_TSTATS);
    }
    return st;
}
#endif

static __always_inline void
kd_stat_add(struct kd_stat *stat, u64 delta)
{
    stat->count++;
    stat->total_ns += delta;
    if (delta > stat->max_ns) {
        stat->max_ns = delta;
    }
    if (stat->min_ns == 0 || delta < stat->min_ns) {
        stat->min_ns = delta;
    }
}

/* Counts 'delta' in the log2 histogram of 'what' for thread 'tid'. */
static __always_inline void
kd_hist_add(u32 tid, u32 what, u64 delta)
{
#if KD_WITH_HISTOGRAMS
    struct kd_hist_key key = { .tid = tid, .what = what,
                               .slot = bpf_log2l(delta) };
    u64 zero = 0;
    u64 *count = hists.lookup_or_try_init(&key, &zero);

    if (count) {
        __sync_fetch_and_add(count, 1);
    } else {
        kd_map_full(KD_MAP_HISTS);
    }
#endif
}

static __always_inline u32
kd_task_u32(void *task, int offset)
{
    u32 val = 0;

    bpf_probe_read_kernel(&val, sizeof val, task + offset);
    return val;
}

static __always_inline u64
kd_task_u64(void *task, int offset)
{
    u64 val = 0;

    bpf_probe_read_kernel(&val, sizeof val, task + offset);
    return val;
}

/* Keeps in 'st' the run time and timeslices the kernel counts for thread
 * 'task' now (see kd_unseen_arrival()). */
static __always_inline void
kd_base_take(struct kd_tstate *st, void *task)
{
    st->exec_base = kd_task_u64(task, KD_OFF_TASK_SUM_EXEC);
    if ((long) KD_OFF_TASK_PCOUNT >= 0) {
        st->pcount_base = kd_task_u64(task, KD_OFF_TASK_PCOUNT);
    }
    if ((long) KD_OFF_TASK_RUN_DELAY >= 0) {
        st->delay_base = kd_task_u64(task, KD_OFF_TASK_RUN_DELAY);
    }
    st->flags |= KD_TSTATE_BASE;
}

static __always_inline u64
kd_task_state(void *task)
{
    u64 state = 0;

    bpf_probe_read_kernel(&state, KD_SIZE_TASK_STATE,
                          task + KD_OFF_TASK_STATE);
    return state;
}

/*
 * The timeline of --trace-dir (KD_WITH_TRACE; kd_abi.h): each thread of
 * the target keeps its last KD_TRACE_SIZE records (a power of 2) in
 * trace_hist, whose entries, of some kilobytes, are only allocated for
 * the threads there are (BPF_F_NO_PREALLOC).  A thread's records are made
 * on the CPU it runs on, but for those of its waits and wake-ups, made
 * while it does not run: the ring's count is taken atomically.
 */
#if KD_WITH_TRACE
/* The records as bytes: libbcc makes a reader and a writer of each map's
 * values, field by field and element by element, which for 4096 records
 * took it 6 s to compile. */
struct kd_trace_ring {
    u64 written;
    u8 recs[KD_TRACE_SIZE * sizeof(struct kd_trace_rec)];
};

struct kd_trace_snap {
    struct kd_trace_head h;
    struct kd_trace_rec recs[KD_TRACE_SIZE];
};

BPF_F_TABLE("hash", u32, struct kd_trace_ring, trace_hist, KD_MAX_THREADS,
            BPF_F_NO_PREALLOC);
BPF_ARRAY(trace_zero, struct kd_trace_ring, 1);

/* A new record of 'kind' at 'ts' on this CPU in the ring of thread 'tid'
 * (made if need be), its other fields 0 and its stacks -1; NULL if there
 * is no room for the thread's ring. */
static __always_inline struct kd_trace_rec *
kd_trace_rec(u32 tid, u32 kind, u64 ts)
{
    struct kd_trace_ring *r = trace_hist.lookup(&tid);
    struct kd_trace_rec *rec;
    int zero = 0;
    u64 i;

    if (!r) {
        struct kd_trace_ring *z = trace_zero.lookup(&zero);

        if (z) {
            trace_hist.insert(&tid, z);
        }
        r = trace_hist.lookup(&tid);
        if (!r) {
            return NULL;
        }
    }
    i = __sync_fetch_and_add(&r->written, 1);
    rec = (struct kd_trace_rec *) r->recs + (i & (KD_TRACE_SIZE - 1));
    rec->ts = ts;
    rec->dur = 0;
    rec->kind = kind;
    rec->cpu = bpf_get_smp_processor_id();
    rec->arg = 0;
    rec->pid = 0;
    rec->nr = 0;
    rec->ustack = -1;
    rec->kstack = -1;
    __builtin_memset(rec->comm, 0, sizeof rec->comm);
    return rec;
}

/* A record of 'kind' with 'nr' and 'arg'. */
static __always_inline void
kd_trace(u32 tid, u32 kind, u64 ts, u32 nr, u32 arg)
{
    struct kd_trace_rec *rec = kd_trace_rec(tid, kind, ts);

    if (rec) {
        rec->nr = nr;
        rec->arg = arg;
    }
}
#endif

/*
 * Time accounting and who ran instead (KD_WITH_ACCT).
 *
 * A thread of the target that waits in a CPU's run queue is registered in
 * that CPU's cpu_wait entry.  Every context switch on a CPU with waiters
 * charges the task leaving the CPU (the current task, which held it) to
 * each waiter, for the time since the later of the CPU's last charge and
 * the waiter's own: so a waiter's charges add up to its wait, from its
 * registration to its switch in.  A waiter that moves to another CPU
 * (sched_migrate_task) is charged up to the move and registered there.
 */
#if KD_WITH_ACCT
/* The task that held a CPU, as charged to a waiter: the current task (with
 * 'task' NULL), another one (by its task_struct), or none known ('known'
 * false). */
struct kd_holder {
    bool known;
    u32 tid;
    u32 pid;
    void *task;
};

static __always_inline struct kd_holder
kd_holder_current(void)
{
    u64 pid_tgid = bpf_get_current_pid_tgid();
    struct kd_holder h = {
        .known = true,
        .tid = (u32) pid_tgid,
        .pid = pid_tgid >> 32,
        .task = NULL,
    };

    return h;
}

static __always_inline struct kd_holder
kd_holder_task(void *task)
{
    struct kd_holder h = { .known = task != NULL, .task = task };

    if (task) {
        h.tid = kd_task_u32(task, KD_OFF_TASK_PID);
        h.pid = kd_task_u32(task, KD_OFF_TASK_TGID);
    }
    return h;
}

/* The holder's name, into 'comm' (KD_COMM_LEN bytes). */
static __always_inline void
kd_holder_comm(const struct kd_holder *h, char *comm)
{
    if (!h->task) {
        bpf_get_current_comm(comm, KD_COMM_LEN);
    } else {
        bpf_probe_read_kernel_str(comm, KD_COMM_LEN,
                                  h->task + KD_OFF_TASK_COMM);
    }
}

#if KD_WITH_GAPS
/* Records, in the interval thread 'st' is in, that holder 'h' held the CPU
 * for 'ns' while it waited.  Once KD_GAP_RAN tasks are kept, a charge
 * larger than the smallest one kept takes its slot, and the smallest goes
 * to the others: a task that takes the CPU in large turns is kept, however
 * many small ones came first. */
static __always_inline void
kd_charge(u32 tid, struct kd_tstate *st, u64 ns, const struct kd_holder *h)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    struct kd_gap_detail *d = &g->detail;
    u32 n = d->n_ran, min = 0;

#if KD_WITH_TRACE
    /* Up to the caller's 'now', a little before this one. */
    struct kd_trace_rec *rec = kd_trace_rec(tid, KD_TRACE_RAN,
                                            bpf_ktime_get_ns());

    if (rec) {
        rec->dur = ns;
        rec->arg = h->known ? h->tid : 0;
        rec->pid = h->known ? h->pid : KD_TRACE_NOT_KNOWN;
        if (h->known) {
            kd_holder_comm(h, rec->comm);
        }
    }
#endif
    if (!g->start_ns) {
        return;
    }
    if (h->known) {
#pragma unroll
        for (int i = 0; i < KD_GAP_RAN; i++) {
            if (i < n && d->ran[i].tid == h->tid) {
                d->ran[i].ns += ns;
                d->ran[i].count++;
                return;
            }
        }
        if (n >= KD_GAP_RAN) {
#pragma unroll
            for (int i = 1; i < KD_GAP_RAN; i++) {
                if (d->ran[i].ns < d->ran[min].ns) {
                    min = i;
                }
            }
            if (min < KD_GAP_RAN && ns > d->ran[min].ns) {
                d->other_ran_ns += d->ran[min].ns;
                d->other_ran_count += d->ran[min].count;
                n = min;
            }
        } else {
            d->n_ran = n + 1;
        }
        /* Slot n at a constant index, as in kd_gap_syscall(). */
        struct kd_gap_ran *r = NULL;

#pragma unroll
        for (int i = 0; i < KD_GAP_RAN; i++) {
            if (i == n) {
                r = &d->ran[i];
            }
        }
        if (r) {
            r->tid = h->tid;
            r->pid = h->pid;
            r->ns = ns;
            r->count = 1;
            kd_holder_comm(h, r->comm);
            return;
        }
    }
    d->other_ran_ns += ns;
    d->other_ran_count++;
}
#else
/* Counts, in the sample, that holder 'h' held the CPU for 'ns' while
 * thread 'tid' waited. */
static __always_inline void
kd_charge(u32 tid, struct kd_tstate *st, u64 ns, const struct kd_holder *h)
{
    struct kd_ran_key key = {
        .tid = tid,
        .other = h->known ? h->tid : 0xffffffff,
    };
    struct kd_ran *r = ran.lookup(&key);

    if (!r) {
        struct kd_ran zero = {};

        if (h->known) {
            zero.pid = h->pid;
            kd_holder_comm(h, zero.comm);
        }
        ran.insert(&key, &zero);
        r = ran.lookup(&key);
        if (!r) {
            kd_map_full(KD_MAP_RAN);
            return;
        }
    }
    r->ns += ns;
    r->count++;
}
#endif

/* Frees slot 'i' of CPU waiters 'cw' if thread 'tid' holds it.  The count
 * of waiters changes only with a slot, atomically, and is never recounted:
 * a recount written back could lose a registration made on another CPU
 * meanwhile (a wake-up or a move to this CPU), and with it the charges of
 * the switches that follow, so that the next charge would give the task
 * then on the CPU the time of those before it. */
static __always_inline void
kd_wait_free(struct kd_cpu_wait *cw, u32 i, u32 tid)
{
    if (__sync_val_compare_and_swap(&cw->tids[i], tid, 0) == tid) {
        __sync_fetch_and_add(&cw->n, (u64) -1);
    }
}

/* Charges task 'h', which leaves CPU 'cpu' at 'now', to each thread
 * waiting there; forgets the registrations that are stale.  A waiter that
 * is 'h' itself (the current task) ran without its switch in being seen:
 * it is not charged for itself, and its wait is over. */
static __always_inline void
kd_charge_waiters(u32 cpu, struct kd_cpu_wait *cw, u64 now,
                  const struct kd_holder *h)
{
    u32 holder = h->tid;

#pragma unroll
    for (int i = 0; i < KD_CPU_WAITERS; i++) {
        u32 tid = (u32) cw->tids[i];
        struct kd_tstate *st;
        u64 from;

        if (!tid) {
            continue;
        }
        st = kd_tstate_find(tid);
        if (!st || st->wait_cpu != cpu + 1 || st->wait_slot != i
            || tid == holder) {
            if (st && tid == holder) {
                st->wait_cpu = 0;
            }
            kd_wait_free(cw, i, tid);
            continue;
        }
        from = st->charged_ts > cw->since ? st->charged_ts : cw->since;
        /* Never back: 'now' may be before the waiter's registration (a
         * switch in not seen, at 'arrived', before it began to wait). */
        if (now > from) {
            kd_charge(tid, st, now - from, h);
            st->charged_ts = now;
        }
    }
    cw->since = now;
}

/* The current task leaves CPU 'cpu' now: charges it to the threads waiting
 * there.  'before' is not 0 when the CPU switched without the tracepoint
 * since its last switch seen: the current task is not 'before', the task
 * seen getting the CPU then.  'before' held the CPU until the current
 * task's switch in at 'arrived', when that is known (see
 * kd_unseen_arrival()), and the current task from then; else the time
 * since the last switch seen goes to no task known. */
static __always_inline void
kd_charge_switch(u32 cpu, struct kd_cpu_wait *cw, u64 now, u64 before,
                 u64 arrived)
{
    struct kd_holder h = kd_holder_current();

    if (before && arrived) {
        struct kd_holder hb = kd_holder_task((void *) before);

        kd_charge_waiters(cpu, cw, arrived, &hb);
    } else if (before) {
        h.known = false;
    }
    kd_charge_waiters(cpu, cw, now, &h);
}

/* Ends the registration of thread 'tid' as a waiter, if any. */
static __always_inline void
kd_wait_end(u32 tid, struct kd_tstate *st)
{
    u32 slot = st->wait_slot;
    struct kd_cpu_wait *cw;
    u32 cpu;

    if (!st->wait_cpu) {
        return;
    }
    cpu = st->wait_cpu - 1;
    st->wait_cpu = 0;
    cw = cpu_wait.lookup(&cpu);
    if (cw && slot < KD_CPU_WAITERS) {
        kd_wait_free(cw, slot, tid);
    }
}

/* Registers thread 'tid' as waiting in the run queue of CPU 'cpu' from
 * 'now'.  When the CPU has no free slot, its wait is charged to nobody. */
static __always_inline void
kd_wait_begin(u32 tid, struct kd_tstate *st, u32 cpu, u64 now)
{
    struct kd_cpu_wait *cw = cpu_wait.lookup(&cpu);

    kd_wait_end(tid, st);
    st->charged_ts = now;
    if (!cw) {
        return;
    }
#pragma unroll
    for (int i = 0; i < KD_CPU_WAITERS; i++) {
        if (!cw->tids[i]
            && !__sync_val_compare_and_swap(&cw->tids[i], 0, tid)) {
            __sync_fetch_and_add(&cw->n, 1);
            st->wait_cpu = cpu + 1;
            st->wait_slot = i;
            return;
        }
    }
}
#endif

/*
 * Time on a CPU inside syscalls (KD_ACCT_KERNEL): the part of the run time
 * from a syscall's entry, or a switch in during one, to its exit, or the
 * switch out, less the interrupts that came meanwhile.
 */
static __always_inline void
kd_kernel_begin(struct kd_tstate *st, u64 now)
{
#if KD_WITH_ACCT
    st->kernel_ts = now;
    st->kernel_irq = st->acct.v[KD_ACCT_HARDIRQ]
                     + st->acct.v[KD_ACCT_SOFTIRQ];
#endif
}

static __always_inline void
kd_kernel_end(struct kd_tstate *st, u64 now)
{
#if KD_WITH_ACCT
    if (st->kernel_ts) {
        u64 ran = now - st->kernel_ts;
        u64 irq = st->acct.v[KD_ACCT_HARDIRQ] + st->acct.v[KD_ACCT_SOFTIRQ]
                  - st->kernel_irq;

        st->acct.v[KD_ACCT_KERNEL] += ran > irq ? ran - irq : 0;
        st->kernel_ts = 0;
    }
#endif
}

/*
 * Long poll intervals (KD_WITH_GAPS): from a thread's return from poll()
 * to its next call, the thread's accounts at the start are kept, and its
 * syscalls and the tasks that ran instead of it are recorded; at the end,
 * an interval longer than KD_LONG_POLL_MIN_NS is sent whole.
 */
#if KD_WITH_GAPS
/* When to wake the reader for a long poll interval: at once, unless this
 * CPU woke it less than KD_GAP_WAKEUP_NS ago (then the reader finds the
 * interval at its next wake-up, 100 ms at most later).  A lone interval
 * is reported as it ends; a flood of them (a low threshold) costs the
 * traced threads at most one wake-up a millisecond per CPU, not one per
 * interval, as the ring buffer's default would with a fast reader. */
#define KD_GAP_WAKEUP_NS 1000000
BPF_PERCPU_ARRAY(gap_wakeup, u64, 1);

static __always_inline u64
kd_gap_wakeup_flags(u64 now)
{
    int zero = 0;
    u64 *last = gap_wakeup.lookup(&zero);

    if (last && now - *last < KD_GAP_WAKEUP_NS) {
        return BPF_RB_NO_WAKEUP;
    }
    if (last) {
        *last = now;
    }
    return BPF_RB_FORCE_WAKEUP;
}

/* Thread 'st' returns from poll(): an interval starts.  It runs, whatever
 * the state says (a switch the program did not see). */
static __always_inline void
kd_gap_begin(u32 tid, struct kd_tstate *st, u64 now)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    struct kd_gap_detail *d = &g->detail;

    if (!st->run_ts) {
        st->run_ts = now;
    }
    st->ready_ts = st->sleep_ts = st->stop_ts = 0;
    kd_wait_end(tid, st);
    g->block.ts = 0;

    /* Before the start is set: a profile sample in between (an interrupt
     * of this CPU) counts for the previous interval, or for none. */
    d->profile.samples = 0;
    d->profile.lost_samples = 0;
    asm volatile("" ::: "memory");
    g->start_ns = now;
#pragma unroll
    for (int i = 0; i < KD_N_ACCT; i++) {
        g->base.v[i] = st->acct.v[i];
    }
    g->base.v[KD_ACCT_RUN] += now - st->run_ts;
    d->n_syscalls = 0;
    d->n_ran = 0;
    d->other_syscalls.nr = 0;
    d->other_syscalls.count = 0;
    d->other_syscalls.total_ns = 0;
    d->other_syscalls.blocked_ns = 0;
    d->other_ran_ns = 0;
    d->other_ran_count = 0;
}

/* Records syscall 'nr', which thread 'st' leaves now, in its interval. */
static __always_inline void
kd_gap_syscall(struct kd_tstate *st, u32 nr, u64 now)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    struct kd_gap_detail *d = &g->detail;
    struct kd_gap_syscall *s = NULL;
    u32 n = d->n_syscalls;
    bool fresh = false;

    if (!g->start_ns) {
        return;
    }
    /* The syscall's slot, or the first free one (slot n, once the n
     * taken did not match), each at a constant index: not &syscalls[n],
     * whose bound 6.1's verifier loses when n is spilled to the stack
     * ("unbounded memory access" with --trace-dir). */
#pragma unroll
    for (int i = 0; i < KD_GAP_SYSCALLS; i++) {
        if (!s && i < n && d->syscalls[i].nr == nr) {
            s = &d->syscalls[i];
        } else if (!s && i == n) {
            s = &d->syscalls[i];
            fresh = true;
        }
    }
    if (fresh) {
        s->nr = nr;
        s->count = 0;
        s->total_ns = 0;
        s->blocked_ns = 0;
        d->n_syscalls = n + 1;
    } else if (!s) {
        s = &d->other_syscalls;
    }
    s->count++;
    s->total_ns += now - st->syscall_ts;
    s->blocked_ns += st->acct.v[KD_ACCT_SLEEP] - st->syscall_sleep;
}

#if KD_WITH_TRACE
/* Sends the ring of thread 'tid', whose interval from 'start' ends 'now',
 * before the interval itself: user space has it when the interval
 * comes. */
static __always_inline void
kd_trace_send(u32 tid, u64 start, u64 now)
{
    struct kd_trace_ring *r = trace_hist.lookup(&tid);
    struct kd_trace_snap *snap;

    if (!r) {
        return;
    }
    snap = events.ringbuf_reserve(sizeof *snap);
    if (!snap) {
        counters.increment(KD_COUNTER_EVENTS_DROPPED);
        return;
    }
    snap->h.head.ts = now;
    snap->h.head.tid = tid;
    snap->h.head.id = KD_EVENT_TRACE;
    snap->h.head.entry_ts = 0;
    snap->h.head.syscall = 0;
    snap->h.head.user_stack_id = -1;
    snap->h.head.kernel_stack_id = -1;
    snap->h.head.pad = 0;
    snap->h.start_ns = start;
    snap->h.written = r->written;
    snap->h.size = KD_TRACE_SIZE;
    snap->h.pad = 0;
    bpf_probe_read_kernel(snap->recs, sizeof snap->recs, r->recs);
    events.ringbuf_submit(snap, BPF_RB_NO_WAKEUP);
}
#endif

/* Thread 'tid' calls poll() again: its interval, if long, goes to user
 * space. */
static __always_inline void
kd_gap_end(u32 tid, struct kd_tstate *st, u64 now)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    u64 start = g->start_ns;
    struct kd_gap_event *ev;

    if (!start) {
        return;
    }
    g->start_ns = 0;
    if (now - start <= KD_LONG_POLL_MIN_NS) {
        return;
    }
#if KD_WITH_TRACE
    kd_trace_send(tid, start, now);
#endif
    ev = events.ringbuf_reserve(sizeof *ev);
    if (!ev) {
        counters.increment(KD_COUNTER_EVENTS_DROPPED);
        return;
    }
    ev->head.ts = now;
    ev->head.tid = tid;
    ev->head.id = KD_EVENT_LONG_POLL;
    ev->head.entry_ts = 0;
    ev->head.syscall = 0;
    ev->head.user_stack_id = -1;
    ev->head.kernel_stack_id = -1;
    ev->head.pad = 0;
    ev->start_ns = start;
    ev->pid = KD_TGID;
    ev->pad = 0;
    ev->pending.ts = 0;
    bpf_get_current_comm(ev->comm, sizeof ev->comm);
#pragma unroll
    for (int i = 0; i < KD_N_ACCT; i++) {
        ev->acct.v[i] = st->acct.v[i] - g->base.v[i];
    }
    if (st->run_ts) {
        ev->acct.v[KD_ACCT_RUN] += now - st->run_ts;
    }
    bpf_probe_read_kernel(&ev->detail, sizeof ev->detail, &g->detail);
    events.ringbuf_submit(ev, kd_gap_wakeup_flags(now));
}
#endif

/*
 * On-CPU profile of long poll intervals (KD_WITH_PROFILE): a software CPU
 * clock perf event per CPU runs kd_profile() --profile-hz times a second
 * on every CPU.  A sample of a watched thread inside an interval counts
 * its (user, kernel) stack pair for that interval in profile_counts, and
 * the interval's samples in the thread's tstate entry.  User space reads
 * the counts of the intervals it reports, and deletes those of the others
 * and the stacks no count holds (kd_capture_profile_sweep()): nothing is
 * done per sample but here.
 */
#if KD_WITH_PROFILE || KD_WITH_BLOCKED
#define KD_EFAULT 14            /* No stack of that kind: not a loss. */

BPF_STACK_TRACE(profile_stacks, KD_PROFILE_STACKS);
#if KD_WITH_UNWIND
BPF_HASH(profile_user_stacks, u32, struct kd_ustack,
         KD_PROFILE_STACKS_IDS);
#endif
BPF_HASH(profile_counts, struct kd_profile_key, struct kd_profile_value,
         KD_PROFILE_STACKS);

/* A stack id from profile_stacks.get_stackid(), or -1 for none taken:
 * -1 when there is no stack of that kind; false when there was no room
 * for it. */
static __always_inline bool
kd_stack_id_ok(s32 *id)
{
    if (*id < -1 && *id != -KD_EFAULT) {
        return false;
    }
    *id = *id < 0 ? -1 : *id;
    return true;
}

/* Counts 'count' more of 'key', adding 'v's times: false if there was no
 * room. */
static __always_inline bool
kd_count_add(struct kd_profile_key *key, struct kd_profile_value *v)
{
    struct kd_profile_value *c = profile_counts.lookup(key);

    if (!c) {
        return !profile_counts.insert(key, v);
    }
    /* A thread's counts are made on the CPU it runs on: one at a time. */
    c->count += v->count;
    c->sleep_ns += v->sleep_ns;
    c->ready_ns += v->ready_ns;
    return true;
}
#endif

#if KD_WITH_PROFILE
struct bpf_perf_event_data;

/* Counts one sample of 'key', or its loss. */
static __always_inline void
kd_profile_count(struct kd_profile_key *key)
{
#if KD_WITH_TRACE
    struct kd_trace_rec *rec = kd_trace_rec(key->tid, KD_TRACE_SAMPLE,
                                            bpf_ktime_get_ns());

    if (rec) {
        rec->ustack = key->user_stack_id;
        rec->kstack = key->kernel_stack_id;
    }
#endif
    struct kd_profile_value one = { .count = 1 };
    bool ok = kd_stack_id_ok(&key->user_stack_id)
              && kd_stack_id_ok(&key->kernel_stack_id)
              && kd_count_add(key, &one);

    if (!ok) {
#if KD_WITH_GAPS
        u32 tid = key->tid;
        struct kd_tstate_gap *g =
            (struct kd_tstate_gap *) tstate.lookup(&tid);

        if (g) {
            g->detail.profile.lost_samples++;
        }
#else
        counters.increment(KD_COUNTER_PROFILE_LOST);
#endif
    }
}

#if KD_WITH_UNWIND
/* A user register of the perf event's registers (bpf_user_pt_regs_t,
 * read from the context: the verifier turns these loads into reads of the
 * interrupted registers). */
#define KD_UW_CTX_REG(CTX, OFF) (*(u64 *) ((char *) (CTX) + (OFF)))

/* kd_uw_begin() for a sample: from the interrupted registers if they are
 * user space's (user addresses are the lower half of the address space),
 * else from those the thread left user space with. */
static __always_inline struct kd_uw_state *
kd_uw_begin_perf(struct bpf_perf_event_data *ctx)
{
    struct kd_uw_state *s;
    u64 pc = KD_UW_CTX_REG(ctx, KD_OFF_REGS_PC);

    if ((s64) pc < 0) {
        return kd_uw_begin(KD_UW_FOR_PROFILE);
    }
    s = kd_uw_start(KD_UW_FOR_PROFILE, true);
    if (s) {
        s->pc = pc;
        s->sp = KD_UW_CTX_REG(ctx, KD_OFF_REGS_SP);
        s->fp = KD_UW_CTX_REG(ctx, KD_OFF_REGS_FP);
        s->lr = KD_UW_ARM64 ? KD_UW_CTX_REG(ctx, KD_OFF_REGS_LR) : 0;
    }
    return s;
}
#endif

int
kd_profile(struct bpf_perf_event_data *ctx)
{
    struct kd_profile_key key = { 0 };
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
#if KD_WITH_GAPS
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) tstate.lookup(&tid);

    if (!g || !g->start_ns) {
        return 0;
    }
    g->detail.profile.samples++;
    key.start_ns = g->start_ns;
#endif
    key.tid = tid;
    key.kind = KD_COUNT_ON_CPU;
    key.kernel_stack_id = profile_stacks.get_stackid(ctx, 0);
#if KD_WITH_UNWIND
    struct kd_uw_state *s = kd_uw_begin_perf(ctx);

    if (s) {
        s->key = key;
        s->key.user_stack_id = -1;
        uw_perf_progs.call(ctx, 0);
        kd_uw_failed();
        return 0;
    }
    key.user_stack_id = -1;
#else
    key.user_stack_id = profile_stacks.get_stackid(ctx, BPF_F_USER_STACK);
#endif
    kd_profile_count(&key);
    return 0;
}
#endif

/*
 * Where the threads of long poll intervals slept, and who woke them
 * (KD_WITH_BLOCKED): a thread that switches out asleep inside an interval
 * keeps its stacks (kd_block_begin()), its waker's when it is woken
 * (kd_block_woken(): the current task, with its user stack if it is a
 * thread of the target, as another process's would need its symbols),
 * and counts the sleep in profile_counts when it runs again
 * (kd_block_end()), with the time asleep and then in the run queue.
 */
#if KD_WITH_BLOCKED
/* Whether the sleeps of thread 'g' count now: inside a long poll interval
 * (KD_WITH_GAPS), else inside a sample. */
static __always_inline bool
kd_block_counts(const struct kd_tstate_gap *g)
{
#if KD_WITH_GAPS
    return g->start_ns != 0;
#else
    return kd_capturing();
#endif
}

static __always_inline void
kd_block_begin(void *ctx, struct kd_tstate *st, u64 now)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    struct kd_gap_block *b = &g->block;

    b->ts = 0;
    if (!kd_block_counts(g)) {
        return;
    }
#if KD_WITH_UNWIND
    /* Set by the unwinder (kd_uw_done()), before the thread can run
     * again. */
    struct kd_uw_state *s = kd_uw_begin(KD_UW_FOR_SLEEP);

    if (s) {
        s->tid = (u32) bpf_get_current_pid_tgid();
    }
    b->user_stack_id = -1;
#else
    b->user_stack_id = profile_stacks.get_stackid(ctx, BPF_F_USER_STACK);
#endif
    b->kernel_stack_id = profile_stacks.get_stackid(ctx, 0);
    b->woken_ts = 0;
    b->waker_seen = 0;
    b->ts = now;
}

/* Thread 'st', asleep, is being woken by the current task (sched_waking:
 * the waker's own context, or the interrupt's). */
static __always_inline void
kd_block_waker(void *ctx, u32 tid, struct kd_tstate *st)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    struct kd_gap_block *b = &g->block;
    u64 pid_tgid;

    if (!b->ts || b->woken_ts || b->waker_seen) {
        return;
    }
    pid_tgid = bpf_get_current_pid_tgid();
    b->waker_tid = (u32) pid_tgid;
    b->waker_pid = pid_tgid >> 32;
    bpf_get_current_comm(b->waker_comm, sizeof b->waker_comm);
    b->waker_kernel_stack_id = profile_stacks.get_stackid(ctx, 0);
#if KD_WITH_UNWIND
    b->waker_user_stack_id = -1;
    if (b->waker_pid == KD_TGID) {
        struct kd_uw_state *s = kd_uw_begin(KD_UW_FOR_WAKER);

        if (s) {
            s->tid = tid;
        }
    }
#else
    b->waker_user_stack_id = b->waker_pid != KD_TGID ? -1
        : profile_stacks.get_stackid(ctx, BPF_F_USER_STACK);
#endif
    b->waker_seen = 1;
}

/* Thread 'st', asleep, is woken now (sched_wakeup: where its sleep ends;
 * on a CPU the waker queued the wake-up to, its current task is not the
 * waker, which kd_block_waker() saw). */
static __always_inline void
kd_block_woken(void *ctx, struct kd_tstate *st, u64 now)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    struct kd_gap_block *b = &g->block;

    if (b->ts && !b->woken_ts) {
        b->woken_ts = now;
    }
}

static __always_inline void
kd_block_end(u32 tid, struct kd_tstate *st, u64 now)
{
    struct kd_tstate_gap *g = (struct kd_tstate_gap *) st;
    struct kd_gap_block *b = &g->block;
    struct kd_gap_profile *p = &g->detail.profile;
    struct kd_profile_key key = { 0 };
    struct kd_profile_value v = { .count = 1 };
    u64 ts = b->ts;
    bool ok;

    b->ts = 0;
    if (!ts || !kd_block_counts(g) || now < ts) {
        return;
    }
    p->sleeps++;
    key.tid = tid;
    key.kind = KD_COUNT_BLOCKED;
    key.start_ns = g->start_ns;     /* 0 outside long poll intervals. */
    key.user_stack_id = b->user_stack_id;
    key.kernel_stack_id = b->kernel_stack_id;
    key.waker_user_stack_id = -1;
    key.waker_kernel_stack_id = -1;
    v.sleep_ns = now - ts;
    if (b->woken_ts >= ts && b->woken_ts <= now) {
        v.sleep_ns = b->woken_ts - ts;
        v.ready_ns = now - b->woken_ts;
    }
    if (b->woken_ts && b->waker_seen) {
        key.woken = 1;
        key.waker_tid = b->waker_tid;
        key.waker_user_stack_id = b->waker_user_stack_id;
        key.waker_kernel_stack_id = b->waker_kernel_stack_id;
        v.waker_pid = b->waker_pid;
        __builtin_memcpy(v.waker_comm, b->waker_comm, sizeof v.waker_comm);
    }
    ok = kd_stack_id_ok(&key.user_stack_id)
         && kd_stack_id_ok(&key.kernel_stack_id)
         && kd_stack_id_ok(&key.waker_user_stack_id)
         && kd_stack_id_ok(&key.waker_kernel_stack_id)
         && kd_count_add(&key, &v);
    if (!ok) {
        p->lost_sleeps++;
        counters.increment(KD_COUNTER_SLEEPS_LOST);
    }
}
#else
static __always_inline void
kd_block_begin(void *ctx, struct kd_tstate *st, u64 now)
{
}

static __always_inline void
kd_block_woken(void *ctx, struct kd_tstate *st, u64 now)
{
}

static __always_inline void
kd_block_end(u32 tid, struct kd_tstate *st, u64 now)
{
}
#endif

/*
 * Syscalls.  A thread in a syscall runs: if its last switch seen left it
 * off its CPU, it got one back without the tracepoint, and its wait or
 * sleep ends where kd_unseen_running() says, before the syscall counts
 * anywhere (a poll() ends or starts an interval).
 */
static __always_inline void kd_unseen_running(u32 tid, struct kd_tstate *st,
                                              u64 now);

RAW_TRACEPOINT_PROBE(sys_enter)
{
    struct kd_tstate *st;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }

    u64 now = bpf_ktime_get_ns();

    st = kd_tstate_get(tid);
    if (!st) {
        return 0;
    }
    if (!st->run_ts && (st->flags & KD_TSTATE_BASE)) {
        kd_unseen_running(tid, st, now);
    }
    st->syscall_ts = now;
    kd_kernel_begin(st, now);
#if KD_WITH_TRACE
    kd_trace(tid, KD_TRACE_SYS_ENTER, now, (u32) ctx->args[1], 0);
#endif
#if KD_WITH_GAPS
    /* For the report of an interval still in progress. */
    st->syscall_nr = (u32) ctx->args[1];
    st->syscall_sleep = st->acct.v[KD_ACCT_SLEEP];
#endif

    /* Long poll: the time from the return of one poll() to the start of
     * the next one. */
    if (ctx->args[1] == KD_SYSCALL_POLL) {
#if KD_WITH_STATS
        if (st->poll_ts) {
            struct kd_tstats *stats = kd_tstats_get(tid);

            if (stats) {
                kd_stat_add(&stats->poll, now - st->poll_ts);
            }
        }
#endif
#if KD_WITH_GAPS
        kd_gap_end(tid, st, now);
#endif
        st->poll_ts = 0;
    }
    return 0;
}

RAW_TRACEPOINT_PROBE(sys_exit)
{
    u32 tid;

    /* Before anything else: this runs at every syscall of the host. */
    if (!kd_current_captured(&tid)) {
        return 0;
    }

    struct kd_tstate *st;
    u64 now = bpf_ktime_get_ns();
    u64 nr = 0;
#if KD_WITH_UNWIND && KD_WITH_SYSCALL_EVENTS && KD_WITH_STACKS
    u32 uw_depth = kd_uw_depth();
#endif

    /* The syscall number as the kernel's syscall_get_nr() sees it: a
     * signed member of 8 bytes (x86_64) or 4 (arm64). */
    if (KD_SIZE_SYSCALL_NR == 4) {
        s32 nr32 = 0;

        bpf_probe_read_kernel(&nr32, sizeof nr32,
                              (void *) ctx->args[0] + KD_OFF_SYSCALL_NR);
        nr = (u64) (s64) nr32;
    } else {
        bpf_probe_read_kernel(&nr, sizeof nr,
                              (void *) ctx->args[0] + KD_OFF_SYSCALL_NR);
    }

    st = kd_tstate_get(tid);
    if (!st) {
        return 0;
    }
    if (!st->run_ts && (st->flags & KD_TSTATE_BASE)) {
        kd_unseen_running(tid, st, now);
    }
    /* Before the poll() return starts an interval. */
    kd_kernel_end(st, now);
#if KD_WITH_TRACE
    kd_trace(tid, KD_TRACE_SYS_EXIT, now, (u32) nr, 0);
#endif
#if KD_WITH_GAPS
    if (nr == KD_SYSCALL_POLL) {
        kd_gap_begin(tid, st, now);
    } else if (st->syscall_ts) {
        kd_gap_syscall(st, nr, now);
    }
#endif
    if (nr == KD_SYSCALL_POLL) {
        st->poll_ts = now;
    }
    if (!st->syscall_ts) {
        return 0;
    }

#if KD_WITH_STATS
    struct kd_syscall_key key = {};
    struct kd_stat zero = {};
    struct kd_stat *stat;

    key.tid = tid;
    key.nr = nr;
    stat = syscalls.lookup_or_try_init(&key, &zero);
    if (stat) {
        kd_stat_add(stat, now - st->syscall_ts);
    } else {
        kd_map_full(KD_MAP_SYSCALLS);
    }
    kd_hist_add(tid, nr, now - st->syscall_ts);
#endif
#if KD_WITH_SYSCALL_EVENTS
    kd_syscall_event(ctx, nr, st->syscall_ts, now);
#endif
    st->syscall_ts = 0;
#if KD_WITH_UNWIND && KD_WITH_SYSCALL_EVENTS && KD_WITH_STACKS
    /* A walk begun above (kd_syscall_event()): the unwinder's turn. */
    if (kd_uw_depth() > uw_depth) {
        uw_progs.call(ctx, 0);
        kd_uw_failed();
    }
#endif
    return 0;
}

/*
 * Scheduler: run, ready (run-queue wait), stopped and, for the accounts,
 * asleep.
 */
static __always_inline void
kd_wakeup(void *ctx, void *task)
{
    struct kd_tstate *st;

    if (kd_task_u32(task, KD_OFF_TASK_TGID) != KD_TGID || !kd_capturing()) {
        return;
    }

    u32 tid = kd_task_u32(task, KD_OFF_TASK_PID);
    u64 now = bpf_ktime_get_ns();

    st = kd_tstate_get(tid);
    if (!st) {
        return;
    }
    if (!(st->flags & KD_TSTATE_BASE)) {
        kd_base_take(st, task);
    }

#if KD_WITH_TRACE
    if ((st->stop_ts || st->sleep_ts) && !st->ready_ts && !st->run_ts) {
        struct kd_trace_rec *rec = kd_trace_rec(tid, KD_TRACE_WAKEUP, now);

        if (rec) {
            rec->arg = st->stop_ts ? KD_TRACE_OUT_STOPPED
                                   : KD_TRACE_OUT_SLEEP;
            rec->cpu = kd_task_u32(task, KD_OFF_TASK_CPU);
        }
    }
#endif
    /* A stopped thread ends its stop when SIGCONT wakes it up. */
    if (st->stop_ts) {
#if KD_WITH_STATS
        struct kd_tstats *stats = kd_tstats_get(tid);

        if (stats) {
            kd_stat_add(&stats->stop, now - st->stop_ts);
        }
#endif
#if KD_WITH_ACCT
        st->acct.v[KD_ACCT_STOP] += now - st->stop_ts;
#endif
        st->stop_ts = 0;
    }
#if KD_WITH_ACCT
    if (st->sleep_ts) {
        st->acct.v[KD_ACCT_SLEEP] += now - st->sleep_ts;
        st->sleep_ts = 0;
        kd_block_woken(ctx, st, now);
    }
#endif

    /* It now waits for a CPU, unless it already did (a thread preempted
     * on its way to sleep) or runs (woken before it could sleep). */
    if (!st->ready_ts && !st->run_ts) {
        st->ready_ts = now;
#if KD_WITH_ACCT
        kd_wait_begin(tid, st, kd_task_u32(task, KD_OFF_TASK_CPU), now);
#endif
    }
}

RAW_TRACEPOINT_PROBE(sched_wakeup)
{
    kd_wakeup(ctx, (void *) ctx->args[0]);
    return 0;
}

RAW_TRACEPOINT_PROBE(sched_wakeup_new)
{
    kd_wakeup(ctx, (void *) ctx->args[0]);
    return 0;
}

#if KD_WITH_TRACE
/* Thread 'tid', asleep or stopped, is being woken by the current task. */
static __always_inline void
kd_trace_waker(u32 tid)
{
    struct kd_trace_rec *rec = kd_trace_rec(tid, KD_TRACE_WAKER,
                                            bpf_ktime_get_ns());
    u64 pid_tgid = bpf_get_current_pid_tgid();

    if (rec) {
        rec->arg = (u32) pid_tgid;
        rec->pid = pid_tgid >> 32;
        bpf_get_current_comm(rec->comm, sizeof rec->comm);
    }
}
#endif

#if KD_WITH_BLOCKED || KD_WITH_TRACE
/* TP_PROTO(struct task_struct *p), in the waker's context: sched_wakeup
 * may come later on the sleeper's CPU, from its idle task, when the waker
 * queued the wake-up there (an idle CPU activates its own wakees). */
RAW_TRACEPOINT_PROBE(sched_waking)
{
    void *task = (void *) ctx->args[0];
    struct kd_tstate *st;

    if (kd_task_u32(task, KD_OFF_TASK_TGID) != KD_TGID || !kd_capturing()) {
        return 0;
    }
    u32 tid = kd_task_u32(task, KD_OFF_TASK_PID);
#if KD_WITH_UNWIND
    u32 uw_depth = kd_uw_depth();
#endif

    st = kd_tstate_find(tid);
#if KD_WITH_TRACE
    if (st && (st->sleep_ts || st->stop_ts)) {
        kd_trace_waker(tid);
    }
#endif
#if KD_WITH_BLOCKED
    if (st && st->sleep_ts) {
        kd_block_waker(ctx, tid, st);
    }
#endif
#if KD_WITH_UNWIND
    if (kd_uw_depth() > uw_depth) {
        uw_progs.call(ctx, 0);
        kd_uw_failed();
    }
#endif
    return 0;
}
#endif

#if KD_WITH_ACCT
/* TP_PROTO(struct task_struct *p, int dest_cpu).  A waiting thread moves
 * to another CPU's run queue: charged up to now to the task on the CPU it
 * leaves (which held it since the later of that CPU's last switch and the
 * thread's last charge), then registered there. */
RAW_TRACEPOINT_PROBE(sched_migrate_task)
{
    void *task = (void *) ctx->args[0];
    struct kd_cpu_wait *cw;
    struct kd_tstate *st;
    u32 tid, cpu;
    u64 now;

    if (kd_task_u32(task, KD_OFF_TASK_TGID) != KD_TGID || !kd_capturing()) {
        return 0;
    }
    tid = kd_task_u32(task, KD_OFF_TASK_PID);
    st = kd_tstate_find(tid);
    if (!st || !st->wait_cpu) {
        return 0;
    }
    now = bpf_ktime_get_ns();
    cpu = st->wait_cpu - 1;
    cw = cpu_wait.lookup(&cpu);
    if (cw) {
        struct kd_holder h = kd_holder_task((void *) cw->cur);
        u64 from = st->charged_ts > cw->since ? st->charged_ts : cw->since;

        if (now > from) {
            kd_charge(tid, st, now - from, &h);
        }
    }
    kd_wait_begin(tid, st, (u32) ctx->args[1], now);
#if KD_WITH_TRACE
    struct kd_trace_rec *rec = kd_trace_rec(tid, KD_TRACE_MIGRATE, now);

    if (rec) {
        rec->cpu = (u32) ctx->args[1];
    }
#endif
    return 0;
}
#endif

/*
 * Context switches.  sched_switch only dispatches, to the helpers below:
 * who ran instead (kd_ran_switch(), kd_ran_charge()), the end of the
 * previous thread's turn on the CPU (kd_switch_out()) and the start of
 * the next one's (kd_switch_in()).  These keep the run and ready times
 * (kd_run_end(), kd_ready_end()) and the time accounts
 * (kd_acct_switch_out(), kd_acct_switch_in()); a switch in the kernel
 * made without the tracepoint is found at the switch out that follows
 * (kd_unseen_arrival()).
 */

/* Who ran instead: CPU 'cpu' now switches from task 'prev' to 'next'.
 * Returns the CPU's waiters, if a thread of the target may wait there,
 * else NULL; '*before' is the task seen getting the CPU last when that
 * is not 'prev' (a switch not seen since), else 0. */
static __always_inline struct kd_cpu_wait *
kd_ran_switch(u32 cpu, void *prev, void *next, u64 *before)
{
    *before = 0;
#if KD_WITH_ACCT
    struct kd_cpu_wait *cw = cpu_wait.lookup(&cpu);

    if (cw) {
        if (cw->cur && cw->cur != (u64) prev) {
            *before = cw->cur;
        }
        cw->cur = (u64) next;
        if (cw->n) {
            return cw;
        }
    }
#endif
    return NULL;
}

/* Who ran instead: the current task, which leaves CPU 'cpu' now, held it
 * while the threads of 'cw' waited, since its switch in when that was
 * not seen (see kd_charge_switch()). */
static __always_inline void
kd_ran_charge(u32 cpu, struct kd_cpu_wait *cw, u64 now, u64 before,
              u64 arrived)
{
#if KD_WITH_ACCT
    kd_charge_switch(cpu, cw, now, before, arrived);
#endif
}

/* Thread 'tid' ends now its turn on a CPU, started at st->run_ts. */
static __always_inline void
kd_run_end(u32 tid, struct kd_tstate *st, u64 now)
{
#if KD_WITH_STATS
    struct kd_tstats *stats = kd_tstats_get(tid);

    if (stats) {
        kd_stat_add(&stats->run, now - st->run_ts);
    }
    kd_hist_add(tid, KD_HIST_RUN, now - st->run_ts);
#endif
#if KD_WITH_ACCT
    st->acct.v[KD_ACCT_RUN] += now - st->run_ts;
#endif
    st->run_ts = 0;
}

/* Thread 'tid' ends now its wait in a run queue, started at
 * st->ready_ts. */
static __always_inline void
kd_ready_end(u32 tid, struct kd_tstate *st, u64 now)
{
#if KD_WITH_STATS
    struct kd_tstats *stats = kd_tstats_get(tid);

    if (stats) {
        kd_stat_add(&stats->ready, now - st->ready_ts);
    }
    kd_hist_add(tid, KD_HIST_READY, now - st->ready_ts);
#endif
#if KD_WITH_ACCT
    st->acct.v[KD_ACCT_READY] += now - st->ready_ts;
    st->acct.v[KD_ACCT_WAITS]++;
#endif
    st->ready_ts = 0;
}

/* The accounts of thread 'tid' as it leaves CPU 'cpu' now: still
 * 'runnable', it starts waiting in that CPU's run queue; neither runnable
 * nor 'stopped', its sleep starts. */
static __always_inline void
kd_acct_switch_out(u32 tid, struct kd_tstate *st, bool runnable,
                   bool stopped, u32 cpu, u64 now)
{
#if KD_WITH_ACCT
    if (runnable) {
        st->acct.v[KD_ACCT_PREEMPTIONS]++;
        kd_wait_begin(tid, st, cpu, now);
    } else if (!stopped) {
        st->sleep_ts = now;
        st->acct.v[KD_ACCT_SLEEPS]++;
    }
#endif
}

/* The accounts of thread 'tid' as it gets CPU 'cpu' now: the last charge
 * of its wait, unless kd_charge_waiters() made it (the task that leaves
 * the CPU held it until now), and the end of its registration. */
static __always_inline void
kd_acct_switch_in(u32 tid, struct kd_tstate *st, u32 cpu, u64 now)
{
#if KD_WITH_ACCT
    if (st->wait_cpu) {
        struct kd_holder h = kd_holder_current();

        /* Registered elsewhere: a move not seen. */
        h.known = st->wait_cpu == cpu + 1;
        if (now > st->charged_ts) {
            kd_charge(tid, st, now - st->charged_ts, &h);
        }
        kd_wait_end(tid, st);
    }
    /* Asleep or stopped without a wake-up seen: not counted. */
    st->sleep_ts = st->stop_ts = 0;
#endif
}

/* Thread 'tid' of the target, whose task_struct is 'task', leaves its CPU
 * now: when its switch in was not seen, when it got the CPU.  Some kernels
 * switch tasks without running the sched_switch tracepoint (the
 * development machine's, for the switches away from the threads of one
 * process: see the man page, OUTPUT), but count the thread's timeslices
 * (sched_info.pcount) and run time (se.sum_exec_runtime) all the same:
 * since the last wake-up or switch out seen (KD_TSTATE_BASE), a timeslice
 * more with no switch in seen is a switch in not seen, which happened as
 * long before now as the thread ran since.  (Where the kernel counts no
 * timeslices, a switch out after one seen, with no switch in seen, tells
 * the same.)  Returns that time, not before the thread was last ready, or
 * 0. */
static __always_inline u64
kd_unseen_arrival(u32 tid, void *task, u64 now)
{
    struct kd_tstate *st = kd_tstate_find(tid);
    u64 ran, arrived;

    if (!st || st->run_ts || !(st->flags & KD_TSTATE_BASE)) {
        return 0;
    }
    if ((long) KD_OFF_TASK_PCOUNT >= 0
        ? kd_task_u64(task, KD_OFF_TASK_PCOUNT) == st->pcount_base
        : !(st->flags & KD_TSTATE_SWITCHED)) {
        return 0;
    }
    ran = kd_task_u64(task, KD_OFF_TASK_SUM_EXEC) - st->exec_base;
    arrived = ran < now ? now - ran : 0;
    return arrived > st->ready_ts ? arrived : st->ready_ts;
}

/* Thread 'tid' ('task'), asleep since st->sleep_ts, got its CPU at
 * 'arrived' with neither its wake-up nor that switch seen (the wake-up
 * and the switch of one CPU both lost, as seen on the development
 * machine): of the time in between, the kernel's own count of its time in
 * run queues since its switch out (sched_info.run_delay, updated as it got
 * the CPU) was a wait, charged to nobody known, and the rest its sleep. */
static __always_inline void
kd_unseen_wakeup(u32 tid, struct kd_tstate *st, void *task, u64 arrived)
{
#if KD_WITH_ACCT
    u64 span = arrived > st->sleep_ts ? arrived - st->sleep_ts : 0;
    u64 waited = 0;

    if ((long) KD_OFF_TASK_RUN_DELAY >= 0) {
        waited = kd_task_u64(task, KD_OFF_TASK_RUN_DELAY) - st->delay_base;
    }
    waited = waited < span ? waited : span;
    st->acct.v[KD_ACCT_SLEEP] += span - waited;
#if KD_WITH_BLOCKED
    struct kd_gap_block *b = &((struct kd_tstate_gap *) st)->block;

    if (b->ts && !b->woken_ts) {
        b->woken_ts = arrived - waited;
    }
#endif
    if (waited) {
        struct kd_holder nobody = { .known = false };

        st->acct.v[KD_ACCT_READY] += waited;
        st->acct.v[KD_ACCT_WAITS]++;
        kd_charge(tid, st, waited, &nobody);
    }
#endif
}

/* Thread 'tid' ('task') got its CPU at 'arrived' without the switch being
 * seen (see kd_unseen_arrival()): counts the miss, ends its wait (or its
 * sleep, kd_unseen_wakeup()) then, and starts its turn then.  A
 * registration as a waiter still left (on a CPU where the switch was not
 * seen either; on this one, kd_charge_switch() charged it up to
 * 'arrived') is charged to nobody known. */
static __always_inline void
kd_unseen_switch_in(u32 tid, struct kd_tstate *st, void *task, u64 arrived)
{
    counters.increment(KD_COUNTER_SWITCHES_MISSED);
    if (st->ready_ts) {
        kd_ready_end(tid, st, arrived);
    } else if (st->sleep_ts) {
        kd_unseen_wakeup(tid, st, task, arrived);
    }
#if KD_WITH_ACCT
    if (st->wait_cpu) {
        struct kd_holder nobody = { .known = false };

        if (arrived > st->charged_ts) {
            kd_charge(tid, st, arrived - st->charged_ts, &nobody);
        }
        kd_wait_end(tid, st);
    }
    st->sleep_ts = st->stop_ts = 0;
#endif
    kd_block_end(tid, st, arrived);
    st->run_ts = arrived;
    if (st->syscall_ts) {
        kd_kernel_begin(st, arrived);
    }
}

/* Thread 'tid', current on this CPU now, was last seen leaving a CPU (or
 * woken): when kd_unseen_arrival() finds that it got this one back
 * without the switch being seen, the task seen last on this CPU held it
 * until then (charged to the CPU's waiters), and the thread from then.
 * Else (no switch seen yet) nothing is known of its past. */
static __always_inline void
kd_unseen_running(u32 tid, struct kd_tstate *st, u64 now)
{
    void *task = (void *) bpf_get_current_task();
    u64 arrived = kd_unseen_arrival(tid, task, now);

    if (!arrived) {
        return;
    }
#if KD_WITH_ACCT
    u32 cpu = bpf_get_smp_processor_id();
    struct kd_cpu_wait *cw = cpu_wait.lookup(&cpu);

    if (cw && cw->cur != (u64) task) {
        if (cw->n) {
            struct kd_holder h = kd_holder_task((void *) cw->cur);

            kd_charge_waiters(cpu, cw, arrived, &h);
        }
        cw->cur = (u64) task;
    }
#endif
    kd_unseen_switch_in(tid, st, task, arrived);
}

/* Thread 'tid' of the target, whose task_struct is 'task', leaves CPU
 * 'cpu' now ('preempt': it was preempted); its switch in, when not seen,
 * was at 'arrived'. */
static __always_inline void
kd_switch_out(void *ctx, u32 tid, void *task, bool preempt, u32 cpu,
              u64 now, u64 arrived)
{
    u64 state = kd_task_state(task);
    struct kd_tstate *st = kd_tstate_get(tid);
    bool runnable, stopped;

    if (!st) {
        return;
    }
    if (arrived) {
        kd_unseen_switch_in(tid, st, task, arrived);
    }
    kd_kernel_end(st, now);
    /* Still runnable (preempted, or yielding): it now waits in the run
     * queue.  Stopped: it waits for SIGCONT.  Else it sleeps. */
    runnable = preempt || state == KD_TASK_RUNNING;
    stopped = !runnable && (state & KD_TASK_STOPPED);
    st->ready_ts = runnable ? now : 0;
    if (stopped) {
        st->stop_ts = now;
    }
    kd_acct_switch_out(tid, st, runnable, stopped, cpu, now);
    if (!runnable && !stopped) {
        kd_block_begin(ctx, st, now);
    }
#if KD_WITH_TRACE
    kd_trace(tid, KD_TRACE_SWITCH_OUT, now,
             st->syscall_ts ? st->syscall_nr + 1 : 0,
             runnable ? KD_TRACE_OUT_PREEMPTED
             : stopped ? KD_TRACE_OUT_STOPPED : KD_TRACE_OUT_SLEEP);
#endif
    if (st->run_ts) {
        kd_run_end(tid, st, now);
    }
    st->flags |= KD_TSTATE_SWITCHED;
    kd_base_take(st, task);
}

#if KD_WITH_TRACE
/* Thread 'tid' gets its CPU now: with the stacks of the sleep it ends,
 * if they were taken. */
static __always_inline void
kd_trace_switch_in(u32 tid, struct kd_tstate *st, u64 now)
{
    struct kd_trace_rec *rec = kd_trace_rec(tid, KD_TRACE_SWITCH_IN, now);
#if KD_WITH_BLOCKED
    struct kd_gap_block *b = &((struct kd_tstate_gap *) st)->block;

    if (rec && b->ts) {
        rec->ustack = b->user_stack_id;
        rec->kstack = b->kernel_stack_id;
    }
#endif
}
#endif

/* Thread 'tid' of the target gets CPU 'cpu' now. */
static __always_inline void
kd_switch_in(u32 tid, u32 cpu, u64 now)
{
    struct kd_tstate *st = kd_tstate_get(tid);

    if (!st) {
        return;
    }
    if (st->ready_ts) {
        kd_ready_end(tid, st, now);
    }
    kd_acct_switch_in(tid, st, cpu, now);
#if KD_WITH_TRACE
    kd_trace_switch_in(tid, st, now);
#endif
    kd_block_end(tid, st, now);
    if (st->run_ts) {
        /* Its last switch out was not seen. */
        counters.increment(KD_COUNTER_SWITCHES_MISSED);
    }
    st->flags |= KD_TSTATE_SWITCHED;
    st->run_ts = now;
    if (st->syscall_ts) {
        kd_kernel_begin(st, now);
    }
}

/* TP_PROTO(bool preempt, struct task_struct *prev,
 *          struct task_struct *next, ...).  When it fires, 'current' is
 * still 'prev'.  Only the accounts need the CPU. */
RAW_TRACEPOINT_PROBE(sched_switch)
{
    u64 prev_pid_tgid = bpf_get_current_pid_tgid();
    void *prev = (void *) ctx->args[1];
    void *next = (void *) ctx->args[2];
    bool prev_ours = (prev_pid_tgid >> 32) == KD_TGID;
    bool next_ours = kd_task_u32(next, KD_OFF_TASK_TGID) == KD_TGID;
    u32 cpu = KD_WITH_ACCT ? bpf_get_smp_processor_id() : 0;
    u64 before;
    struct kd_cpu_wait *waiters = kd_ran_switch(cpu, prev, next, &before);
    u64 now, arrived = 0;

    if ((!prev_ours && !next_ours && !waiters) || !kd_capturing()) {
        return 0;
    }
    now = bpf_ktime_get_ns();
#if KD_WITH_UNWIND && KD_WITH_BLOCKED
    u32 uw_depth = kd_uw_depth();
#endif
    if (prev_ours) {
        arrived = kd_unseen_arrival((u32) prev_pid_tgid, prev, now);
    }
    if (waiters) {
        kd_ran_charge(cpu, waiters, now, before, arrived);
    }
    if (prev_ours) {
        kd_switch_out(ctx, (u32) prev_pid_tgid, prev, ctx->args[0], cpu, now,
                      arrived);
    }
    if (next_ours) {
        kd_switch_in(kd_task_u32(next, KD_OFF_TASK_PID), cpu, now);
    }
#if KD_WITH_UNWIND && KD_WITH_BLOCKED
    if (kd_uw_depth() > uw_depth) {
        uw_progs.call(ctx, 0);
        kd_uw_failed();
    }
#endif
    return 0;
}

/* Keeps the name of every thread of the target that exits, so that the
 * report can name threads that are gone; with the accounts, ends its
 * registration as a waiter and, watching long poll intervals, frees its
 * entry. */
RAW_TRACEPOINT_PROBE(sched_process_exit)
{
    u64 pid_tgid = bpf_get_current_pid_tgid();
    u32 tid = (u32) pid_tgid;

    if ((pid_tgid >> 32) != KD_TGID) {
        return 0;
    }
#if KD_WITH_STATS
    struct kd_name name = {};

    bpf_get_current_comm(&name.comm, sizeof name.comm);
    if (names.update(&tid, &name)) {
        kd_map_full(KD_MAP_NAMES);
    }
#endif
#if KD_WITH_ACCT
    struct kd_tstate *st = kd_tstate_find(tid);

    if (st) {
        kd_wait_end(tid, st);
    }
#endif
#if KD_WITH_GAPS
    tstate.delete(&tid);
#endif
#if KD_WITH_TRACE
    trace_hist.delete(&tid);
#endif
    return 0;
}

/*
 * Hard interrupts, charged to the target thread they interrupted.
 * TP_PROTO(int irq, struct irqaction *action[, int ret]).
 */
RAW_TRACEPOINT_PROBE(irq_handler_entry)
{
    struct kd_tstate *st;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
    st = kd_tstate_get(tid);
    if (!st) {
        return 0;
    }
#if KD_WITH_STATS
    const char *name = NULL;

    bpf_probe_read_kernel(&name, sizeof name,
                          (void *) ctx->args[1] + KD_OFF_IRQ_NAME);
    __builtin_memset(st->hardirq_name, 0, sizeof st->hardirq_name);
    bpf_probe_read_kernel_str(st->hardirq_name, sizeof st->hardirq_name,
                              name);
#endif
    st->hardirq_ts = bpf_ktime_get_ns();
    return 0;
}

RAW_TRACEPOINT_PROBE(irq_handler_exit)
{
    struct kd_tstate *st;
    u64 delta;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
    st = kd_tstate_find(tid);
    if (!st || !st->hardirq_ts) {
        return 0;
    }
    delta = bpf_ktime_get_ns() - st->hardirq_ts;
#if KD_WITH_STATS
    if ((int) ctx->args[2] != KD_IRQ_NONE) {
        struct kd_hardirq_key key = {};
        struct kd_stat zero = {};
        struct kd_stat *stat;

        key.tid = tid;
        __builtin_memcpy(key.name, st->hardirq_name, sizeof key.name);
        stat = hardirqs.lookup_or_try_init(&key, &zero);
        if (stat) {
            kd_stat_add(stat, delta);
        } else {
            kd_map_full(KD_MAP_HARDIRQS);
        }
    }
#endif
#if KD_WITH_ACCT
    /* The CPU was taken from the thread, whether the handler had work. */
    st->acct.v[KD_ACCT_HARDIRQ] += delta;
#endif
#if KD_WITH_TRACE
    struct kd_trace_rec *rec = kd_trace_rec(tid, KD_TRACE_HARDIRQ,
                                            st->hardirq_ts + delta);

    if (rec) {
        rec->dur = delta;
    }
#endif
    st->hardirq_ts = 0;
    return 0;
}

/*
 * Soft interrupts run on the back of the target's thread.
 * TP_PROTO(unsigned int vec_nr).
 */
RAW_TRACEPOINT_PROBE(softirq_entry)
{
    struct kd_tstate *st;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
    st = kd_tstate_get(tid);
    if (!st) {
        return 0;
    }
    st->softirq_vec = (u32) ctx->args[0];
#if KD_WITH_ACCT
    st->softirq_hardirq = st->acct.v[KD_ACCT_HARDIRQ];
#endif
    st->softirq_ts = bpf_ktime_get_ns();
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_exit)
{
    struct kd_tstate *st;
    u64 delta;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
    st = kd_tstate_find(tid);
    if (!st || !st->softirq_ts) {
        return 0;
    }
    delta = bpf_ktime_get_ns() - st->softirq_ts;
#if KD_WITH_STATS
    struct kd_softirq_key key = {};
    struct kd_stat zero = {};
    struct kd_stat *stat;

    key.tid = tid;
    key.vec = st->softirq_vec;
    stat = softirqs.lookup_or_try_init(&key, &zero);
    if (stat) {
        kd_stat_add(stat, delta);
    } else {
        kd_map_full(KD_MAP_SOFTIRQS);
    }
#endif
#if KD_WITH_ACCT
    /* Net of the hard IRQs that interrupted it, counted on their own. */
    u64 nested = st->acct.v[KD_ACCT_HARDIRQ] - st->softirq_hardirq;

    st->acct.v[KD_ACCT_SOFTIRQ] += delta > nested ? delta - nested : 0;
#endif
#if KD_WITH_TRACE
    struct kd_trace_rec *rec = kd_trace_rec(tid, KD_TRACE_SOFTIRQ,
                                            st->softirq_ts + delta);

    if (rec) {
        rec->dur = delta;
        rec->arg = st->softirq_vec;
    }
#endif
    st->softirq_ts = 0;
    return 0;
}

/*
 * Start and stop triggers.  The trigger programs have fixed names; user
 * space attaches them to whatever the user asked for.
 */
#if KD_WITH_EVENTS
static __always_inline int
kd_send_event(u32 id, u64 now)
{
    struct kd_event *event = kd_event_reserve(id, now);

    if (!event) {
        return -1;
    }
    events.ringbuf_submit(event, 0);
    return 0;
}
#endif

#if KD_WITH_START_TRIGGER
int
kd_start_trigger_probe(void *ctx)
{
    int key = 0;
    u64 *on = capture_on.lookup(&key);
    u64 now = bpf_ktime_get_ns();

    if (!on) {
        return 0;
    }
    /* Only an armed sample starts, and only once, whatever CPU races.  A
     * trigger before the first arming is no missed sample: it fired while
     * kernel_delay was still attaching. */
    if (__sync_val_compare_and_swap(on, KD_CAPTURE_IDLE, KD_CAPTURE_ON)
        != KD_CAPTURE_IDLE) {
        if (*on == KD_CAPTURE_STOPPED) {
            counters.increment(KD_COUNTER_TRIGGERS_MISSED);
        }
        return 0;
    }
    if (kd_send_event(KD_EVENT_START_TRIGGER, now)) {
        /* User space would never learn that the sample started. */
        *on = KD_CAPTURE_IDLE;
        counters.increment(KD_COUNTER_TRIGGERS_MISSED);
    }
    return 0;
}
#endif

#if KD_WITH_STOP_TRIGGER
int
kd_stop_trigger_probe(void *ctx)
{
    int key = 0;
    u64 *on = capture_on.lookup(&key);
    u64 now = bpf_ktime_get_ns();

    if (!on || __sync_val_compare_and_swap(on, KD_CAPTURE_ON,
                                           KD_CAPTURE_STOPPED)
               != KD_CAPTURE_ON) {
        return 0;
    }
    kd_send_event(KD_EVENT_STOP_TRIGGER, now);
    return 0;
}
#endif

/*
 * Upcall statistics: how ovs_dp_upcall() of the openvswitch kernel module
 * returns, per CPU: key 0 for success, else the errno.  Only compiled in
 * when the kernel can trace that function (kprobes, module loaded).
 */
#if KD_WITH_UPCALL_STATS
BPF_PERCPU_HASH(upcall_count, u64, u64, 256);

/* The return value is read at its BTF offset in struct pt_regs, not with
 * PT_REGS_RC(): without kernel headers, struct pt_regs is only declared
 * here.  ovs_dp_upcall() returns an int, the register's low half. */
int
kd_upcall_return(void *ctx)
{
    u64 rc = 0;
    int ret;
    u64 key;
    u64 zero = 0;
    u64 *count;

    if (!kd_capturing()) {
        return 0;
    }
    bpf_probe_read_kernel(&rc, sizeof rc, ctx + KD_OFF_REGS_RC);
    ret = (int) rc;
    key = ret >= 0 ? 0 : -ret;
    count = upcall_count.lookup_or_try_init(&key, &zero);
    if (count) {
        *count += 1;
    }
    return 0;
}
#endif

/*
 * The unwinder (KD_WITH_UNWIND; see kd_uw_begin()).
 */
#if KD_WITH_UNWIND
/* Where a signal frame keeps the interrupted registers, from the stack
 * pointer at the signal trampoline: x86_64's struct rt_sigframe without
 * its return address (uc_mcontext of its ucontext, at 40: rbp, rsp and
 * rip at 80, 120 and 128 of it), arm64's (uc_mcontext.regs of its
 * ucontext, after siginfo: x29, x30, sp and pc at 232 to 256 of it). */
#if KD_UW_ARM64
#define KD_UW_SIG_REGS      312
#define KD_UW_SIG_FP        (KD_UW_SIG_REGS + 29 * 8)
#define KD_UW_SIG_LR        (KD_UW_SIG_REGS + 30 * 8)
#define KD_UW_SIG_SP        (KD_UW_SIG_REGS + 31 * 8)
#define KD_UW_SIG_PC        (KD_UW_SIG_REGS + 32 * 8)
/* A return address without its pointer authentication code. */
#define KD_UW_RA_MASK       0x0000ffffffffffffULL
#else
#define KD_UW_SIG_FP        (40 + 80)
#define KD_UW_SIG_LR        0
#define KD_UW_SIG_SP        (40 + 120)
#define KD_UW_SIG_PC        (40 + 128)
#define KD_UW_RA_MASK       0xffffffffffffffffULL
#endif

/* Ends the walk of 's' for reason 'end' (enum kd_uw_end): 1. */
static __always_inline int
kd_uw_end(struct kd_uw_state *s, u32 end)
{
    s->stack.end = end;
    return 1;
}

/* Reads the u64 of the task's user memory at 'addr' into '*v', and logs
 * the read in 's' for the cache (a walk with more reads, or one that
 * fails, is no cache). */
static __always_inline bool
kd_uw_read(struct kd_uw_state *s, u64 addr, u64 *v)
{
    u32 n = s->nreads;

    if (bpf_probe_read_user(v, sizeof *v, (void *) addr)) {
        return false;
    }
    if (n < KD_UW_LOG) {
        s->raddr[n & (KD_UW_LOG - 1)] = addr;
        s->rval[n & (KD_UW_LOG - 1)] = *v;
    }
    s->nreads = n + 1;
    return true;
}

/* The row of the table of mapping 'm' that applies at 'pc', into 'row'
 * (left KD_UW_CFA_NONE where there is none). */
static __always_inline void
kd_uw_find_row(const struct kd_uw_map *m, u64 pc, struct kd_uw_row *row)
{
    u64 rel = pc - m->bias;
    u64 page = (rel >> KD_UW_PAGE_SHIFT) - m->page_lo;
    u32 off = rel & ((1 << KD_UW_PAGE_SHIFT) - 1);
    struct kd_uw_shard *shard;
    struct kd_uw_page *p;
    u32 index, lo, hi;

    if (page >= m->n_pages) {
        return;
    }
    index = m->page_base + (u32) page;
    p = uw_pages.lookup(&index);
    if (!p || !p->count) {
        return;
    }
    index = p->first >> KD_UW_SHARD_SHIFT;
    shard = uw_rows.lookup(&index);
    if (!shard) {
        return;
    }
    /* The last row of the page at or before 'off': its first row is at
     * the page's start. */
    lo = p->first & (KD_UW_SHARD_ROWS - 1);
    hi = lo + p->count;
    for (int i = 0; i < KD_UW_BISECT; i++) {
        u32 mid = lo + (hi - lo) / 2;
        struct kd_uw_row *r;

        if (lo + 1 >= hi) {
            break;
        }
        r = (struct kd_uw_row *) (shard->raw
                                  + (mid & (KD_UW_SHARD_ROWS - 1))
                                    * sizeof *r);
        if (r->off <= off) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    __builtin_memcpy(row, shard->raw + (lo & (KD_UW_SHARD_ROWS - 1))
                                       * sizeof *row, sizeof *row);
}

/* The caller of a signal handler: the registers the signal interrupted,
 * from the signal frame at the stack pointer. */
static __always_inline int
kd_uw_signal(struct kd_uw_state *s)
{
    u64 pc, sp, fp, lr = 0;

    if (!kd_uw_read(s, s->sp + KD_UW_SIG_PC, &pc)
        || !kd_uw_read(s, s->sp + KD_UW_SIG_SP, &sp)
        || !kd_uw_read(s, s->sp + KD_UW_SIG_FP, &fp)
        || (KD_UW_ARM64 && !kd_uw_read(s, s->sp + KD_UW_SIG_LR, &lr))) {
        return kd_uw_end(s, KD_UW_END_READ);
    }
    s->pc = pc;
    s->sp = sp;
    s->fp = fp;
    s->lr = lr;
    s->exact = 1;
    return 0;
}

/* Moves 's' from the frame at s->pc to its caller's by 'row': 0, or 1
 * when the walk is over (s->stack.end says why). */
static __always_inline int
kd_uw_caller(struct kd_uw_state *s, const struct kd_uw_row *row, bool cfi)
{
    u64 cfa, ra = 0, fp = s->fp;
    u8 fp_rule = row->regs & 0xf;
    bool ra_in_lr = (row->regs >> 4) == KD_UW_RA_LR;
    s32 ra_off = row->ra_off;

    switch (row->cfa) {
    case KD_UW_CFA_SP:
        cfa = s->sp + row->cfa_off;
        break;
    case KD_UW_CFA_FP:
        if (!s->fp) {
            return kd_uw_end(s, KD_UW_END_BAD_FRAME);
        }
        cfa = s->fp + row->cfa_off;
        break;
    case KD_UW_CFA_PLT:
        cfa = s->sp + 8 + ((s->pc & 15) >= (u32) row->cfa_off ? 8 : 0);
        break;
    case KD_UW_CFA_SIGNAL:
        return kd_uw_signal(s);
    case KD_UW_CFA_END:
        return 1;
    default:
        /* No CFI here.  In a mapping without tables (code made at run
         * time, a file without CFI), the frame pointer: the caller's FP
         * and the return address are saved at FP, the CFA above them.  In
         * one with tables, the FP need not be one: cut. */
        if (cfi || !s->fp || s->fp < s->sp) {
            return kd_uw_end(s, KD_UW_END_NO_CFI);
        }
        cfa = s->fp + 16;
        fp_rule = KD_UW_FP_AT;
        ra_in_lr = false;
        ra_off = -8;
        if (!kd_uw_read(s, s->fp, &fp)) {
            return kd_uw_end(s, KD_UW_END_READ);
        }
        break;
    }
    /* The stack grows down: a caller's frame is above (on arm64, a leaf
     * that saved nothing may share its caller's). */
    if (cfa < s->sp || (cfa == s->sp && !ra_in_lr)) {
        return kd_uw_end(s, KD_UW_END_BAD_FRAME);
    }
    if (ra_in_lr) {
        /* Valid in the first frame, or after a signal frame, only. */
        if (!s->exact || !s->lr) {
            return kd_uw_end(s, KD_UW_END_BAD_FRAME);
        }
        ra = s->lr;
    } else if (!kd_uw_read(s, cfa + ra_off, &ra)) {
        return kd_uw_end(s, KD_UW_END_READ);
    }
    if (fp_rule == KD_UW_FP_AT && row->cfa != KD_UW_CFA_NONE
        && !kd_uw_read(s, cfa + row->fp_off, &fp)) {
        return kd_uw_end(s, KD_UW_END_READ);
    }
    if (fp_rule == KD_UW_FP_LOST) {
        fp = 0;
    }
    s->pc = ra & KD_UW_RA_MASK;
    s->sp = cfa;
    s->fp = fp;
    s->lr = 0;
    s->exact = 0;
    return 0;
}

/* The mapping that holds 'pc', or NULL: the last one found by the walk
 * first, else looked up. */
static __always_inline struct kd_uw_map *
kd_uw_find_map(struct kd_uw_state *s, u64 pc)
{
    struct kd_uw_map_key key = { .prefixlen = 64 };
    u64 be = __builtin_bswap64(pc);
    struct kd_uw_map *m;

    if (pc >= s->map.start && pc < s->map.end) {
        return &s->map;
    }
    __builtin_memcpy(key.addr, &be, sizeof key.addr);
    m = uw_maps.lookup(&key);
    if (!m) {
        return NULL;
    }
    __builtin_memcpy(&s->map, m, sizeof s->map);
    return &s->map;
}

/* One frame: keeps s->pc and moves to its caller.  Returns 0, or 1 when
 * the walk is over (s->stack.end says why).  An address that no mapping
 * holds is kept only as the first frame: any other came from a rule that
 * did not hold, and would be a made-up frame. */
static __always_inline int
kd_uw_step(struct kd_uw_state *s)
{
    struct kd_ustack *k = &s->stack;
    struct kd_uw_row row = { .cfa = KD_UW_CFA_NONE };
    struct kd_uw_map *m;
    u64 pc = s->pc;
    u32 n = k->len;

    if (!pc) {
        return 1;
    }
    m = kd_uw_find_map(s, pc);
    if (!m && n) {
        counters.increment(KD_COUNTER_UNWIND_NO_MAP);
        return kd_uw_end(s, KD_UW_END_NO_MAP);
    }
    if (n >= KD_UW_DEPTH) {
        return kd_uw_end(s, KD_UW_END_DEPTH);
    }
    k->pcs[n & KD_UW_DEPTH] = pc;
    k->len = n + 1;
    k->hash = (k->hash ^ pc) * 0x100000001b3ULL;
    k->hash ^= k->hash >> 29;
    if (!m) {
        counters.increment(KD_COUNTER_UNWIND_NO_MAP);
        return kd_uw_end(s, KD_UW_END_NO_MAP);
    }
    if (m->n_pages) {
        /* A return address may follow a call that ends its function. */
        kd_uw_find_row(m, s->exact ? pc : pc - 1, &row);
    }
    return kd_uw_caller(s, &row, m->n_pages != 0);
}

/* The id of the stack of 's' in a map of 'ids' entries (a power of
 * two): the bucket its hash falls in, as a stack map's. */
static __always_inline u32
kd_uw_id(struct kd_uw_state *s, u32 ids)
{
    return s->stack.hash & (ids - 1);
}

/* The id under which the stack of 's' is kept, 'old' being what that
 * bucket holds: -EEXIST when another stack took it (lost, as in a stack
 * map). */
static __always_inline s32
kd_uw_kept(const struct kd_uw_state *s, const struct kd_ustack *old, u32 id)
{
    return old && old->hash == s->stack.hash ? (s32) id : -17;
}

#if KD_WITH_SYSCALL_EVENTS && KD_WITH_STACKS
/* Keeps the stack of 's' in user_stack_traces: returns its id. */
static __always_inline s32
kd_uw_keep_event(struct kd_uw_state *s)
{
    u32 id = kd_uw_id(s, KD_STACK_TRACES_IDS);
    struct kd_ustack *old = user_stack_traces.lookup(&id);

    if (!old) {
        user_stack_traces.insert(&id, &s->stack);
        old = user_stack_traces.lookup(&id);
    }
    return kd_uw_kept(s, old, id);
}
#endif

#if KD_WITH_PROFILE || KD_WITH_BLOCKED
/* Keeps the stack of 's' in profile_user_stacks: returns its id. */
static __always_inline s32
kd_uw_keep_profile(struct kd_uw_state *s)
{
    u32 id = kd_uw_id(s, KD_PROFILE_STACKS_IDS);
    struct kd_ustack *old = profile_user_stacks.lookup(&id);

    if (!old) {
        profile_user_stacks.insert(&id, &s->stack);
        old = profile_user_stacks.lookup(&id);
    }
    return kd_uw_kept(s, old, id);
}
#endif

/* Whether the walk 's' begins is the last one of its kind again (see
 * struct kd_uw_state): the same registers, tables and reads. */
static __always_inline bool
kd_uw_cache_hit(struct kd_uw_state *s)
{
    if (!s->cached || s->cgen != s->gen || s->cpc != s->pc
        || s->csp != s->sp || s->cfp != s->fp || s->clr != s->lr) {
        return false;
    }
    for (int i = 0; i < KD_UW_LOG; i++) {
        u64 v;

        if (i >= s->nreads) {
            break;
        }
        if (bpf_probe_read_user(&v, sizeof v, (void *) s->raddr[i])
            || v != s->rval[i]) {
            return false;
        }
    }
    return true;
}

/* The walk of 's', of 'kind', is over: keeps its stack, does what the
 * program that began it left to do, and pops it off the CPU's walks.  A
 * walk just made ('walked') becomes the cache of its kind, if it can. */
static __always_inline void
kd_uw_done(struct kd_uw_state *s, u32 kind, bool walked)
{
    u32 end = s->stack.end < KD_UW_N_ENDS ? s->stack.end : KD_UW_END_DEPTH;
    struct kd_uw_stack *st;
    int zero = 0;
    s32 id = -1;

    if (walked) {
        struct kd_ustack *k = &s->stack;

        k->hash = (k->hash ^ (k->len | ((u64) k->end << 32)))
                  * 0x100000001b3ULL;
        k->hash ^= k->hash >> 32;
        s->cached = k->len && end != KD_UW_END_READ
                    && s->nreads <= KD_UW_LOG;
        s->cpc = s->pc0;
        s->csp = s->sp0;
        s->cfp = s->fp0;
        s->clr = s->lr0;
        s->cgen = s->gen;
    }
    uw_ends.increment(end);
#if KD_WITH_SYSCALL_EVENTS && KD_WITH_STACKS
    if (kind == KD_UW_FOR_SYSCALL) {
        struct kd_event *event;

        if (s->stack.len) {
            id = kd_uw_keep_event(s);
        }
        event = events.ringbuf_reserve(sizeof *event);
        if (event) {
            __builtin_memcpy(event, &s->event, sizeof *event);
            event->user_stack_id = id;
            events.ringbuf_submit(event, kd_rb_wakeup_flags());
        } else {
            counters.increment(KD_COUNTER_EVENTS_DROPPED);
        }
    }
#endif
#if KD_WITH_PROFILE || KD_WITH_BLOCKED
    if (kind != KD_UW_FOR_SYSCALL && s->stack.len) {
        id = kd_uw_keep_profile(s);
    }
#endif
#if KD_WITH_PROFILE
    if (kind == KD_UW_FOR_PROFILE) {
        s->key.user_stack_id = id;
        kd_profile_count(&s->key);
    }
#endif
#if KD_WITH_BLOCKED
    if (kind == KD_UW_FOR_SLEEP || kind == KD_UW_FOR_WAKER) {
        u32 tid = s->tid;
        struct kd_tstate_gap *g = (struct kd_tstate_gap *) tstate.lookup(&tid);

        if (g && kind == KD_UW_FOR_SLEEP) {
            g->block.user_stack_id = id;
        } else if (g) {
            g->block.waker_user_stack_id = id;
        }
    }
#endif
    st = uw_stack.lookup(&zero);
    if (st && st->depth) {
        st->depth--;
    }
}

/* The unwinder, on the walk this CPU began last: first the cache, else
 * KD_UW_FRAMES frames.  Returns true when it must run again, for more
 * (the caller tail-calls it: each kind of program has its own program
 * array, and none may name another's); else the walk is over, and done
 * (in one place: the verifier walks each copy of what is inlined). */
static __always_inline bool
kd_uw_run(void)
{
    struct kd_uw_state *s;
    bool over = false, walked = true;
    u32 kind = 0;

    s = kd_uw_current(&kind);
    if (!s) {
        return false;
    }
    if (!s->calls) {
        if (kd_uw_cache_hit(s)) {
            over = true;
            walked = false;
        } else {
            s->pc0 = s->pc;
            s->sp0 = s->sp;
            s->fp0 = s->fp;
            s->lr0 = s->lr;
            s->cached = 0;
            s->nreads = 0;
            s->exact = 1;
            s->map.end = 0;
            s->stack.hash = 0xcbf29ce484222325ULL;
            s->stack.len = 0;
            s->stack.end = KD_UW_END_WHOLE;
        }
    }
    for (int i = 0; i < KD_UW_FRAMES; i++) {
        if (over) {
            break;
        }
        over = kd_uw_step(s);
    }
    if (!over) {
        if (s->calls < KD_UW_CALLS) {
            s->calls++;
            return true;
        }
        kd_uw_end(s, KD_UW_END_DEPTH);
    }
    kd_uw_done(s, kind, walked);
    return false;
}

/* A tail call to the unwinder failed (never once it is in its program
 * array, and the calls are fewer than the kernel allows): the walk this
 * CPU began last is dropped, and counted as a walk with no stack; what it
 * was for is lost. */
static __always_inline void
kd_uw_failed(void)
{
    struct kd_uw_stack *st;
    int zero = 0;
    u32 kind = 0;
    struct kd_uw_state *s = kd_uw_current(&kind);

    if (s) {
        s->cached = 0;
    }
    uw_ends.increment(KD_UW_END_NO_REGS);
    st = uw_stack.lookup(&zero);
    if (st && st->depth) {
        st->depth--;
    }
}

#if KD_WITH_PROFILE
int
kd_uw_profile(struct bpf_perf_event_data *ctx)
{
    if (kd_uw_run()) {
        uw_perf_progs.call(ctx, 0);
        kd_uw_failed();
    }
    return 0;
}
#endif

#if KD_WITH_BLOCKED || (KD_WITH_SYSCALL_EVENTS && KD_WITH_STACKS)
int
kd_uw_raw(struct bpf_raw_tracepoint_args *ctx)
{
    if (kd_uw_run()) {
        uw_progs.call(ctx, 0);
        kd_uw_failed();
    }
    return 0;
}
#endif
#endif
