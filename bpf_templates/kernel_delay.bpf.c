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
#define KD_OFF_REGS_RC      @OFF_PT_REGS_RC@
#define KD_SYSCALL_POLL     @SYSCALL_POLL@
#define KD_MAX_THREADS      @MAX_THREADS@
#define KD_MAX_SYSCALLS     @MAX_SYSCALL_ENTRIES@
#define KD_MAX_IRQS         @MAX_IRQ_ENTRIES@

/* Scheduler and interrupt constants; part of the kernel's stable ABI. */
#define KD_TASK_RUNNING     0x0000
#define KD_TASK_STOPPED     0x0004
#define KD_IRQ_NONE         0

BPF_ARRAY(capture_on, u64, 1);
BPF_PERCPU_ARRAY(map_full, u64, KD_N_FULL_MAPS);
BPF_PERCPU_ARRAY(counters, u64, KD_N_COUNTERS);
BPF_HASH(tstate, u32, struct kd_tstate, KD_MAX_THREADS);
BPF_HASH(tstats, u32, struct kd_tstats, KD_MAX_THREADS);
BPF_HASH(syscalls, struct kd_syscall_key, struct kd_stat, KD_MAX_SYSCALLS);
BPF_HASH(hardirqs, struct kd_hardirq_key, struct kd_stat, KD_MAX_IRQS);
BPF_HASH(softirqs, struct kd_softirq_key, struct kd_stat, KD_MAX_IRQS);
BPF_HASH(names, u32, struct kd_name, KD_MAX_THREADS);
#if @WITH_HISTOGRAMS@
BPF_HASH(hists, struct kd_hist_key, u64, @MAX_HIST_ENTRIES@);
#endif

#if @WITH_EVENTS@
BPF_RINGBUF_OUTPUT(events, @BUFFER_PAGE_COUNT@);

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

#if @WITH_SYSCALL_EVENTS@
#if @WITH_STACKS@
BPF_STACK_TRACE(stack_traces, @STACK_TRACE_SIZE@);
#endif

/* Syscall events wake the reader up once every KD_RB_WAKEUP_EVENTS per
 * CPU, not for each event: flags 0 wakes it whenever it has caught up, so
 * a fast reader costs the traced thread an irq_work, and itself a context
 * switch, per syscall.  The rest it finds at its periodic wake-up (every
 * 100 ms at most) or when the sample ends; user space sizes the interval
 * so that the CPUs' pending events fill at most a quarter of the buffer. */
#define KD_RB_WAKEUP_EVENTS @RB_WAKEUP_EVENTS@
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

    u64 min_ns = @SYSCALL_EVENTS_MIN_NS@;

    /* As the reference: "-s N" keeps syscalls longer than N ns, "-s"
     * keeps them all. */
    if ((min_ns && now - entry_ts <= min_ns)
        || (@SKIP_POLL_EVENTS@ && nr == KD_SYSCALL_POLL)) {
        return;
    }
    event = kd_event_reserve(KD_EVENT_SYSCALL, now);
    if (!event) {
        return;
    }
    event->entry_ts = entry_ts;
    event->syscall = nr;
#if @WITH_STACKS@
    event->user_stack_id = stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
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

static __always_inline struct kd_tstate *
kd_tstate_get(u32 tid)
{
    struct kd_tstate zero = {};
    struct kd_tstate *st = tstate.lookup_or_try_init(&tid, &zero);

    if (!st) {
        kd_map_full(KD_MAP_TSTATE);
    }
    return st;
}

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
#if @WITH_HISTOGRAMS@
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
kd_task_state(void *task)
{
    u64 state = 0;

    bpf_probe_read_kernel(&state, KD_SIZE_TASK_STATE,
                          task + KD_OFF_TASK_STATE);
    return state;
}

