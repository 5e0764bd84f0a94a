/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * kernel_delay: is the process slow, or is the kernel starving it?
 *
 * A drop-in replacement, in C, for Open vSwitch's kernel_delay.py.  Reports
 * per thread of one process (by default the running ovs-vswitchd) over a
 * sample: syscall counts and latencies, poll-to-poll gaps, time on CPU,
 * waiting in the run queue and stopped, and hard and soft interrupt time.
 */

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "events.h"
#include "hook.h"
#include "json.h"
#include "host.h"
#include "options.h"
#include "report.h"
#include "sample.h"
#include "symbols.h"
#include "syscalls.h"
#include "target.h"
#include "trigger.h"
#include "util.h"

/* The "version" of the JSON records (--json). */
#define KD_JSON_VERSION 1

/* In JSON mode, the text-only lines (timestamps, notes) are left out. */
static bool kd_json_mode;

/* Set by the signal handler, and only there. */
static volatile sig_atomic_t kd_signalled;

/* SIGINT, SIGTERM or SIGHUP: the first one ends the sample in progress,
 * which is still reported; a second one ends the program at once, and the
 * kernel detaches every eBPF program with the file descriptors that hold
 * them. */
static void
kd_on_signal(int signo)
{
    if (kd_signalled) {
        _exit(128 + signo);
    }
    kd_signalled = signo;
}

/* Clock 'clock' in ns. */
static uint64_t
kd_clock_ns(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t
kd_now_ns(void)
{
    return kd_clock_ns(CLOCK_MONOTONIC);
}

/* What the waits wait for besides time: the signals, and the target's
 * exit (a pidfd, readable once the process is gone). */
struct kd_waiter {
    sigset_t signals;       /* The signals kd_on_signal() catches. */
    unsigned int tgid;
    int pidfd;              /* -1 where the kernel has no pidfd_open(). */
    bool target_exited;
};

static void
kd_waiter_init(struct kd_waiter *w, unsigned int tgid)
{
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = kd_on_signal;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&w->signals);
    for (size_t i = 0; i < KD_ARRAY_SIZE(signals); i++) {
        sigaction(signals[i], &sa, NULL);
        sigaddset(&w->signals, signals[i]);
    }
    w->tgid = tgid;
    w->pidfd = syscall(SYS_pidfd_open, tgid, 0);
    w->target_exited = false;
}

static void
kd_waiter_destroy(struct kd_waiter *w)
{
    if (w->pidfd >= 0) {
        close(w->pidfd);
    }
}

/* Sleeps until monotonic time 'deadline_ns', a signal, the target's exit,
 * or, when 'events' is not NULL, events (which it consumes).  The signals
 * are blocked from the test of kd_signalled until ppoll() atomically lets
 * them in, so that none is missed; they are never blocked otherwise.
 * Returns 0 or a positive errno. */
static int
kd_wait(struct kd_waiter *w, struct kd_events *events, uint64_t deadline_ns)
{
    sigset_t old;
    int err = 0;

    sigprocmask(SIG_BLOCK, &w->signals, &old);
    while (!kd_signalled && !w->target_exited && !err) {
        uint64_t now = kd_now_ns();
        uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
        struct timespec ts = {
            .tv_sec = left / 1000000000ull,
            .tv_nsec = left % 1000000000ull,
        };

        if (!left) {
            break;
        }
        if (events) {
            err = kd_events_wait(events, w->pidfd, &ts, &old,
                                 &w->target_exited);
            if (!err) {
                break;
            }
            err = err == EINTR ? 0 : err;
        } else {
            struct pollfd pfd = { .fd = w->pidfd, .events = POLLIN };

            if (ppoll(&pfd, w->pidfd >= 0, &ts, &old) > 0) {
                w->target_exited = true;
            }
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (w->pidfd < 0 && kill(w->tgid, 0) && errno == ESRCH) {
        /* No pidfd (before Linux 5.3): look for the process itself. */
        w->target_exited = true;
    }
    return err;
}

/* Lets the eBPF programs that were running when the capture stopped (and
 * so still saw it on) finish, so that what they record is read with the
 * rest of the sample.  They run for microseconds, with preemption off. */
static void
kd_quiesce(void)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = 2000000 };

    nanosleep(&ts, NULL);
}

/* Prints an "ERROR: ..." line: on standard output, as the reference does,
 * or, in JSON mode, on standard error, so that standard output stays JSON
 * Lines whatever happens. */
