/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* A long poll interval and its thread's history as a Perfetto trace. */

#include "trace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gap.h"
#include "json.h"
#include "names.h"
#include "syscalls.h"
#include "util.h"

/* A thread's state, as its track shows it. */
enum kd_trace_state {
    KD_TS_NONE,                 /* Not known (before its first record). */
    KD_TS_RUNNING,
    KD_TS_RUNNABLE,
    KD_TS_ASLEEP,
    KD_TS_STOPPED,
};

static const char *const kd_ts_keys[] = {
    "none", "running", "runnable", "asleep", "stopped",
};

/* A state slice, kept until the end: a sleep's stacks come with the
 * switch in that ends its wait. */
struct kd_trace_slice {
    enum kd_trace_state state;
    uint64_t ts, end;
    uint32_t cpu;
    int64_t nr;                 /* Asleep: in syscall 'nr', or -1. */
    int32_t ustack, kstack;
};

/* A task seen waking the thread, for its track's name. */
struct kd_trace_task {
    uint32_t pid, tid;
    char comm[KD_COMM_LEN + 1];
};

/* The writer's state, as it goes through the records. */
struct kd_trace_w {
    const struct kd_trace_input *in;
    struct kd_ds *ev;           /* The events written so far. */
    bool first;
    uint32_t pid, tid;
    uint64_t end;

    struct kd_trace_slice cur;  /* The state going on ('ts' its start). */
    struct kd_trace_slice *slices;
    size_t n_slices;

    struct kd_trace_rec *ran;   /* Who held the CPU in the wait going on. */
    size_t n_ran;

    bool in_sys;                /* The syscall going on, since. */
    uint32_t sys_nr;
    uint64_t sys_ts;

    bool waker;                 /* The waker of the wake-up to come. */
    struct kd_trace_rec waker_rec;
    uint64_t flows;

    struct kd_trace_task *tasks;
    size_t n_tasks;
};

