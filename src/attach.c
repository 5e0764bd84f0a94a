/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* A run, once the target is known: the triggers, the capture, the
 * sampler, and under --wait-target the target waited for and attached
 * again. */

#include "attach.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "capture.h"
#include "hints.h"
#include "hook.h"
#include "host.h"
#include "options.h"
#include "output.h"
#include "sample.h"
#include "evidence.h"
#include "sampler.h"
#include "symbols.h"
#include "target.h"
#include "trigger.h"
#include "util.h"
#include "waiter.h"

/* Parses trigger 'text' and checks it against the target and the kernel.
 * Returns 0, or the exit status after printing the error. */
static int
kd_attach_trigger(const struct kd_output *output, const char *text,
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

/* After the capture failed to open: the next step, if we know it.  Root
 * without the capabilities (a container) fails anywhere from creating the
 * first map (in libbcc's compile step) to attaching. */
static void
kd_attach_capture_hint(void)
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
kd_attach_once(struct kd_sampler *sampler, unsigned int tgid,
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
        kd_attach_capture_hint();
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
kd_attach_wait_for_target(struct kd_waiter *waiter, unsigned int *tgid)
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
            if (kd_attach_wait_for_target(sampler->waiter, &tgid)) {
                return status;
            }
        }
        status = kd_attach_once(sampler, tgid, capture, hooks);
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

int
kd_attach_run(const struct kd_options *options,
              const struct kd_output *output, unsigned int tgid,
              struct kd_http *http, struct kd_capture **capture,
              struct kd_trigger trigger[2], struct kd_hook hooks[2])
{
    const char *triggers[2] = { options->start_trigger,
                                options->stop_trigger };
    struct kd_evidence evidence = { .options = NULL };
    struct kd_thread_filter filter;
    struct kd_waiter waiter;
    char *error = NULL;
    int status = 0;

    kd_thread_filter_init(&filter, options->thread_regex, options->tids,
                          options->n_tids);
    kd_waiter_init(&waiter, tgid, http);
    kd_host_mount_tracefs();
    kd_host_cleanup_stale_probes();

    for (int i = 0; i < 2 && !status; i++) {
        if (triggers[i]) {
            status = kd_attach_trigger(output, triggers[i], !i, tgid,
                                       &trigger[i], &hooks[i]);
        }
    }
    if (!status && kd_host_check_headers(&error)) {
        kd_output_error(output, "%s\n", error);
        status = EX_OSFILE;
    }
    if (!status && (options->trace_dir || options->on_long_poll)
        && kd_evidence_init(&evidence, options, output)) {
        status = EX_CANTCREAT;
    }
    if (!status) {
        struct kd_needs needs = kd_options_needs(options);
        struct kd_sampler sampler = {
            .options = options,
            .output = output,
            .filter = &filter,
            .waiter = &waiter,
            .evidence = evidence.options ? &evidence : NULL,
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
        if (sampler.evidence) {
            kd_evidence_destroy(&evidence);
        }
    }

    kd_waiter_destroy(&waiter);
    kd_thread_filter_destroy(&filter);
    free(error);
    return status;
}