static void kd_error(const char *format, ...) KD_PRINTF_FORMAT(1, 2);

static void
kd_error(const char *format, ...)
{
    FILE *stream = kd_json_mode ? stderr : stdout;
    va_list args;

    fflush(stdout);
    fputs("ERROR: ", stream);
    va_start(args, format);
    vfprintf(stream, format, args);
    va_end(args);
    fflush(stream);
}

/* Prints a timestamp line ("# Start sampling @...") and flushes it, so
 * that whoever reads the output knows at once. */
static void
kd_print_timestamp(const char *msg)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec now;

    if (kd_json_mode) {
        return;
    }
    clock_gettime(CLOCK_REALTIME, &now);
    kd_report_timestamp(&ds, msg, &now);
    fputs(kd_ds_cstr(&ds), stdout);
    fflush(stdout);
    kd_ds_destroy(&ds);
}

static void
kd_print_lost(const uint64_t lost[KD_N_FULL_MAPS])
{
    uint64_t total = 0;

    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        total += lost[i];
    }
    if (!total) {
        return;
    }
    printf("\n# WARNING: %llu events were not counted because eBPF maps "
           "were full:", (unsigned long long) total);
    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        if (lost[i]) {
            printf(" %s %llu", kd_capture_map_name(i),
                   (unsigned long long) lost[i]);
        }
    }
    printf(".\n#          The statistics above are incomplete; size the maps "
           "for more\n#          threads with the --max-threads option.\n");
}

/* The events the kernel did not run a program of ours for, during the
 * sample: it skips a BPF program that would run on a CPU where a BPF
 * program is already running (bpf_prog_info.recursion_misses). */
static void
kd_print_misses(const struct kd_capture *c)
{
    uint64_t total = 0;

    for (size_t i = 0; i < c->n_misses; i++) {
        total += c->misses[i];
    }
    if (!total) {
        return;
    }
    printf("\n# WARNING: The kernel skipped kernel_delay's eBPF programs %llu "
           "times,\n#          as another eBPF program was running on the "
           "same CPU:", (unsigned long long) total);
    for (size_t i = 0; i < c->n_misses; i++) {
        if (c->misses[i]) {
            printf(" %s %llu", kd_capture_func_hook(c, i),
                   (unsigned long long) c->misses[i]);
        }
    }
    printf(".\n#          The statistics above miss those events.\n");
}

static int
kd_syscall_event_cmp(const void *a_, const void *b_)
{
    const struct kd_syscall_event *a = a_, *b = b_;

    if (a->exit_ts != b->exit_ts) {
        return a->exit_ts < b->exit_ts ? -1 : 1;
    }
    return a->entry_ts < b->entry_ts ? -1 : a->entry_ts > b->entry_ts;
}

/* What a sample's report needs besides its data. */
struct kd_report_ctx {
    struct kd_capture *capture;
    const struct kd_options *options;
    const struct kd_thread_filter *filter;
    unsigned int index;             /* 1 for the first sample. */

    /* The window, CLOCK_MONOTONIC ns (bpf_ktime_get_ns()) and wall clock;
     * trigger times are 0 when no trigger made it. */
    uint64_t start_ns, stop_ns;
    struct timespec start_wall, stop_wall;
    uint64_t start_trigger_ns, stop_trigger_ns;
    uint64_t delta_ns;              /* Stop - start, both triggers only. */
    bool skipped;
    bool target_exited;
};

/* Appends the frames of stack 'id' to 'ds', as text lines or, when 'json',
 * as a JSON array; each distinct stack is read and symbolized once per
 * sample ('cache', indexed by stack id). */
static void
kd_put_stack(struct kd_ds *ds, struct kd_capture *capture,
             struct kd_symbols *symbols, char **cache, size_t cache_size,
             int32_t id, bool kernel, bool json)
{
    uint64_t ips[KD_STACK_DEPTH];
    struct kd_ds frames = KD_DS_EMPTY_INITIALIZER;
    bool first = true;
    size_t n;

    if (id < 0) {
        kd_ds_put_cstr(ds, json ? "null" : "");
        return;
    }
    if ((size_t) id < cache_size && cache[id]) {
        kd_ds_put_cstr(ds, cache[id]);
        return;
    }
    n = kd_capture_stack(capture, id, ips);
    kd_ds_put_cstr(&frames, json ? "[" : "");
    for (size_t i = 0; i < n; i++) {
        char frame[512];

        kd_symbols_format(symbols, kernel, ips[i], frame, sizeof frame);
        if (kernel && first && kd_frame_is_tracing(frame)) {
            continue;
        }
        if (json) {
            kd_json_next(&frames, &first);
            kd_json_string(&frames, frame);
        } else {
            first = false;
            kd_report_frame(&frames, frame);
        }
    }
    kd_ds_put_cstr(&frames, json ? "]" : "");
    kd_ds_put_cstr(ds, kd_ds_cstr(&frames));
    if ((size_t) id < cache_size) {
        cache[id] = kd_ds_steal_cstr(&frames);
    }
    kd_ds_destroy(&frames);
}

