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
 *
 * Start-up: the command line, the output, the target; then the run
 * (attach.h: the triggers, the capture, the sampling loop, and under
 * --wait-target the target's restarts), and the clean-up.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "attach.h"
#include "capture.h"
#include "exporter.h"
#include "hints.h"
#include "hook.h"
#include "http.h"
#include "host.h"
#include "options.h"
#include "output.h"
#include "symbols.h"
#include "target.h"
#include "trigger.h"
#include "util.h"

/* Finds the target process, as the reference does, into '*tgid'.
 * Returns 0, or the exit status after printing the error. */
static int
kd_find_target(const struct kd_output *output, struct kd_options *options,
               unsigned int *tgid)
{
    struct kd_ds hint = KD_DS_EMPTY_INITIALIZER;
    int err;

    if (!options->pid) {
        err = kd_target_find_vswitchd(NULL, &options->pid);
        if (err == ENOENT && options->wait_target && !options->list_probes) {
            /* Not running yet: kd_trace() waits for it. */
            *tgid = 0;
            return 0;
        } else if (err == EEXIST) {
            kd_output_error(output, "Multiple ovs-vswitchd daemons "
                            "running, use the -p option!\n");
            kd_hint_many_vswitchd(&hint);
            kd_hint_print(&hint, stderr);
            return EX_NOINPUT;
        } else if (err) {
            kd_output_error(output, "Failed to find ovs-vswitchd's PID!\n");
            kd_hint_no_vswitchd(&hint);
            kd_hint_print(&hint, stderr);
            return EX_UNAVAILABLE;
        }
    }
    if (kd_target_resolve(NULL, options->pid, tgid)) {
        kd_output_error(output, "No process with PID %u!\n", options->pid);
        kd_hint_no_process(&hint, options->pid);
        kd_hint_print(&hint, stderr);
        return EX_UNAVAILABLE;
    }
    if (*tgid != options->pid) {
        fprintf(stderr, "kernel_delay: %u is a thread of process %u; "
                "tracing process %u\n", options->pid, *tgid, *tgid);
    }
    return 0;
}

/* 0 if process 'pid''s memory maps can be read, else why not (errno). */
static int
kd_maps_readable(unsigned int pid)
{
    char path[64];
    FILE *f;

    snprintf(path, sizeof path, "/proc/%u/maps", pid);
    f = fopen(path, "re");
    if (!f) {
        return errno;
    }
    fclose(f);
    return 0;
}

/* Checks that the threads --tid lists are threads of process 'tgid': a
 * note on standard error for each that is not; when none is, and no
 * --thread may match a thread later, nothing could ever be reported, and
 * that is an error (EX_UNAVAILABLE, as for a -p that names no process).
 * Returns 0, or the exit status after printing the error. */
static int
kd_check_tids(const struct kd_output *output,
              const struct kd_options *options, unsigned int tgid)
{
    struct kd_ds hint = KD_DS_EMPTY_INITIALIZER;
    size_t n_found = 0;

    for (size_t i = 0; i < options->n_tids; i++) {
        unsigned int tid = options->tids[i], owner;

        if (!kd_target_resolve(NULL, tid, &owner) && owner == tgid) {
            n_found++;
        } else if (options->thread_regex || options->n_tids > 1) {
            fprintf(stderr, "kernel_delay: --tid %u is not a thread of "
                    "process %u (its threads: ls /proc/%u/task)\n", tid,
                    tgid, tgid);
        }
    }
    if (options->n_tids && !n_found && !options->thread_regex) {
        if (options->n_tids == 1) {
            kd_output_error(output, "No thread of process %u has TID %u!\n",
                            tgid, options->tids[0]);
        } else {
            kd_output_error(output, "No thread of process %u has a TID "
                            "that --tid lists!\n", tgid);
        }
        kd_hint_no_thread(&hint, tgid);
        kd_hint_print(&hint, stderr);
        return EX_UNAVAILABLE;
    }
    return 0;
}

/* --list-probes.  Returns the exit status. */
static int
kd_list_probes(const struct kd_output *output, unsigned int tgid)
{
    char *list;
    int n = kd_hook_list_usdt(tgid, &list);

    if (n < 0) {
        struct kd_ds hint = KD_DS_EMPTY_INITIALIZER;

        kd_output_error(output, "Can't read the USDT probes of process "
                        "%u!\n", tgid);
        kd_hint_usdt_unreadable(&hint, tgid, kd_maps_readable(tgid));
        kd_hint_print(&hint, stderr);
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

/* kd_run() once the output is ready.  Returns the exit status. */
static int
kd_run_target(struct kd_options *options, struct kd_output *output,
              struct kd_http *http)
{
    struct kd_capture *capture = NULL;
    struct kd_trigger triggers[2];
    struct kd_hook hooks[2];
    unsigned int tgid;
    int status;

    status = kd_find_target(output, options, &tgid);
    if (status) {
        return status;
    }
    if (options->list_probes) {
        return kd_list_probes(output, tgid);
    }
    status = kd_check_tids(output, options, tgid);
    if (status) {
        return status;
    }
    if (geteuid() != 0) {
        struct kd_ds hint = KD_DS_EMPTY_INITIALIZER;

        kd_output_error(output, "We need to run as root to attached "
                        "probes!\n");
        kd_hint_not_root(&hint);
        kd_hint_print(&hint, stderr);
        return EX_NOPERM;
    }

    memset(triggers, 0, sizeof triggers);
    memset(hooks, 0, sizeof hooks);
    status = kd_attach_run(options, output, tgid, http, &capture, triggers,
                           hooks);
    kd_output_status_clear(output);

    /* The capture before the hooks, which hold their triggers: it holds
     * links to their probes. */
    fflush(stdout);
    kd_capture_close(capture);
    for (int i = 0; i < 2; i++) {
        kd_hook_close(&hooks[i]);
        kd_trigger_destroy(&triggers[i]);
    }
    kd_symbols_unload_kernel();
    return status;
}

/* Everything after the command line.  Returns the exit status. */
static int
kd_run(struct kd_options *options)
{
    struct kd_exporter *exporter = NULL;
    struct kd_status_line status_line;
    struct kd_output output;
    int status;

    /* The format, chosen once: text, or JSON Lines; the status line on
     * standard error if it is a terminal, and not with -q. */
    kd_output_init(&output, options, stdout, stderr);
    if (!options->quiet && isatty(STDERR_FILENO)) {
        kd_output_set_status(&output, &status_line, stderr);
    }
    if (options->folded) {
        /* Appended to: a watch may go on from an earlier one. */
        output.folded = fopen(options->folded, "ae");
        if (!output.folded) {
            char *safe = kd_xstrdup_safe(options->folded);

            kd_output_error(&output, "Failed to open %s (--folded): %s\n",
                            safe, strerror(errno));
            free(safe);
            return EX_CANTCREAT;
        }
    }
    if (options->metrics) {
        /* Bound before anything else, so that a port taken fails at
         * once; served from then on by every wait. */
        char *error = NULL;

        if (kd_exporter_open(&exporter, options, &error)) {
            kd_output_error(&output, "%s (--metrics)\n", error);
            free(error);
            if (output.folded) {
                fclose(output.folded);
            }
            return EX_UNAVAILABLE;
        }
        output.metrics = kd_exporter_metrics(exporter);
        fprintf(stderr, "kernel_delay: metrics at http://%s/metrics\n",
                kd_http_address(kd_exporter_http(exporter)));
    }
    status = kd_run_target(options, &output, kd_exporter_http(exporter));
    if (output.folded) {
        fclose(output.folded);
    }
    kd_exporter_close(exporter);
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
    kd_ds_flush(&ds, stdout, 0);
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
