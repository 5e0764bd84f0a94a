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
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "host.h"
#include "options.h"
#include "report.h"
#include "sample.h"
#include "target.h"
#include "util.h"

/* Set by the signal handler, and only there. */
static volatile sig_atomic_t kd_signalled;

static void
kd_on_signal(int signo)
{
    kd_signalled = signo;
}

/* Catches SIGINT, SIGTERM and SIGHUP, and blocks them outside of
 * kd_wait(), so that a signal can never be missed between checking
 * kd_signalled and going to sleep.  '*unblocked' receives the mask to wait
 * with. */
static void
kd_signals_init(sigset_t *unblocked)
{
    static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    sigset_t block;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = kd_on_signal;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&block);
    for (size_t i = 0; i < KD_ARRAY_SIZE(signals); i++) {
        sigaction(signals[i], &sa, NULL);
        sigaddset(&block, signals[i]);
    }
    sigprocmask(SIG_BLOCK, &block, unblocked);
    for (size_t i = 0; i < KD_ARRAY_SIZE(signals); i++) {
        sigdelset(unblocked, signals[i]);
    }
}

static uint64_t
kd_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Sleeps until monotonic time 'deadline_ns' or a signal. */
static void
kd_wait(uint64_t deadline_ns, const sigset_t *unblocked)
{
    while (!kd_signalled) {
        uint64_t now = kd_now_ns();
        struct timespec ts;

        if (now >= deadline_ns) {
            break;
        }
        ts.tv_sec = (deadline_ns - now) / 1000000000ull;
        ts.tv_nsec = (deadline_ns - now) % 1000000000ull;
        ppoll(NULL, 0, &ts, unblocked);
    }
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
    printf(".\n#          The statistics above are incomplete.\n");
}

/* Ends the sample in progress, prints its report and readies the maps for
 * the next one.  Returns 0 or a positive errno. */
static int
kd_dump_sample(struct kd_capture *capture, bool debug)
{
    struct kd_sample sample = { .pid = capture->tgid };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    uint64_t lost[KD_N_FULL_MAPS];
    char *error = NULL;
    uint64_t start;
    int err;

    kd_capture_set(capture, KD_CAPTURE_STOPPED);
    kd_print_timestamp("# Stop sampling");

    kd_print_timestamp("# Sample dump");
    start = kd_now_ns();
    err = kd_capture_collect(capture, &sample, lost, &error);
    if (err) {
        printf("ERROR: %s\n", error);
        free(error);
        kd_sample_clear(&sample);
        return err;
    }
    kd_sample_group(&sample, kd_target_thread_name, NULL);
    kd_report_sample(&ds, &sample);
    fwrite(ds.string, 1, ds.length, stdout);
    kd_print_lost(lost);
    fflush(stdout);
    if (debug) {
        fprintf(stderr, "kernel_delay: sample of %zu threads read and "
                "reported in %.3f ms\n", sample.n_threads,
                (kd_now_ns() - start) / 1e6);
    }

    kd_ds_destroy(&ds);
    kd_sample_clear(&sample);
    return kd_capture_set(capture, KD_CAPTURE_IDLE);
}

/* The options of later versions that this one does not implement yet are
 * refused rather than silently ignored. */
static int
kd_check_supported(const struct kd_options *o)
{
    const char *option = o->syscall_events ? "--syscall-events"
                         : o->start_trigger ? "--start-trigger"
                         : o->stop_trigger ? "--stop-trigger"
                         : NULL;

    if (option) {
        printf("ERROR: %s is not supported by this version of "
               "kernel_delay!\n", option);
        return EX_CONFIG;
    }
    return 0;
}

int
main(int argc, char *argv[])
{
    struct kd_capture capture = { .prog = KD_PROGRAM_INITIALIZER };
    struct kd_options options;
    unsigned int tgid;
    sigset_t unblocked;
    char *error = NULL;
    int status;
    int err;

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

    status = kd_check_supported(&options);
    if (status) {
        return status;
    }

    kd_signals_init(&unblocked);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);

    kd_host_mount_tracefs();
    err = kd_host_check_headers(&error);
    if (err) {
        printf("ERROR: %s\n", error);
        status = EX_OSFILE;
        goto cleanup;
    }

    err = kd_capture_open(&capture, &options, tgid, &error);
    if (err) {
        printf("ERROR: %s\n", error);
        status = err == EPROTO ? EX_SOFTWARE : EX_OSERR;
        goto cleanup;
    }

    /* From here on the signals only interrupt kd_wait(). */
    kd_signals_init(&unblocked);
    status = EXIT_SUCCESS;
    for (unsigned int i = 0; i < options.sample_count && !kd_signalled;
         i++) {
        uint64_t deadline;

        err = kd_capture_set(&capture, KD_CAPTURE_ON);
        if (err) {
            printf("ERROR: Failed to start capturing: %s\n", strerror(err));
            status = EX_OSERR;
            goto cleanup;
        }
        deadline = kd_now_ns() + options.sample_time * 1e9;
        kd_print_timestamp("# Start sampling");
        kd_wait(deadline, &unblocked);

        if (kd_dump_sample(&capture, options.debug)) {
            status = EX_OSERR;
            goto cleanup;
        }
        if (options.sample_interval > 0 && i + 1 < options.sample_count) {
            kd_wait(kd_now_ns() + options.sample_interval * 1e9,
                    &unblocked);
        }
    }

cleanup:
    fflush(stdout);
    kd_capture_close(&capture);
    free(error);
    return status;
}