/* An event's thread: its name and whether the filter keeps it, worked out
 * once per thread and sample rather than once per event. */
struct kd_event_thread {
    uint32_t tid;
    char *name;
    bool keep;
};

/* The entry of thread 'tid' in 'threads' (sorted by tid, '*n' entries),
 * added when missing: named from the sample, or from /proc when the
 * sample does not hold it. */
static const struct kd_event_thread *
kd_event_thread(struct kd_event_thread **threads, size_t *n,
                const struct kd_report_ctx *ctx,
                const struct kd_sample *sample, uint32_t tid)
{
    unsigned int tgid = ctx->capture->tgid;
    size_t lo = 0, hi = *n;
    struct kd_event_thread *t;
    const char *name;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if ((*threads)[mid].tid == tid) {
            return &(*threads)[mid];
        } else if ((*threads)[mid].tid < tid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }

    *threads = kd_xreallocarray(*threads, *n + 1, sizeof **threads);
    t = &(*threads)[lo];
    memmove(t + 1, t, (*n - lo) * sizeof *t);
    (*n)++;

    name = kd_sample_thread_name(sample, tid);
    t->tid = tid;
    t->name = name ? kd_xstrdup(name) : kd_target_thread_name(tgid, tid,
                                                              NULL);
    if (!t->name) {
        t->name = kd_xasprintf("<unknown:%u/%u>", tgid, tid);
    }
    t->keep = kd_thread_filter_match(ctx->filter, tid, t->name);
    return t;
}

/* The syscall events of the sample (of the threads the filter keeps), in
 * time order, with their stacks; in text, with the warning about stacks
 * that could not be shown, in JSON as the "syscall_events" array.
 * Returns the number of lost stacks. */
static uint64_t
kd_report_syscall_events(struct kd_ds *ds, const struct kd_report_ctx *ctx,
                         const struct kd_sample *sample)
{
    struct kd_capture *capture = ctx->capture;
    struct kd_event_state *ev = &capture->events.state;
    size_t cache_size = capture->with_stacks ? capture->stack_trace_size : 0;
    char **cache = kd_xcalloc(cache_size, sizeof *cache);
    bool json = ctx->options->json;
    struct kd_event_thread *threads = NULL;
    struct kd_symbols symbols;
    uint64_t lost_stacks = 0;
    bool first = true, header = false;
    size_t n_threads = 0;

    kd_symbols_init(&symbols, capture->tgid);
    qsort(ev->syscalls, ev->n_syscalls, sizeof *ev->syscalls,
          kd_syscall_event_cmp);
    kd_ds_put_cstr(ds, json ? "[" : "");
    for (size_t i = 0; i < ev->n_syscalls; i++) {
        const struct kd_syscall_event *e = &ev->syscalls[i];
        const struct kd_event_thread *t;
        const char *name;
        char buf[64];

        t = kd_event_thread(&threads, &n_threads, ctx, sample, e->tid);
        if (!t->keep) {
            continue;
        }
        name = t->name;
        if (json) {
            kd_json_next(ds, &first);
            kd_ds_put_format(ds, "{\"tid\":%" PRIu32 ",\"name\":", e->tid);
            kd_json_string(ds, name);
            kd_ds_put_cstr(ds, ",\"syscall\":");
            kd_json_string(ds, kd_syscall_format(e->syscall, buf,
                                                 sizeof buf));
            kd_ds_put_format(ds, ",\"number\":%" PRIu32 ",\"entry_ns\":%"
                             PRIu64 ",\"exit_ns\":%" PRIu64, e->syscall,
                             e->entry_ts, e->exit_ts);
        } else {
            if (!header) {
                kd_report_events_header(ds);
                header = true;
            }
            kd_report_event(ds, e->entry_ts, e->exit_ts, e->tid, name,
                            e->syscall);
        }
        if (capture->with_stacks) {
            if (e->kernel_stack_id < 0 || e->user_stack_id < 0) {
                lost_stacks++;
            }
            kd_ds_put_cstr(ds, json ? ",\"kernel_stack\":" : "");
            kd_put_stack(ds, capture, &symbols, cache, cache_size,
                         e->kernel_stack_id, true, json);
            kd_ds_put_cstr(ds, json ? ",\"user_stack\":" : "");
            kd_put_stack(ds, capture, &symbols, cache, cache_size,
                         e->user_stack_id, false, json);
        }
        kd_ds_put_cstr(ds, json ? "}" : "");
        kd_ds_flush(ds, stdout, 1 << 16);
    }
    if (json) {
        kd_ds_put_char(ds, ']');
    } else {
        kd_report_lost_stacks(ds, lost_stacks);
    }

    for (size_t i = 0; i < cache_size; i++) {
        free(cache[i]);
    }
    free(cache);
    for (size_t i = 0; i < n_threads; i++) {
        free(threads[i].name);
    }
    free(threads);
    kd_symbols_destroy(&symbols);
    return lost_stacks;
}

