/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The capture's user stacks: the unwind tables of the target (unwind.c)
 * for its program, the unwinders in their program arrays, what the walks
 * lost, and the tables kept up to date. */

#include <bcc/bcc_common.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_priv.h"
#include "maps.h"
#include "util.h"

/* User stacks unwound from the CFI need the target's tables: built here,
 * before the program, which is sized for them.  Without them (the
 * target's mappings cannot be read), frame pointers, as a note says. */
void
kd_capture_unwind_build(struct kd_capture *c,
                        const struct kd_options *options, bool from_btf)
{
    char *error = NULL;

    if (!c->needs.unwind) {
        return;
    }
    if (!from_btf) {
        /* The unwinder finds the user registers through the task's BTF
         * pointer (bpf_get_current_task_btf()). */
        fprintf(stderr, "kernel_delay: note: user stacks through frame "
                "pointers: the kernel has no BTF\n");
        c->needs.unwind = false;
        return;
    }
    if (kd_unwind_create(&c->unwind, c->tgid,
                         (size_t) options->unwind_mib << 20, &error)) {
        fprintf(stderr, "kernel_delay: note: user stacks through frame "
                "pointers: %s\n", error);
        free(error);
        c->needs.unwind = false;
        return;
    }
}

/* Loads the unwinders into the program arrays their callers tail-call,
 * and fills the tables' maps.  Before the callers are attached: until
 * then, a caller's tail call would find no unwinder. */
int
kd_capture_unwind_load(struct kd_capture *c,
                       const struct kd_options *options, char **error)
{
    /* The unwinder of perf event programs (kd_profile()) and that of raw
     * tracepoints (sys_exit, sched_switch, sched_waking). */
    static const struct {
        const char *func;
        const char *array;
        int type;
    } unwinders[] = {
        { "kd_uw_profile", "uw_perf_progs", BPF_PROG_TYPE_PERF_EVENT },
        { "kd_uw_raw", "uw_progs", BPF_PROG_TYPE_RAW_TRACEPOINT },
    };
    struct kd_unwind_stats st;
    int err = 0;

    if (!c->unwind) {
        return 0;
    }
    for (size_t i = 0; !err && i < KD_ARRAY_SIZE(unwinders); i++) {
        uint32_t key = 0;
        int fd;

        if (!bpf_function_start(c->prog.module, unwinders[i].func)) {
            continue;
        }
        err = kd_program_load(&c->prog, unwinders[i].func,
                              unwinders[i].type, options->debug, &fd, error);
        if (!err
            && bpf_map_update_elem(kd_program_map_fd(&c->prog,
                                                     unwinders[i].array),
                                   &key, &fd, 0)) {
            err = errno;
            *error = kd_xasprintf("Failed to set the unwinder %s: %s",
                                  unwinders[i].func, strerror(err));
        }
    }
    if (!err) {
        err = kd_unwind_load(c->unwind,
                             kd_program_map_fd(&c->prog, "uw_maps"),
                             kd_program_map_fd(&c->prog, "uw_maps_at"),
                             kd_program_map_fd(&c->prog, "uw_pages"),
                             kd_program_map_fd(&c->prog, "uw_rows"), error);
    }
    if (!err && options->debug) {
        kd_unwind_stats(c->unwind, &st);
        fprintf(stderr, "kernel_delay: unwind tables: %zu mappings, %zu "
                "files (%zu without CFI, %zu left out), %zu rows of %zu, "
                "%zu pages, built in %.3f s, %.1f MiB of kernel memory\n",
                st.mappings, st.files, st.files_no_cfi, st.files_full,
                st.rows, st.rows_max, st.pages, st.build_ns / 1e9,
                st.kernel_bytes / 1048576.0);
    }
    return err;
}

/* How the walks of user stacks ended since the last call, into 'l'. */
void
kd_capture_unwind_losses(struct kd_capture *c, struct kd_losses *l)
{
    uint64_t now[KD_UW_N_ENDS];

    if (!c->unwind
        || kd_map_percpu_sums(kd_program_map_fd(&c->prog, "uw_ends"), now,
                              KD_UW_N_ENDS, false)) {
        return;
    }
    for (size_t i = 0; i < KD_UW_N_ENDS; i++) {
        l->user_stacks[i] = now[i] - c->uw_ends_seen[i];
    }
    memcpy(c->uw_ends_seen, now, sizeof now);
}

int
kd_capture_refresh(struct kd_capture *c, char **error)
{
    uint64_t now[KD_N_COUNTERS];
    bool force = false;

    *error = NULL;
    if (!c->unwind) {
        return 0;
    }
    if (!kd_map_percpu_sums(c->counters_fd, now, KD_N_COUNTERS, false)
        && now[KD_COUNTER_UNWIND_NO_MAP] != c->unwind_no_map) {
        c->unwind_no_map = now[KD_COUNTER_UNWIND_NO_MAP];
        force = true;
    }
    return kd_unwind_refresh(c->unwind, force, error);
}
