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
 * Start-up: the target, the triggers, the capture; then the sampling loop
 * (sampler.h) and the clean-up.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "hints.h"
#include "hook.h"
#include "host.h"
#include "options.h"
#include "output.h"
#include "sample.h"
#include "sampler.h"
#include "symbols.h"
#include "target.h"
#include "trigger.h"
#include "util.h"
#include "waiter.h"

/* Parses trigger 'text' and checks it against the target and the kernel.
 * Returns 0, or the exit status after printing the error. */
static int
kd_setup_trigger(const struct kd_output *output, const char *text,
                 bool start, unsigned int tgid, struct kd_trigger *trigger,
                 struct kd_hook *hook)
{
    const char *role = start ? "start" : "stop";
    struct kd_ds hint = KD_DS_EMPTY_INITIALIZER;
    char *error = NULL;
    int err;

    err = kd_trigger_parse(text, trigger, &error);
    if (err) {
        kd_output_error(output, "Invalid %s trigger %s\n", role, error);
        kd_hint_trigger_syntax(&hint);
        kd_hint_print(&hint, stderr);
        free(error);
        return EX_CONFIG;
    }
    err = kd_hook_prepare(hook, trigger, start, tgid, &error);
    if (err == EINVAL) {
        char quoted[128];

        kd_output_error(output, "Invalid %s trigger [%s]; %s\n", role,
                        kd_trigger_quote(text, quoted, sizeof quoted),
                        error);
        free(error);
        return EX_CONFIG;
    } else if (err) {
        kd_output_error(output, "%s\n", error);
        if (err == ENOENT) {
            kd_hint_missing_function(&hint, tgid, trigger->library);
        } else if (err == ENXIO) {
            kd_hint_missing_library(&hint, tgid);
        }
        kd_hint_print(&hint, stderr);
        free(error);
        return EX_OSERR;
    }
    return 0;
}

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

/* After the capture failed to open: the next step, if we know it.  Root
 * without the capabilities (a container) fails anywhere from creating the
 * first map (in libbcc's compile step) to attaching. */
static void
kd_capture_hint(void)
{
    struct kd_ds hint = KD_DS_EMPTY_INITIALIZER;
    uint64_t caps;

    if (!kd_host_effective_caps(&caps) && kd_hint_caps_lacking(caps)) {
        kd_hint_no_capability(&hint, caps);
        kd_hint_print(&hint, stderr);
    }
}

/* Opens the capture of process 'tgid' into '*capture' and runs the
 * sampler on it.  Returns the exit status. */
static int
kd_attach(struct kd_sampler *sampler, unsigned int tgid,
          struct kd_capture **capture, struct kd_hook hooks[2])
{
    const struct kd_options *options = sampler->options;
    const struct kd_output *output = sampler->output;
    char *error = NULL;
    int status;
    int err;

    err = kd_capture_open(capture, options, tgid,
                          options->start_trigger ? &hooks[0] : NULL,
                          options->stop_trigger ? &hooks[1] : NULL, &error);
    if (err) {
        kd_output_error(output, "%s\n", error);
        free(error);
        kd_capture_hint();
        return err == EPROTO ? EX_SOFTWARE : EX_OSERR;
    }
    if (options->wait_target) {
        output->target(output, KD_TARGET_ATTACHED, tgid);
    }
    sampler->capture = *capture;
    status = kd_sampler_run(sampler) ? EX_OSERR : EXIT_SUCCESS;
    kd_sampler_final_warnings(sampler);
    return status;
}

/* --wait-target: looks for ovs-vswitchd in /proc once a second until it
 * runs.  Returns 0 and its pid in '*tgid', or ECANCELED on a signal. */
static int
kd_wait_for_target(struct kd_waiter *waiter, unsigned int *tgid)
{
    kd_waiter_retarget(waiter, 0);
    for (;;) {
        unsigned int pid;

        if (!kd_target_find_vswitchd(NULL, &pid)
            && !kd_target_resolve(NULL, pid, tgid)) {
            kd_waiter_retarget(waiter, *tgid);
            return 0;
        }
        kd_wait(waiter, NULL, kd_now_ns() + 1000000000ull);
        if (kd_waiter_signalled()) {
            return ECANCELED;
        }
    }
}

/* Attaches to process 'tgid' (0: not running yet) and runs the sampler;
 * under --wait-target, waits for ovs-vswitchd whenever it is not running,
 * and attaches again, until a signal or --sample-count intervals.
 * Returns the exit status. */
static int
kd_attach_loop(struct kd_sampler *sampler, unsigned int tgid,
               struct kd_capture **capture, struct kd_hook hooks[2])
{
    const struct kd_options *o = sampler->options;
    const struct kd_output *output = sampler->output;
    int status = 0;

    for (;;) {
        if (!tgid) {
            if (kd_wait_for_target(sampler->waiter, &tgid)) {
                return status;
            }
        }
        status = kd_attach(sampler, tgid, capture, hooks);
        if (status || !o->wait_target || kd_waiter_signalled()
            || !sampler->waiter->target_exited
            || (o->sample_count_set
                && sampler->reported >= o->sample_count)) {
            return status;
        }
        output->target(output, KD_TARGET_LOST, tgid);
        kd_capture_close(*capture);
        *capture = NULL;
        tgid = 0;
    }
}

/* Prepares the triggers and the host, then opens the capture of process
 * 'tgid' (0: --wait-target waits for it) and takes the samples.  Returns
 * the exit status. */
static int
kd_trace(const struct kd_options *options, const struct kd_output *output,
         unsigned int tgid, struct kd_capture **capture,
         struct kd_trigger trigger[2], struct kd_hook hooks[2])
{
    const char *triggers[2] = { options->start_trigger,
                                options->stop_trigger };
    struct kd_thread_filter filter;
    struct kd_waiter waiter;
    char *error = NULL;
    int status = 0;

    kd_thread_filter_init(&filter, options->thread_regex, options->tids,
                          options->n_tids);
    kd_waiter_init(&waiter, tgid);
    kd_host_mount_tracefs();
    kd_host_cleanup_stale_probes();

    for (int i = 0; i < 2 && !status; i++) {
        if (triggers[i]) {
            status = kd_setup_trigger(output, triggers[i], !i, tgid,
                                      &trigger[i], &hooks[i]);
        }
    }
    if (!status && kd_host_check_headers(&error)) {
        kd_output_error(output, "%s\n", error);
        status = EX_OSFILE;
    }
    if (!status) {
        struct kd_needs needs = kd_options_needs(options);
        struct kd_sampler sampler = {
            .options = options,
            .output = output,
            .filter = &filter,
            .waiter = &waiter,
        };

        /* Before anything is attached: the kernel's symbols, read once
         * for the run, so that no report waits for them. */
        if (needs.stacks || needs.profile || needs.blocked) {
            kd_symbols_load_kernel();
        }

        if (!tgid) {
            output->target(output, KD_TARGET_WAITING, 0);
        }
        status = kd_attach_loop(&sampler, tgid, capture, hooks);
    }

    kd_waiter_destroy(&waiter);
    kd_thread_filter_destroy(&filter);
    free(error);
    return status;
}

/* kd_run() once the output is ready.  Returns the exit status. */
static int
kd_run_target(struct kd_options *options, struct kd_output *output)
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
    status = kd_trace(options, output, tgid, &capture, triggers, hooks);
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
    status = kd_run_target(options, &output);
    if (output.folded) {
        fclose(output.folded);
    }
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