/* "2026-11-22T10:17:22.725127" in local time. */
static void
kd_json_time(struct kd_ds *ds, const struct timespec *ts)
{
    struct kd_ds line = KD_DS_EMPTY_INITIALIZER;
    const char *at, *end;

    kd_report_timestamp(&line, "", ts);
    at = strchr(kd_ds_cstr(&line), '@') + 1;
    end = strchr(at, ' ');
    kd_ds_put_char(ds, '"');
    kd_ds_put_buffer(ds, at, end - at);
    kd_ds_put_char(ds, '"');
    kd_ds_destroy(&line);
}

static void
kd_json_u64_or_null(struct kd_ds *ds, const char *key, uint64_t value)
{
    kd_ds_put_format(ds, ",\"%s\":", key);
    if (value) {
        kd_json_u64(ds, value);
    } else {
        kd_json_null(ds);
    }
}

/* Starts a sample's JSON object, up to its window. */
static void
kd_json_sample_head(struct kd_ds *ds, const struct kd_report_ctx *ctx)
{
    kd_ds_put_format(ds, "{\"version\":%d,\"pid\":%u,\"sample\":%u,"
                     "\"skipped\":%s,\"window\":{\"start\":",
                     KD_JSON_VERSION, ctx->capture->tgid, ctx->index,
                     ctx->skipped ? "true" : "false");
    kd_json_time(ds, &ctx->start_wall);
    kd_ds_put_cstr(ds, ",\"stop\":");
    kd_json_time(ds, &ctx->stop_wall);
    kd_ds_put_format(ds, ",\"start_ns\":%" PRIu64 ",\"stop_ns\":%" PRIu64
                     ",\"duration_ns\":%" PRIu64, ctx->start_ns,
                     ctx->stop_ns, ctx->stop_ns - ctx->start_ns);
    kd_json_u64_or_null(ds, "start_trigger_ns", ctx->start_trigger_ns);
    kd_json_u64_or_null(ds, "stop_trigger_ns", ctx->stop_trigger_ns);
    kd_json_u64_or_null(ds, "trigger_delta_ns", ctx->delta_ns);
    kd_ds_put_char(ds, '}');
}

/* The warnings, cumulative where the reference prints them at the end. */
static void
kd_json_warnings(struct kd_ds *ds, const struct kd_report_ctx *ctx,
                 const uint64_t lost[KD_N_FULL_MAPS], uint64_t lost_stacks)
{
    uint64_t counters[KD_N_COUNTERS] = { 0 };
    bool first = true;

    kd_capture_counters(ctx->capture, counters);
    kd_ds_put_cstr(ds, ",\"warnings\":{\"map_full\":{");
    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        if (lost && lost[i]) {
            kd_json_next(ds, &first);
            kd_json_key(ds, kd_capture_map_name(i));
            kd_json_u64(ds, lost[i]);
        }
    }
    kd_ds_put_cstr(ds, "},\"recursion_misses\":{");
    first = true;
    for (size_t i = 0; i < ctx->capture->n_misses; i++) {
        if (ctx->capture->misses[i]) {
            kd_json_next(ds, &first);
            kd_json_key(ds, kd_capture_func_hook(ctx->capture, i));
            kd_json_u64(ds, ctx->capture->misses[i]);
        }
    }
    kd_ds_put_format(ds, "},\"lost_stacks\":%" PRIu64 ",\"events_dropped\":%"
                     PRIu64 ",\"triggers_missed\":%" PRIu64
                     ",\"upcall_module_unloaded\":%s}",
                     lost_stacks, counters[KD_COUNTER_EVENTS_DROPPED],
                     counters[KD_COUNTER_TRIGGERS_MISSED],
                     ctx->capture->upcall_module_gone ? "true" : "false");
}