/*
 * Syscalls.
 */
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
    st->syscall_ts = now;

    /* Long poll: the time from the return of one poll() to the start of
     * the next one. */
    if (ctx->args[1] == KD_SYSCALL_POLL && st->poll_ts) {
        struct kd_tstats *stats = kd_tstats_get(tid);

        if (stats) {
            kd_stat_add(&stats->poll, now - st->poll_ts);
        }
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

    struct kd_syscall_key key = {};
    struct kd_stat zero = {};
    struct kd_tstate *st;
    struct kd_stat *stat;
    u64 now = bpf_ktime_get_ns();
    u64 nr = 0;

    /* The syscall number as the kernel's syscall_get_nr() sees it. */
    bpf_probe_read_kernel(&nr, sizeof nr,
                          (void *) ctx->args[0] + KD_OFF_SYSCALL_NR);

    st = kd_tstate_get(tid);
    if (!st) {
        return 0;
    }
    if (nr == KD_SYSCALL_POLL) {
        st->poll_ts = now;
    }
    if (!st->syscall_ts) {
        return 0;
    }

    key.tid = tid;
    key.nr = nr;
    stat = syscalls.lookup_or_try_init(&key, &zero);
    if (stat) {
        kd_stat_add(stat, now - st->syscall_ts);
    } else {
        kd_map_full(KD_MAP_SYSCALLS);
    }
    kd_hist_add(tid, nr, now - st->syscall_ts);
#if @WITH_SYSCALL_EVENTS@
    kd_syscall_event(ctx, nr, st->syscall_ts, now);
#endif
    st->syscall_ts = 0;
    return 0;
}

/*
 * Scheduler: run, ready (run-queue wait) and stopped time.
 */
static __always_inline void
kd_wakeup(void *task)
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
    st->ready_ts = now;

    /* A stopped thread ends its stop when SIGCONT wakes it up. */
    if (st->stop_ts) {
        struct kd_tstats *stats = kd_tstats_get(tid);

        if (stats) {
            kd_stat_add(&stats->stop, now - st->stop_ts);
        }
        st->stop_ts = 0;
    }
}

RAW_TRACEPOINT_PROBE(sched_wakeup)
{
    kd_wakeup((void *) ctx->args[0]);
    return 0;
}

RAW_TRACEPOINT_PROBE(sched_wakeup_new)
{
    kd_wakeup((void *) ctx->args[0]);
    return 0;
}

/* TP_PROTO(bool preempt, struct task_struct *prev,
 *          struct task_struct *next, ...).  When it fires, 'current' is
 * still 'prev'. */
RAW_TRACEPOINT_PROBE(sched_switch)
{
    u64 prev_pid_tgid = bpf_get_current_pid_tgid();
    void *next = (void *) ctx->args[2];
    struct kd_tstats *stats;
    struct kd_tstate *st;
    bool prev_ours = (prev_pid_tgid >> 32) == KD_TGID;
    bool next_ours;
    u64 now = 0;

    next_ours = kd_task_u32(next, KD_OFF_TASK_TGID) == KD_TGID;
    if ((!prev_ours && !next_ours) || !kd_capturing()) {
        return 0;
    }
    now = bpf_ktime_get_ns();

    if (prev_ours) {
        u32 tid = (u32) prev_pid_tgid;
        u64 state = kd_task_state((void *) ctx->args[1]);

        st = kd_tstate_get(tid);
        if (st) {
            /* Still runnable (preempted, or yielding): it now waits in
             * the run queue.  Stopped: it waits for SIGCONT. */
            if (ctx->args[0] || state == KD_TASK_RUNNING) {
                st->ready_ts = now;
            } else if (state & KD_TASK_STOPPED) {
                st->stop_ts = now;
            }
            if (st->run_ts) {
                stats = kd_tstats_get(tid);
                if (stats) {
                    kd_stat_add(&stats->run, now - st->run_ts);
                }
                kd_hist_add(tid, KD_HIST_RUN, now - st->run_ts);
                st->run_ts = 0;
            } else if (st->flags & KD_TSTATE_SWITCHED) {
                /* Its switch in was not seen. */
                counters.increment(KD_COUNTER_SWITCHES_MISSED);
            }
            st->flags |= KD_TSTATE_SWITCHED;
        }
    }

    if (next_ours) {
        u32 tid = kd_task_u32(next, KD_OFF_TASK_PID);

        st = kd_tstate_get(tid);
        if (st) {
            if (st->ready_ts) {
                stats = kd_tstats_get(tid);
                if (stats) {
                    kd_stat_add(&stats->ready, now - st->ready_ts);
                }
                kd_hist_add(tid, KD_HIST_READY, now - st->ready_ts);
                st->ready_ts = 0;
            }
            if (st->run_ts) {
                /* Its last switch out was not seen. */
                counters.increment(KD_COUNTER_SWITCHES_MISSED);
            }
            st->flags |= KD_TSTATE_SWITCHED;
            st->run_ts = now;
        }
    }
    return 0;
}

