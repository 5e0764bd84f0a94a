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
#include "host.h"
#include "options.h"
#include "report.h"
#include "sample.h"
#include "symbols.h"
#include "target.h"
#include "trigger.h"
#include "util.h"

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

static uint64_t
kd_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ull + ts.tv_nsec;
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

/* Prints a timestamp line ("# Start sampling @...") and flushes it, so
 * that whoever reads the output knows at once. */
static void
kd_print_timestamp(const char *msg)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec now;

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

static int
kd_syscall_event_cmp(const void *a_, const void *b_)
{
    const struct kd_syscall_event *a = a_, *b = b_;

    if (a->exit_ts != b->exit_ts) {
        return a->exit_ts < b->exit_ts ? -1 : 1;
    }
    return a->entry_ts < b->entry_ts ? -1 : a->entry_ts > b->entry_ts;
}

/* Appends the frames of stack 'id' to 'ds', each distinct stack being
 * read and symbolized once per sample ('cache', indexed by stack id). */
static void
kd_put_stack(struct kd_ds *ds, struct kd_capture *capture,
             struct kd_symbols *symbols, char **cache, size_t cache_size,
             int32_t id, bool kernel)
{
    uint64_t ips[KD_STACK_DEPTH];
    struct kd_ds frames = KD_DS_EMPTY_INITIALIZER;
    size_t n;

    if (id < 0) {
        return;
    }
    if ((size_t) id < cache_size && cache[id]) {
        kd_ds_put_cstr(ds, cache[id]);
        return;
    }
    n = kd_capture_stack(capture, id, ips);
    for (size_t i = 0; i < n; i++) {
        char frame[512];
        bool top = !frames.length;

        kd_symbols_format(symbols, kernel, ips[i], frame, sizeof frame);
        if (!(kernel && top && kd_frame_is_tracing(frame))) {
            kd_report_frame(&frames, frame);
        }
    }
    kd_ds_put_cstr(ds, kd_ds_cstr(&frames));
    if ((size_t) id < cache_size) {
        cache[id] = kd_ds_steal_cstr(&frames);
    }
    kd_ds_destroy(&frames);
}

/* The syscall events of the sample, in time order, with their stacks, and
 * the warning about stacks that could not be shown. */
static void
kd_report_syscall_events(struct kd_ds *ds, struct kd_capture *capture,
                         const struct kd_sample *sample)
{
    struct kd_event_state *ev = &capture->events.state;
    size_t cache_size = capture->with_stacks ? capture->stack_trace_size : 0;
    char **cache = kd_xcalloc(cache_size, sizeof *cache);
    struct kd_symbols symbols;
    uint64_t lost_stacks = 0;

    if (!ev->n_syscalls) {
        free(cache);
        return;
    }
    kd_symbols_init(&symbols, capture->tgid);
    qsort(ev->syscalls, ev->n_syscalls, sizeof *ev->syscalls,
          kd_syscall_event_cmp);
    kd_report_events_header(ds);
    for (size_t i = 0; i < ev->n_syscalls; i++) {
        const struct kd_syscall_event *e = &ev->syscalls[i];
        const char *name = kd_sample_thread_name(sample, e->tid);
        char *owned = NULL;

        if (!name) {
            owned = kd_target_thread_name(capture->tgid, e->tid, NULL);
            if (!owned) {
                owned = kd_xasprintf("<unknown:%u/%u>", capture->tgid,
                                     e->tid);
            }
            name = owned;
        }
        kd_report_event(ds, e->entry_ts, e->exit_ts, e->tid, name,
                        e->syscall);
        free(owned);
        kd_ds_flush(ds, stdout, 1 << 16);
        if (!capture->with_stacks) {
            continue;
        }
        if (e->kernel_stack_id < 0 || e->user_stack_id < 0) {
            lost_stacks++;
        }
        kd_put_stack(ds, capture, &symbols, cache, cache_size,
                     e->kernel_stack_id, true);
        kd_put_stack(ds, capture, &symbols, cache, cache_size,
                     e->user_stack_id, false);
    }
    kd_report_lost_stacks(ds, lost_stacks);

    for (size_t i = 0; i < cache_size; i++) {
        free(cache[i]);
    }
    free(cache);
    kd_symbols_destroy(&symbols);
}