/* Reads the sample that just ended and, unless it is skipped, reports it:
 * in text under a "# Sample dump" line (a triggered one when there is a
 * delta), or as one JSON line.  Empties the maps either way.  Returns 0 or
 * a positive errno. */
static int
kd_dump_sample(const struct kd_report_ctx *ctx)
{
    struct kd_capture *capture = ctx->capture;
    const struct kd_options *o = ctx->options;
    struct kd_sample sample = { .pid = capture->tgid };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    uint64_t lost[KD_N_FULL_MAPS];
    uint64_t lost_stacks = 0;
    char *error = NULL;
    uint64_t start, cpu_start;
    int err;

    if (!ctx->skipped && !o->json) {
        char buf[32];
        char *msg = ctx->delta_ns
            ? kd_xasprintf("# Triggered sample dump, stop-start delta %s ns",
                           kd_format_thousands(ctx->delta_ns, buf))
            : kd_xstrdup("# Sample dump");

        kd_print_timestamp(msg);
        free(msg);
    }
    start = kd_now_ns();
    cpu_start = kd_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    err = kd_capture_collect(capture, &sample, lost, &error);
    if (err) {
        kd_error("%s\n", error);
        free(error);
        kd_sample_clear(&sample);
        return err;
    }
    if (!ctx->skipped) {
        struct kd_summary_row *rows;

        kd_sample_group(&sample, kd_target_thread_name, NULL);
        kd_sample_filter(&sample, ctx->filter);
        rows = kd_xcalloc(sample.n_threads, sizeof *rows);
        kd_summary_compute(&sample, rows);

        if (o->json) {
            kd_json_sample_head(&ds, ctx);
            kd_ds_put_cstr(&ds, ",\"threads\":");
            kd_report_json_threads(&ds, &sample);
            kd_ds_put_cstr(&ds, ",\"upcalls\":");
            kd_report_json_upcalls(&ds, sample.upcalls, sample.n_upcalls,
                                   sample.n_cpus);
            kd_ds_put_cstr(&ds, ",\"syscall_events\":");
            if (capture->with_events && o->syscall_events) {
                lost_stacks = kd_report_syscall_events(&ds, ctx, &sample);
            } else {
                kd_json_null(&ds);
            }
            kd_ds_put_cstr(&ds, ",\"summary\":");
            if (o->summary) {
                kd_report_json_summary(&ds, rows, sample.n_threads,
                                       ctx->stop_ns - ctx->start_ns);
            } else {
                kd_json_null(&ds);
            }
            kd_json_warnings(&ds, ctx, lost, lost_stacks);
            kd_ds_put_format(&ds, ",\"target_exited\":%s}\n",
                             ctx->target_exited ? "true" : "false");
            kd_ds_flush(&ds, stdout, 0);
        } else {
            kd_report_sample(&ds, &sample);
            kd_report_upcalls(&ds, sample.upcalls, sample.n_upcalls,
                              sample.n_cpus);
            if (capture->upcall_module_gone) {
                kd_ds_put_format(&ds, "\n# WARNING: Kernel module %s was "
                                 "unloaded: upcalls are not counted since."
                                 "\n", capture->upcall_module);
            }
            if (capture->with_events && o->syscall_events) {
                kd_report_syscall_events(&ds, ctx, &sample);
            }
            if (o->summary) {
                kd_report_summary(&ds, rows, sample.n_threads,
                                  ctx->stop_ns - ctx->start_ns);
            }
            kd_ds_flush(&ds, stdout, 0);
            kd_print_lost(lost);
            kd_print_misses(capture);
        }
        fflush(stdout);
        free(rows);
        if (o->debug) {
            fprintf(stderr, "kernel_delay: sample of %zu threads read and "
                    "reported in %.3f ms (%.3f ms of CPU)\n",
                    sample.n_threads, (kd_now_ns() - start) / 1e6,
                    (kd_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start) / 1e6);
        }
    } else if (o->json) {
        kd_json_sample_head(&ds, ctx);
        kd_json_warnings(&ds, ctx, NULL, 0);
        kd_ds_put_cstr(&ds, "}\n");
        kd_ds_flush(&ds, stdout, 0);
        fflush(stdout);
    }
    kd_ds_destroy(&ds);
    kd_sample_clear(&sample);
    if (capture->with_events) {
        kd_events_clear_syscalls(&capture->events);
    }
    err = kd_capture_clear_stacks(capture);
    if (err) {
        kd_error("Failed to clear the eBPF stack map: %s\n",
                 strerror(err));
    }
    return err;
}