/* 'ns' as the format's microseconds, to the nanosecond. */
static void
kd_trace_us(struct kd_ds *ds, uint64_t ns)
{
    kd_ds_put_format(ds, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

/* Begins an event of phase 'ph' on track (pid, tid), named 'name', at
 * 'ts': the caller writes the rest and the closing brace. */
static void
kd_trace_begin(struct kd_trace_w *w, const char *ph, uint32_t pid,
               uint32_t tid, const char *cat, const char *name, uint64_t ts)
{
    struct kd_ds *ds = w->ev;

    kd_json_next(ds, &w->first);
    kd_ds_put_format(ds, "\n{\"ph\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%"
                     PRIu32 ",\"cat\":\"%s\",\"name\":", ph, pid, tid, cat);
    kd_json_string(ds, name);
    kd_ds_put_cstr(ds, ",\"ts\":");
    kd_trace_us(ds, ts);
}

/* A complete slice ("X") from 'ts' to 'end': the caller writes its
 * args, if any, and the closing brace. */
static void
kd_trace_slice(struct kd_trace_w *w, uint32_t pid, uint32_t tid,
               const char *cat, const char *name, uint64_t ts, uint64_t end)
{
    kd_trace_begin(w, "X", pid, tid, cat, name, ts);
    kd_ds_put_cstr(w->ev, ",\"dur\":");
    kd_trace_us(w->ev, end > ts ? end - ts : 0);
}

/* Metadata: the name of a process, or of a thread, and its place. */
static void
kd_trace_meta(struct kd_trace_w *w, const char *what, uint32_t pid,
              uint32_t tid, const char *name, int sort)
{
    struct kd_ds *ds = w->ev;

    kd_json_next(ds, &w->first);
    kd_ds_put_format(ds, "\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%"
                     PRIu32 ",\"name\":\"%s_name\",\"args\":{\"name\":",
                     pid, tid, what);
    kd_json_string(ds, name);
    kd_ds_put_cstr(ds, "}}");
    if (sort >= 0) {
        kd_json_next(ds, &w->first);
        kd_ds_put_format(ds, "\n{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%"
                         PRIu32 ",\"name\":\"%s_sort_index\",\"args\":"
                         "{\"sort_index\":%d}}", pid, tid, what, sort);
    }
}

/* The frames of a stack pair, as args member "KEY":[...], if any. */
static void
kd_trace_frames(struct kd_trace_w *w, const char *key, int32_t kstack,
                int32_t ustack, bool tracepoint)
{
    const struct kd_trace_stacks *s = w->in->stacks;
    char **v = NULL;
    size_t n;

    if (!s || (kstack < 0 && ustack < 0)) {
        return;
    }
    n = s->frames(s->aux, kstack, ustack, tracepoint, &v);
    kd_ds_put_format(w->ev, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) {
        if (i) {
            kd_ds_put_char(w->ev, ',');
        }
        kd_json_string(w->ev, v[i]);
        free(v[i]);
    }
    kd_ds_put_char(w->ev, ']');
    free(v);
}

/* A syscall's name: its table name, or "syscall_NR". */
static const char *
kd_trace_sys_name(int64_t nr, char *buf, size_t size)
{
    return kd_syscall_format((unsigned int) nr, buf, size);
}

/* Ends the state going on at 'ts' into the slices kept (one of no length
 * is dropped), and begins 'state' there on 'cpu'. */
static void
kd_trace_state(struct kd_trace_w *w, enum kd_trace_state state,
               uint64_t ts, uint32_t cpu, int64_t nr)
{
    if (w->cur.state != KD_TS_NONE && ts > w->cur.ts) {
        w->cur.end = ts;
        w->slices = kd_xreallocarray(w->slices, w->n_slices + 1,
                                     sizeof *w->slices);
        w->slices[w->n_slices++] = w->cur;
    }
    memset(&w->cur, 0, sizeof w->cur);
    w->cur.state = state;
    w->cur.ts = ts;
    w->cur.cpu = cpu;
    w->cur.nr = nr;
    w->cur.ustack = w->cur.kstack = -1;
}

/* The tasks that held the CPU in the wait that ends at 'end', each
 * within the wait and after the one before (their ends are read a little
 * after the switch that ends their turn). */
static void
kd_trace_ran_flush(struct kd_trace_w *w, uint64_t end)
{
    uint64_t from = w->cur.ts;

    for (size_t i = 0; i < w->n_ran; i++) {
        const struct kd_trace_rec *r = &w->ran[i];
        uint64_t e = r->ts < end ? r->ts : end;
        uint64_t s = e > r->dur ? e - r->dur : 0;
        bool known = r->pid != KD_TRACE_NOT_KNOWN;
        char name[KD_COMM_LEN + 64], comm[KD_COMM_LEN + 1];

        s = s > from ? s : from;
        if (e <= s) {
            continue;
        }
        kd_fixed_cstr(comm, r->comm, sizeof r->comm);
        if (known) {
            snprintf(name, sizeof name, "%s (TID %" PRIu32 ", PID %" PRIu32
                     ")", comm, r->arg, r->pid);
        } else {
            snprintf(name, sizeof name, "(not known)");
        }
        kd_trace_slice(w, w->pid, w->tid, "ran_instead", name, s, e);
        kd_ds_put_format(w->ev, ",\"args\":{\"cpu\":%" PRIu32, w->cur.cpu);
        if (known) {
            kd_ds_put_format(w->ev, ",\"tid\":%" PRIu32 ",\"pid\":%" PRIu32
                             ",\"name\":", r->arg, r->pid);
            kd_json_string(w->ev, comm);
        }
        kd_ds_put_cstr(w->ev, "}}");
        from = e;
    }
    w->n_ran = 0;
}

/* Remembers the waker of record 'r' for its track's name. */
static void
kd_trace_task_seen(struct kd_trace_w *w, const struct kd_trace_rec *r)
{
    struct kd_trace_task *t;

    for (size_t i = 0; i < w->n_tasks; i++) {
        if (w->tasks[i].pid == r->pid && w->tasks[i].tid == r->arg) {
            return;
        }
    }
    w->tasks = kd_xreallocarray(w->tasks, w->n_tasks + 1, sizeof *w->tasks);
    t = &w->tasks[w->n_tasks++];
    t->pid = r->pid;
    t->tid = r->arg;
    kd_fixed_cstr(t->comm, r->comm, sizeof r->comm);
}

/* A wake-up at 'ts': the waker's slice, on its own thread, and the flow
 * arrow from there to the wait that begins. */
static void
kd_trace_wakeup(struct kd_trace_w *w, uint64_t ts)
{
    const struct kd_trace_rec *r = &w->waker_rec;
    uint64_t id = ++w->flows;
    char name[KD_COMM_LEN + 64];

    w->waker = false;
    kd_trace_task_seen(w, r);
    snprintf(name, sizeof name, "wakes %s (TID %" PRIu32 ")",
             w->in->gap->name, w->tid);
    kd_trace_slice(w, r->pid, r->arg, "wakeup", name, r->ts, r->ts + 1000);
    kd_ds_put_format(w->ev, ",\"args\":{\"cpu\":%u}}", r->cpu);
    kd_trace_begin(w, "s", r->pid, r->arg, "wakeup", "wake-up", r->ts + 1);
    kd_ds_put_format(w->ev, ",\"id\":%" PRIu64 "}", id);
    kd_trace_begin(w, "f", w->pid, w->tid, "wakeup", "wake-up", ts + 1);
    kd_ds_put_format(w->ev, ",\"bp\":\"e\",\"id\":%" PRIu64 "}", id);
}

/* A hard or soft IRQ of record 'r', within the run going on. */
static void
kd_trace_irq(struct kd_trace_w *w, const struct kd_trace_rec *r)
{
    uint64_t s = r->ts > r->dur ? r->ts - r->dur : 0;
    char name[64], vec[32];

    if (w->cur.state == KD_TS_RUNNING && s < w->cur.ts) {
        s = w->cur.ts;
    }
    if (r->kind == KD_TRACE_HARDIRQ) {
        snprintf(name, sizeof name, "hard IRQ");
    } else {
        snprintf(name, sizeof name, "soft IRQ %s",
                 kd_names_softirq(r->arg, vec, sizeof vec));
    }
    kd_trace_slice(w, w->pid, w->tid, "irq", name, s, r->ts);
    kd_ds_put_format(w->ev, ",\"args\":{\"state\":\"%s\",\"cpu\":%u}}",
                     r->kind == KD_TRACE_HARDIRQ ? "hardirq" : "softirq",
                     r->cpu);
}

/* A syscall of the loop's track, from 'ts' to 'end'. */
static void
kd_trace_syscall(struct kd_trace_w *w, uint32_t nr, uint64_t ts,
                 uint64_t end)
{
    char name[32];

    if (end <= ts) {
        return;
    }
    kd_trace_slice(w, w->pid, w->tid + KD_TRACE_LOOP_TID, "syscall",
                   kd_trace_sys_name(nr, name, sizeof name), ts, end);
    kd_ds_put_format(w->ev, ",\"args\":{\"nr\":%" PRIu32 "}}", nr);
}

/* A profile sample of record 'r'. */
static void
kd_trace_sample(struct kd_trace_w *w, const struct kd_trace_rec *r)
{
    kd_trace_begin(w, "i", w->pid, w->tid, "sample", "on-CPU sample", r->ts);
    kd_ds_put_format(w->ev, ",\"s\":\"t\",\"args\":{\"cpu\":%u", r->cpu);
    kd_trace_frames(w, "stack", r->kstack, r->ustack, false);
    kd_ds_put_cstr(w->ev, "}}");
}

/* The thread leaves its CPU: record 'r'. */
static void
kd_trace_switch_out(struct kd_trace_w *w, const struct kd_trace_rec *r)
{
    switch (r->arg) {
    case KD_TRACE_OUT_PREEMPTED:
        kd_trace_state(w, KD_TS_RUNNABLE, r->ts, r->cpu, -1);
        break;
    case KD_TRACE_OUT_STOPPED:
        kd_trace_state(w, KD_TS_STOPPED, r->ts, r->cpu, -1);
        break;
    default:
        kd_trace_state(w, KD_TS_ASLEEP, r->ts, r->cpu,
                       r->nr ? (int64_t) r->nr - 1 : -1);
        break;
    }
}

/* Record 'r' of the thread's state: its track. */
static void
kd_trace_sched(struct kd_trace_w *w, const struct kd_trace_rec *r)
{
    switch (r->kind) {
    case KD_TRACE_SWITCH_IN:
        if (w->cur.state == KD_TS_RUNNABLE) {
            kd_trace_ran_flush(w, r->ts);
        }
        kd_trace_state(w, KD_TS_RUNNING, r->ts, r->cpu, -1);
        if (r->kstack >= 0 || r->ustack >= 0) {
            /* The stacks of the sleep that ended: the last one. */
            for (size_t i = w->n_slices; i-- > 0;) {
                if (w->slices[i].state == KD_TS_ASLEEP) {
                    w->slices[i].ustack = r->ustack;
                    w->slices[i].kstack = r->kstack;
                    break;
                }
            }
        }
        break;
    case KD_TRACE_SWITCH_OUT:
        kd_trace_switch_out(w, r);
        break;
    case KD_TRACE_WAKEUP:
        kd_trace_state(w, KD_TS_RUNNABLE, r->ts, r->cpu, -1);
        if (w->waker) {
            kd_trace_wakeup(w, r->ts);
        }
        break;
    case KD_TRACE_MIGRATE:
        if (w->cur.state == KD_TS_RUNNABLE) {
            kd_trace_ran_flush(w, r->ts);
            kd_trace_state(w, KD_TS_RUNNABLE, r->ts, r->cpu, -1);
        }
        break;
    }
}

/* Record 'r', in the order the ring holds them. */
static void
kd_trace_rec(struct kd_trace_w *w, const struct kd_trace_rec *r)
{
    switch (r->kind) {
    case KD_TRACE_SWITCH_IN:
    case KD_TRACE_SWITCH_OUT:
    case KD_TRACE_WAKEUP:
    case KD_TRACE_MIGRATE:
        kd_trace_sched(w, r);
        break;
    case KD_TRACE_WAKER:
        w->waker = true;
        w->waker_rec = *r;
        break;
    case KD_TRACE_SYS_ENTER:
        w->in_sys = true;
        w->sys_nr = r->nr;
        w->sys_ts = r->ts;
        break;
    case KD_TRACE_SYS_EXIT:
        if (w->in_sys && w->sys_nr == r->nr) {
            kd_trace_syscall(w, r->nr, w->sys_ts, r->ts);
        }
        w->in_sys = false;
        break;
    case KD_TRACE_HARDIRQ:
    case KD_TRACE_SOFTIRQ:
        kd_trace_irq(w, r);
        break;
    case KD_TRACE_RAN:
        if (w->cur.state == KD_TS_RUNNABLE) {
            w->ran = kd_xreallocarray(w->ran, w->n_ran + 1, sizeof *w->ran);
            w->ran[w->n_ran++] = *r;
        }
        break;
    case KD_TRACE_SAMPLE:
        kd_trace_sample(w, r);
        break;
    }
}

/* The state slices kept, with a sleep's stacks where they were taken. */
static void
kd_trace_states(struct kd_trace_w *w)
{
    char name[64], sys[32];

    for (size_t i = 0; i < w->n_slices; i++) {
        const struct kd_trace_slice *s = &w->slices[i];

        if (s->state == KD_TS_RUNNING || s->state == KD_TS_RUNNABLE) {
            snprintf(name, sizeof name, "%s (CPU %" PRIu32 ")",
                     kd_ts_keys[s->state], s->cpu);
        } else if (s->state == KD_TS_ASLEEP && s->nr >= 0) {
            snprintf(name, sizeof name, "asleep in %s",
                     kd_trace_sys_name(s->nr, sys, sizeof sys));
        } else {
            snprintf(name, sizeof name, "%s", kd_ts_keys[s->state]);
        }
        kd_trace_slice(w, w->pid, w->tid, "state", name, s->ts, s->end);
        kd_ds_put_format(w->ev, ",\"args\":{\"state\":\"%s\",\"cpu\":%"
                         PRIu32, kd_ts_keys[s->state], s->cpu);
        if (s->state == KD_TS_ASLEEP && s->nr >= 0) {
            kd_ds_put_cstr(w->ev, ",\"syscall\":");
            kd_json_string(w->ev, kd_trace_sys_name(s->nr, sys, sizeof sys));
        }
        kd_trace_frames(w, "stack", s->kstack, s->ustack, true);
        kd_ds_put_cstr(w->ev, "}}");
    }
}

/* The interval's args: its length, parts, counts and lists. */
static void
kd_trace_interval_args(struct kd_ds *ds, const struct kd_gap *gap)
{
    char when[32], sys[32];

    kd_ds_put_format(ds, ",\"args\":{\"gap_ns\":%" PRIu64 ",\"start_ns\":%"
                     PRIu64 ",\"end_ns\":%" PRIu64, kd_gap_ns(gap),
                     gap->start_ns, gap->end_ns);
    kd_ds_put_format(ds, ",\"start\":\"%s\"",
                     kd_utc_time(&gap->start_wall, when));
    kd_ds_put_format(ds, ",\"end\":\"%s\"", kd_utc_time(&gap->end_wall,
                                                         when));
    for (int i = 0; i < KD_GAP_UNACCOUNTED; i++) {
        kd_ds_put_format(ds, ",\"%s_ns\":%" PRIu64, kd_gap_part_key(i),
                         gap->parts[i]);
    }
    kd_ds_put_format(ds, ",\"unaccounted_ns\":%" PRId64 ",\"dominant\":\"%s"
                     "\",\"waits\":%" PRIu64 ",\"preemptions\":%" PRIu64
                     ",\"sleeps\":%" PRIu64 ",\"in_progress\":%s",
                     gap->unaccounted_ns, kd_gap_part_key(gap->dominant),
                     gap->waits, gap->preemptions, gap->sleeps,
                     gap->in_progress ? "true" : "false");
    kd_ds_put_cstr(ds, ",\"syscalls\":[");
    for (size_t i = 0; i < gap->n_syscalls; i++) {
        const struct kd_gap_syscall *s = &gap->syscalls[i];

        kd_ds_put_format(ds, "%s{\"name\":\"%s\",\"count\":%" PRIu32
                         ",\"total_ns\":%" PRIu64 ",\"blocked_ns\":%" PRIu64
                         "}", i ? "," : "",
                         kd_trace_sys_name(s->nr, sys, sizeof sys),
                         s->count, s->total_ns, s->blocked_ns);
    }
    kd_ds_put_cstr(ds, "],\"ran_instead\":[");
    for (size_t i = 0; i < gap->n_ran; i++) {
        const struct kd_gap_ran *r = &gap->ran[i];
        char comm[KD_COMM_LEN + 1];

        kd_ds_put_format(ds, "%s{\"tid\":%" PRIu32 ",\"pid\":%" PRIu32
                         ",\"name\":", i ? "," : "", r->tid, r->pid);
        kd_json_string(ds, kd_fixed_cstr(comm, r->comm, sizeof r->comm));
        kd_ds_put_format(ds, ",\"ns\":%" PRIu64 "}", r->ns);
    }
    kd_ds_put_format(ds, "],\"ran_instead_others_ns\":%" PRIu64 "}}",
                     gap->ran_others_ns);
}

/* The tracks' names, the interval's slice and the history's start. */
static void
kd_trace_frame(struct kd_trace_w *w, uint64_t first_ts)
{
    const struct kd_trace_input *in = w->in;
    const struct kd_gap *gap = in->gap;
    char *name;

    kd_trace_meta(w, "process", w->pid, w->tid,
                  in->process ? in->process : gap->name, -1);
    kd_trace_meta(w, "thread", w->pid, w->tid, gap->name, 0);
    name = kd_xasprintf("%s: poll loop", gap->name);
    kd_trace_meta(w, "thread", w->pid, w->tid + KD_TRACE_LOOP_TID, name, 1);
    free(name);
    name = kd_xasprintf("long poll interval%s",
                        gap->in_progress ? " (in progress)" : "");
    kd_trace_slice(w, w->pid, w->tid + KD_TRACE_LOOP_TID, "long_poll", name,
                   gap->start_ns, gap->end_ns);
    free(name);
    kd_trace_interval_args(w->ev, gap);
    if (first_ts) {
        name = kd_xasprintf("history begins (%zu records%s)", in->n_recs,
                            in->lost ? ", older ones overwritten" : "");
        kd_trace_begin(w, "i", w->pid, w->tid + KD_TRACE_LOOP_TID,
                       "history", name, first_ts);
        kd_ds_put_cstr(w->ev, ",\"s\":\"t\"}");
        free(name);
    }
}

/* The trace's "otherData": what it is of, and how far back it goes. */
static void
kd_trace_other(struct kd_ds *ds, const struct kd_trace_input *in,
               uint64_t first_ts)
{
    const struct kd_gap *gap = in->gap;

    kd_ds_put_cstr(ds, "{\"displayTimeUnit\":\"ns\",\"otherData\":{"
                   "\"tool\":\"kernel_delay\",\"version\":");
    kd_json_string(ds, in->version ? in->version : "");
    kd_ds_put_cstr(ds, ",\"node\":");
    if (in->node) {
        kd_json_string(ds, in->node);
    } else {
        kd_json_null(ds);
    }
    kd_ds_put_format(ds, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                     ",\"thread\":", gap->pid, gap->tid);
    kd_json_string(ds, gap->name);
    kd_ds_put_format(ds, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
                     ",\"in_progress\":%s,\"history\":%s,\"history_records"
                     "\":%zu,\"history_lost\":%" PRIu64 ",\"history_start_ns"
                     "\":%" PRIu64 ",\"history_covers_interval\":%s},",
                     gap->start_ns, gap->end_ns,
                     gap->in_progress ? "true" : "false",
                     in->no_history ? "false" : "true", in->n_recs, in->lost,
                     first_ts, first_ts && first_ts <= gap->start_ns
                     ? "true" : "false");
}

/* Appends 'from' to 'ds' and empties it. */
static void
kd_trace_take(struct kd_ds *ds, struct kd_ds *from)
{
    kd_ds_put_buffer(ds, from->string ? from->string : "", from->length);
    kd_ds_destroy(from);
}

void
kd_trace_write(struct kd_ds *ds, const struct kd_trace_input *in)
{
    struct kd_ds head = KD_DS_EMPTY_INITIALIZER;
    struct kd_ds states = KD_DS_EMPTY_INITIALIZER;
    struct kd_ds detail = KD_DS_EMPTY_INITIALIZER;
    struct kd_trace_w w = {
        .in = in, .ev = &head, .first = true, .pid = in->gap->pid,
        .tid = in->gap->tid, .end = in->gap->end_ns,
    };
    uint64_t first_ts = in->n_recs ? in->recs[0].ts : 0;
    size_t i;

    /* The states before what happens inside them (IRQs, who ran
     * instead), which may have the same bounds: a reader that keeps the
     * order of slices of equal bounds nests these in those. */
    kd_trace_frame(&w, first_ts);
    w.ev = &detail;
    for (i = 0; i < in->n_recs && in->recs[i].ts <= w.end; i++) {
        kd_trace_rec(&w, &in->recs[i]);
    }
    if (w.cur.state == KD_TS_RUNNABLE) {
        kd_trace_ran_flush(&w, w.end);
    }
    if (w.in_sys) {
        kd_trace_syscall(&w, w.sys_nr, w.sys_ts, w.end);
    }
    kd_trace_state(&w, KD_TS_NONE, w.end, 0, -1);
    w.ev = &states;
    kd_trace_states(&w);
    w.ev = &head;
    for (i = 0; i < w.n_tasks; i++) {
        kd_trace_meta(&w, "thread", w.tasks[i].pid, w.tasks[i].tid,
                      w.tasks[i].comm, -1);
    }
    kd_trace_other(ds, in, first_ts);
    kd_ds_put_cstr(ds, "\"traceEvents\":[");
    kd_trace_take(ds, &head);
    kd_trace_take(ds, &states);
    kd_trace_take(ds, &detail);
    kd_ds_put_cstr(ds, "\n]}\n");
    free(w.slices);
    free(w.ran);
    free(w.tasks);
}

size_t
kd_trace_ring_order(const struct kd_trace_rec *ring, uint32_t size,
                    uint64_t written, struct kd_trace_rec *out,
                    uint64_t *lost)
{
    uint64_t n = written < size ? written : size;
    uint64_t first = written - n;

    for (uint64_t i = 0; i < n; i++) {
        out[i] = ring[(first + i) & (size - 1)];
    }
    *lost = first;
    return n;
}

char *
kd_trace_file_name(const char *node, const struct kd_gap *gap)
{
    char *safe = kd_xstrdup(node && *node ? node : "-");
    struct tm tm;
    char when[32];
    char *name;

    for (char *p = safe; *p; p++) {
        bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
                  || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_';

        *p = ok || (p != safe && *p == '-') ? *p : '_';
    }
    gmtime_r(&gap->start_wall.tv_sec, &tm);
    strftime(when, sizeof when, "%Y%m%dT%H%M%S", &tm);
    name = kd_xasprintf("kernel_delay-%s-%" PRIu32 "-%" PRIu32 "-%s.%06ldZ"
                        ".json", safe, gap->pid, gap->tid, when,
                        gap->start_wall.tv_nsec / 1000);
    free(safe);
    return name;
}