/* Reads the sample that just ended and, unless 'discard', prints its
 * report under a "# Sample dump" line ('delta' > 0: a triggered one).
 * Empties the maps either way.  Returns 0 or a positive errno. */
static int
kd_dump_sample(struct kd_capture *capture, uint64_t delta, bool discard,
               bool debug)
{
    struct kd_sample sample = { .pid = capture->tgid };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    uint64_t lost[KD_N_FULL_MAPS];
    char *error = NULL;
    uint64_t start;
    int err;

    if (!discard) {
        char buf[32];
        char *msg = delta
            ? kd_xasprintf("# Triggered sample dump, stop-start delta %s ns",
                           kd_format_thousands(delta, buf))
            : kd_xstrdup("# Sample dump");

        kd_print_timestamp(msg);
        free(msg);
    }
    start = kd_now_ns();
    err = kd_capture_collect(capture, &sample, lost, &error);
    if (err) {
        printf("ERROR: %s\n", error);
        free(error);
        kd_sample_clear(&sample);
        return err;
    }
    if (!discard) {
        kd_sample_group(&sample, kd_target_thread_name, NULL);
        kd_report_sample(&ds, &sample);
        kd_report_upcalls(&ds, sample.upcalls, sample.n_upcalls,
                          sample.n_cpus);
        if (capture->with_events) {
            kd_report_syscall_events(&ds, capture, &sample);
        }
        kd_ds_flush(&ds, stdout, 0);
        kd_print_lost(lost);
        fflush(stdout);
        if (debug) {
            fprintf(stderr, "kernel_delay: sample of %zu threads read and "
                    "reported in %.3f ms\n", sample.n_threads,
                    (kd_now_ns() - start) / 1e6);
        }
    }
    kd_ds_destroy(&ds);
    kd_sample_clear(&sample);
    if (capture->with_events) {
        kd_events_clear_syscalls(&capture->events);
    }
    err = kd_capture_clear_stacks(capture);
    if (err) {
        printf("ERROR: Failed to clear the eBPF stack map: %s\n",
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
               struct kd_waiter *w)
{
    const struct kd_event_state *ev = &capture->events.state;
    unsigned int done = 0;

    while (done < o->sample_count && !kd_signalled && !w->target_exited) {
        uint64_t n_starts = ev->n_starts, n_stops = ev->n_stops;
        bool started = false, by_start = false, by_stop = false;
        uint64_t deadline = 0, stopped_at = 0;
        uint64_t state;
        int err;

        if (!o->start_trigger) {
            err = kd_capture_set(capture, KD_CAPTURE_ON);
            if (err) {
                printf("ERROR: Failed to start capturing: %s\n",
                       strerror(err));
                return err;
            }
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
                printf("ERROR: Failed to read eBPF events: %s\n",
                       strerror(err));
                return err;
            }
            if (!started && ev->n_starts != n_starts) {
                started = by_start = true;
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
            if (w->target_exited) {
                printf("# NOTE: Process %u exited while waiting for the "
                       "start trigger.\n", capture->tgid);
            }
            break;
        }
        kd_capture_set(capture, KD_CAPTURE_STOPPED);
        kd_quiesce();
        if (capture->with_events) {
            /* The events sent before the stop. */
            kd_events_drain(&capture->events);
        }
        if (by_stop) {
            kd_print_trigger_timestamp("# Stop sampling", ev->stop_ts);
        } else {
            kd_print_timestamp("# Stop sampling");
        }

        /* The stop-start delta, when both triggers made this sample. */
        uint64_t delta = by_start && by_stop && ev->stop_ts > ev->start_ts
                         ? ev->stop_ts - ev->start_ts : 0;
        bool skip = delta && delta < o->trigger_delta;

        err = kd_dump_sample(capture, delta, skip, o->debug);
        if (err) {
            return err;
        }
        if (skip) {
            char buf[32];
            char *msg = kd_xasprintf("# Sample dump skipped, delta %s ns",
                                     kd_format_thousands(delta, buf));

            kd_print_timestamp(msg);
            free(msg);
        } else {
            done++;
        }
        if (w->target_exited) {
            printf("\n# NOTE: Process %u exited during the sample; the "
                   "sample above ends there.\n", capture->tgid);
            break;
        }

        /* Re-arm at once: a start trigger that fires while the report is
         * printed is a missed sample. */
        err = kd_capture_set(capture, KD_CAPTURE_IDLE);
        if (err) {
            printf("ERROR: Failed to re-arm the capture: %s\n",
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

    if (kd_capture_counters(capture, counters)) {
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
        printf("ERROR: Invalid %s trigger %s\n", role, error);
        free(error);
        return EX_CONFIG;
    }
    err = kd_hook_prepare(hook, trigger, start, tgid, &error);
    if (err == EINVAL) {
        char quoted[128];

        printf("ERROR: Invalid %s trigger [%s]; %s\n", role,
               kd_trigger_quote(text, quoted, sizeof quoted), error);
        free(error);
        return EX_CONFIG;
    } else if (err) {
        printf("ERROR: %s\n", error);
        free(error);
        return EX_OSERR;
    }
    return 0;
}

int
main(int argc, char *argv[])
{
    struct kd_capture capture = { .prog = KD_PROGRAM_INITIALIZER };
    struct kd_trigger start_trigger, stop_trigger;
    struct kd_hook start_hook, stop_hook;
    struct kd_options options;
    unsigned int tgid;
    struct kd_waiter waiter;
    char *error = NULL;
    int status;
    int err;

    memset(&start_trigger, 0, sizeof start_trigger);
    memset(&stop_trigger, 0, sizeof stop_trigger);
    memset(&start_hook, 0, sizeof start_hook);
    memset(&stop_hook, 0, sizeof stop_hook);

    status = kd_options_parse(&options, argc, argv, stdout, stderr);
    if (status >= 0) {
        return status;
    }

    /* The target, as the reference finds it. */
    if (!options.pid) {
        err = kd_target_find_vswitchd(NULL, &options.pid);
        if (err == EEXIST) {
            printf("ERROR: Multiple ovs-vswitchd daemons running, use the "
                   "-p option!\n");
            return EX_NOINPUT;
        } else if (err) {
            printf("ERROR: Failed to find ovs-vswitchd's PID!\n");
            return EX_UNAVAILABLE;
        }
    }
    if (kd_target_resolve(NULL, options.pid, &tgid)) {
        printf("ERROR: No process with PID %u!\n", options.pid);
        return EX_UNAVAILABLE;
    }
    if (tgid != options.pid) {
        fprintf(stderr, "kernel_delay: %u is a thread of process %u; "
                "tracing process %u\n", options.pid, tgid, tgid);
    }

    if (geteuid() != 0) {
        printf("ERROR: We need to run as root to attached probes!\n");
        return EX_NOPERM;
    }

    kd_waiter_init(&waiter, tgid);
    kd_host_mount_tracefs();
    kd_host_cleanup_stale_probes();

    if (options.start_trigger) {
        status = kd_setup_trigger(options.start_trigger, true, tgid,
                                  &start_trigger, &start_hook);
        if (status) {
            goto cleanup;
        }
    }
    if (options.stop_trigger) {
        status = kd_setup_trigger(options.stop_trigger, false, tgid,
                                  &stop_trigger, &stop_hook);
        if (status) {
            goto cleanup;
        }
    }

    err = kd_host_check_headers(&error);
    if (err) {
        printf("ERROR: %s\n", error);
        status = EX_OSFILE;
        goto cleanup;
    }

    err = kd_capture_open(&capture, &options, tgid,
                          options.start_trigger ? &start_hook : NULL,
                          options.stop_trigger ? &stop_hook : NULL, &error);
    if (err) {
        printf("ERROR: %s\n", error);
        status = err == EPROTO ? EX_SOFTWARE : EX_OSERR;
        goto cleanup;
    }

    status = kd_run_samples(&capture, &options, &waiter)
             ? EX_OSERR : EXIT_SUCCESS;
    kd_print_final_warnings(&capture, &options);

cleanup:
    fflush(stdout);
    kd_capture_close(&capture);
    kd_waiter_destroy(&waiter);
    kd_hook_close(&start_hook);
    kd_hook_close(&stop_hook);
    kd_trigger_destroy(&start_trigger);
    kd_trigger_destroy(&stop_trigger);
    free(error);
    return status;
}