/* Waits until 'deadline' (0: no limit) for a signal, the target's exit,
 * or, when the capture has events, for events.  Wakes up at least every
 * 100 ms, so that the caller can look at the capture's state.  Returns 0
 * or a positive errno. */
static int
kd_wait_events(struct kd_capture *capture, struct kd_waiter *w,
               uint64_t deadline)
{
    uint64_t wake = kd_now_ns() + 100000000ull;

    if (deadline && deadline < wake) {
        wake = deadline;
    }
    return kd_wait(w, capture->with_events ? &capture->events : NULL, wake);
}

static void
kd_print_trigger_timestamp(const char *msg, uint64_t ts)
{
    char *line = kd_xasprintf("%s (trigger@%llu)", msg,
                              (unsigned long long) ts);

    kd_print_timestamp(line);
    free(line);
}

/* Takes the samples, as the reference does: each one starts now or on the
 * start trigger, and ends after --sample-time or on the stop trigger.
 * Returns 0 or a positive errno. */
static int
kd_run_samples(struct kd_capture *capture, const struct kd_options *o,
               const struct kd_thread_filter *filter, struct kd_waiter *w)
{
    const struct kd_event_state *ev = &capture->events.state;
    unsigned int done = 0, index = 0;
    int err;

    /* Every probe is attached by now: only from here may a start trigger
     * start a sample.  Were it honoured earlier, while the stop trigger
     * was still being attached, the first sample could run from one
     * cycle's start to the next cycle's stop. */
    if (o->start_trigger) {
        err = kd_capture_set(capture, KD_CAPTURE_IDLE);
        if (err) {
            kd_error("Failed to arm the capture: %s\n", strerror(err));
            return err;
        }
    }

    while (done < o->sample_count && !kd_signalled && !w->target_exited) {
        uint64_t n_starts = ev->n_starts, n_stops = ev->n_stops;
        bool started = false, by_start = false, by_stop = false;
        uint64_t deadline = 0, stopped_at = 0;
        struct kd_report_ctx ctx = {
            .capture = capture,
            .options = o,
            .filter = filter,
            .index = ++index,
        };
        uint64_t state;

        if (!o->start_trigger) {
            err = kd_capture_set(capture, KD_CAPTURE_ON);
            if (err) {
                kd_error("Failed to start capturing: %s\n",
                         strerror(err));
                return err;
            }
            ctx.start_ns = kd_now_ns();
            clock_gettime(CLOCK_REALTIME, &ctx.start_wall);
            kd_print_timestamp("# Start sampling");
            started = true;
            if (!o->stop_trigger) {
                deadline = kd_now_ns() + o->sample_time * 1e9;
            }
        }

        while (!kd_signalled && !w->target_exited
               && (!deadline || kd_now_ns() < deadline)) {
            err = kd_wait_events(capture, w, deadline);
            if (err) {
                kd_error("Failed to read eBPF events: %s\n",
                         strerror(err));
                return err;
            }
            if (!started && ev->n_starts != n_starts) {
                started = by_start = true;
                ctx.start_ns = ctx.start_trigger_ns = ev->start_ts;
                clock_gettime(CLOCK_REALTIME, &ctx.start_wall);
                kd_print_trigger_timestamp("# Start sampling",
                                           ev->start_ts);
                if (!o->stop_trigger) {
                    deadline = kd_now_ns() + o->sample_time * 1e9;
                }
            }
            if (ev->n_stops != n_stops) {
                by_stop = true;
                break;
            }
            /* A stop trigger whose event was lost (ring buffer full)
             * still stopped the capture.  Its event follows the state
             * change closely, so only conclude it was lost when the next
             * wake-up, up to 100 ms later, still brings no event. */
            if (o->stop_trigger && started
                && !kd_capture_get(capture, &state)
                && state == KD_CAPTURE_STOPPED) {
                if (stopped_at && kd_now_ns() - stopped_at > 50000000ull) {
                    break;
                }
                if (!stopped_at) {
                    stopped_at = kd_now_ns();
                }
            }
        }

        if (!started) {
            /* Interrupted while waiting for the start trigger: there is
             * no sample to report. */
            if (w->target_exited && kd_json_mode) {
                printf("{\"version\":%d,\"pid\":%u,\"target_exited\":"
                       "true,\"waiting_for\":\"start trigger\"}\n",
                       KD_JSON_VERSION, capture->tgid);
            } else if (w->target_exited) {
                printf("# NOTE: Process %u exited while waiting for the "
                       "start trigger.\n", capture->tgid);
            }
            break;
        }
        kd_capture_set(capture, KD_CAPTURE_STOPPED);
        ctx.stop_ns = kd_now_ns();
        clock_gettime(CLOCK_REALTIME, &ctx.stop_wall);
        kd_quiesce();
        if (capture->with_events) {
            /* The events sent before the stop. */
            kd_events_drain(&capture->events);
        }
        if (by_stop) {
            ctx.stop_ns = ctx.stop_trigger_ns = ev->stop_ts;
            kd_print_trigger_timestamp("# Stop sampling", ev->stop_ts);
        } else {
            kd_print_timestamp("# Stop sampling");
        }

        /* The stop-start delta, when both triggers made this sample. */
        uint64_t delta = by_start && by_stop && ev->stop_ts > ev->start_ts
                         ? ev->stop_ts - ev->start_ts : 0;
        bool skip = delta && delta < o->trigger_delta;

        ctx.delta_ns = delta;
        ctx.skipped = skip;
        ctx.target_exited = w->target_exited;
        err = kd_dump_sample(&ctx);
        if (err) {
            return err;
        }
        if (skip && !kd_json_mode) {
            char buf[32];
            char *msg = kd_xasprintf("# Sample dump skipped, delta %s ns",
                                     kd_format_thousands(delta, buf));

            kd_print_timestamp(msg);
            free(msg);
        } else {
            done++;
        }
        if (w->target_exited) {
            if (!kd_json_mode) {
                printf("\n# NOTE: Process %u exited during the sample; the "
                       "sample above ends there.\n", capture->tgid);
            }
            break;
        }

        /* Re-arm at once: a start trigger that fires while the report is
         * printed is a missed sample. */
        err = kd_capture_set(capture, KD_CAPTURE_IDLE);
        if (err) {
            kd_error("Failed to re-arm the capture: %s\n",
                     strerror(err));
            return err;
        }
        if (o->sample_interval > 0 && done < o->sample_count) {
            kd_wait(w, NULL, kd_now_ns() + o->sample_interval * 1e9);
        }
    }
    return 0;
}