/* Keeps the name of every thread of the target that exits, so that the
 * report can name threads that are gone. */
RAW_TRACEPOINT_PROBE(sched_process_exit)
{
    struct kd_name name = {};
    u64 pid_tgid = bpf_get_current_pid_tgid();
    u32 tid = (u32) pid_tgid;

    if ((pid_tgid >> 32) != KD_TGID) {
        return 0;
    }
    bpf_get_current_comm(&name.comm, sizeof name.comm);
    if (names.update(&tid, &name)) {
        kd_map_full(KD_MAP_NAMES);
    }
    return 0;
}

/*
 * Hard interrupts, charged to the target thread they interrupted.
 * TP_PROTO(int irq, struct irqaction *action[, int ret]).
 */
RAW_TRACEPOINT_PROBE(irq_handler_entry)
{
    struct kd_tstate *st;
    const char *name = NULL;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
    st = kd_tstate_get(tid);
    if (!st) {
        return 0;
    }
    bpf_probe_read_kernel(&name, sizeof name,
                          (void *) ctx->args[1] + KD_OFF_IRQ_NAME);
    __builtin_memset(st->hardirq_name, 0, sizeof st->hardirq_name);
    bpf_probe_read_kernel_str(st->hardirq_name, sizeof st->hardirq_name,
                              name);
    st->hardirq_ts = bpf_ktime_get_ns();
    return 0;
}

RAW_TRACEPOINT_PROBE(irq_handler_exit)
{
    struct kd_hardirq_key key = {};
    struct kd_stat zero = {};
    struct kd_tstate *st;
    struct kd_stat *stat;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
    st = tstate.lookup(&tid);
    if (!st || !st->hardirq_ts) {
        return 0;
    }
    if ((int) ctx->args[2] != KD_IRQ_NONE) {
        key.tid = tid;
        __builtin_memcpy(key.name, st->hardirq_name, sizeof key.name);
        stat = hardirqs.lookup_or_try_init(&key, &zero);
        if (stat) {
            kd_stat_add(stat, bpf_ktime_get_ns() - st->hardirq_ts);
        } else {
            kd_map_full(KD_MAP_HARDIRQS);
        }
    }
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
    st->softirq_ts = bpf_ktime_get_ns();
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_exit)
{
    struct kd_softirq_key key = {};
    struct kd_stat zero = {};
    struct kd_tstate *st;
    struct kd_stat *stat;
    u32 tid;

    if (!kd_current_captured(&tid)) {
        return 0;
    }
    st = tstate.lookup(&tid);
    if (!st || !st->softirq_ts) {
        return 0;
    }
    key.tid = tid;
    key.vec = st->softirq_vec;
    stat = softirqs.lookup_or_try_init(&key, &zero);
    if (stat) {
        kd_stat_add(stat, bpf_ktime_get_ns() - st->softirq_ts);
    } else {
        kd_map_full(KD_MAP_SOFTIRQS);
    }
    st->softirq_ts = 0;
    return 0;
}

/*
 * Start and stop triggers.  The trigger programs have fixed names; user
 * space attaches them to whatever the user asked for.
 */
#if @WITH_EVENTS@
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

#if @WITH_START_TRIGGER@
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

#if @WITH_STOP_TRIGGER@
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
#if @WITH_UPCALL_STATS@
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