/* The warnings the reference prints after the last sample. */
static void
kd_print_final_warnings(struct kd_capture *capture,
                        const struct kd_options *o)
{
    uint64_t counters[KD_N_COUNTERS];

    if (kd_json_mode || kd_capture_counters(capture, counters)) {
        return;
    }
    if (counters[KD_COUNTER_EVENTS_DROPPED]) {
        printf("\n# WARNING: Not all events were captured, %llu were "
               "dropped!\n#          Increase the BPF ring buffer size "
               "with the --buffer-page-count option.\n",
               (unsigned long long) counters[KD_COUNTER_EVENTS_DROPPED]);
    }
    if (o->sample_count > 1 && counters[KD_COUNTER_TRIGGERS_MISSED]) {
        printf("\n# WARNING: Not all start triggers were successful. %llu "
               "were missed due to\n#          slow userspace processing!\n",
               (unsigned long long) counters[KD_COUNTER_TRIGGERS_MISSED]);
    }
    fflush(stdout);
}

/* Parses trigger 'text' and checks it against the target and the kernel.
 * Returns 0, or the exit status after printing the error. */
static int
kd_setup_trigger(const char *text, bool start, unsigned int tgid,
                 struct kd_trigger *trigger, struct kd_hook *hook)
{
    const char *role = start ? "start" : "stop";
    char *error = NULL;
    int err;

    err = kd_trigger_parse(text, trigger, &error);
    if (err) {
        kd_error("Invalid %s trigger %s\n", role, error);
        free(error);
        return EX_CONFIG;
    }
    err = kd_hook_prepare(hook, trigger, start, tgid, &error);
    if (err == EINVAL) {
        char quoted[128];

        kd_error("Invalid %s trigger [%s]; %s\n", role,
                 kd_trigger_quote(text, quoted, sizeof quoted), error);
        free(error);
        return EX_CONFIG;
    } else if (err) {
        kd_error("%s\n", error);
        free(error);
        return EX_OSERR;
    }
    return 0;
}

/* Everything after the command line.  Returns the exit status. */
static int
kd_run(struct kd_options *options)
{
    struct kd_capture capture = { .prog = KD_PROGRAM_INITIALIZER };
    struct kd_trigger start_trigger, stop_trigger;
    struct kd_hook start_hook, stop_hook;
    unsigned int tgid;
    struct kd_thread_filter filter;
    struct kd_waiter waiter;
    char *error = NULL;
    int status;
    int err;

    memset(&start_trigger, 0, sizeof start_trigger);
    memset(&stop_trigger, 0, sizeof stop_trigger);
    memset(&start_hook, 0, sizeof start_hook);
    memset(&stop_hook, 0, sizeof stop_hook);
    kd_json_mode = options->json;

    /* The target, as the reference finds it. */
    if (!options->pid) {
        err = kd_target_find_vswitchd(NULL, &options->pid);
        if (err == EEXIST) {
            kd_error("Multiple ovs-vswitchd daemons running, use the "
                     "-p option!\n");
            return EX_NOINPUT;
        } else if (err) {
            kd_error("Failed to find ovs-vswitchd's PID!\n");
            return EX_UNAVAILABLE;
        }
    }
    if (kd_target_resolve(NULL, options->pid, &tgid)) {
        kd_error("No process with PID %u!\n", options->pid);
        return EX_UNAVAILABLE;
    }
    if (tgid != options->pid) {
        fprintf(stderr, "kernel_delay: %u is a thread of process %u; "
                "tracing process %u\n", options->pid, tgid, tgid);
    }

    if (options->list_probes) {
        char *list;
        int n = kd_hook_list_usdt(tgid, &list);

        if (n < 0) {
            kd_error("Can't read the USDT probes of process %u!\n",
                     tgid);
            return EX_NOINPUT;
        }
        if (n) {
            fputs(list, stdout);
        } else {
            printf("# Process %u has no USDT probes.\n", tgid);
        }
        free(list);
        return EXIT_SUCCESS;
    }

    if (geteuid() != 0) {
        kd_error("We need to run as root to attached probes!\n");
        return EX_NOPERM;
    }
    kd_thread_filter_init(&filter, options->thread_regex, options->tids,
                          options->n_tids);

    kd_waiter_init(&waiter, tgid);
    kd_host_mount_tracefs();
    kd_host_cleanup_stale_probes();

    if (options->start_trigger) {
        status = kd_setup_trigger(options->start_trigger, true, tgid,
                                  &start_trigger, &start_hook);
        if (status) {
            goto cleanup;
        }
    }
    if (options->stop_trigger) {
        status = kd_setup_trigger(options->stop_trigger, false, tgid,
                                  &stop_trigger, &stop_hook);
        if (status) {
            goto cleanup;
        }
    }

    err = kd_host_check_headers(&error);
    if (err) {
        kd_error("%s\n", error);
        status = EX_OSFILE;
        goto cleanup;
    }

    err = kd_capture_open(&capture, options, tgid,
                          options->start_trigger ? &start_hook : NULL,
                          options->stop_trigger ? &stop_hook : NULL, &error);
    if (err) {
        kd_error("%s\n", error);
        status = err == EPROTO ? EX_SOFTWARE : EX_OSERR;
        goto cleanup;
    }

    status = kd_run_samples(&capture, options, &filter, &waiter)
             ? EX_OSERR : EXIT_SUCCESS;
    kd_print_final_warnings(&capture, options);

cleanup:
    fflush(stdout);
    kd_capture_close(&capture);
    kd_waiter_destroy(&waiter);
    kd_thread_filter_destroy(&filter);
    kd_hook_close(&start_hook);
    kd_hook_close(&stop_hook);
    kd_trigger_destroy(&start_trigger);
    kd_trigger_destroy(&stop_trigger);
    free(error);
    return status;
}

/* The rest of --version: libraries and kernel features. */
static void
kd_print_host_info(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_host_info info;

    kd_host_info_probe(&info);
    kd_host_info_format(&info, &ds);
    fputs(kd_ds_cstr(&ds), stdout);
    kd_ds_destroy(&ds);
    kd_host_info_destroy(&info);
}

int
main(int argc, char *argv[])
{
    struct kd_options options;
    int status = kd_options_parse(&options, argc, argv, stdout, stderr);

    if (status < 0) {
        status = kd_run(&options);
    } else if (!status && options.version) {
        kd_print_host_info();
    }
    kd_options_destroy(&options);
    return status;
}
