/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* An eBPF program through libbcc: compiled, loaded, attached, closed. */

#include "program.h"

#include <bcc/bcc_common.h>
#include <bcc/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bcc_shim.h"
#include "util.h"

int
kd_program_compile(struct kd_program *prog, const char *text,
                   unsigned int debug, char **error)
{
    *error = NULL;
    kd_bcc_shim_begin();
    /* No debug information (libbcc asks for it, for the maps' BTF, which
     * nothing here needs): it is a quarter of the compile time of the
     * larger programs.  Kept with -D, whose outputs name source lines. */
    static const char *cflags[] = { "-g0" };

    prog->module = bpf_module_create_c_from_string(text, debug, cflags,
                                                   debug ? 0 : 1, true,
                                                   NULL);
    kd_bcc_shim_end();
    if (!prog->module) {
        *error = kd_xstrdup("Failed to compile the eBPF program (the "
                            "compiler's messages are above)");
        return EINVAL;
    }
    return 0;
}

/* libbcc's debug flag that asks for the verifier's register states. */
#define KD_DEBUG_BPF_REGISTER_STATE 0x10

/* Loads 'func' as a program of 'type' with a verifier log of 'level'
 * (0: none) into a buffer of 'log_size' bytes.  Returns the program's
 * fd, or a negative errno; '*log' is the log (to be freed) or NULL. */
static int
kd_program_load_log(struct kd_program *prog, const char *func, int type,
                    void *start, int level, size_t log_size, char **log)
{
    *log = level ? kd_xcalloc(1, log_size) : NULL;
    return bcc_func_load(prog->module, type, func, start,
                         bpf_function_size(prog->module, func),
                         bpf_module_license(prog->module),
                         bpf_module_kern_version(prog->module),
                         level, *log, level ? log_size : 0, NULL, -1);
}

int
kd_program_load(struct kd_program *prog, const char *func, int type,
                unsigned int debug, int *fdp, char **error)
{
    /* The verifier's log with -D: its states with the register state
     * flag (many MB for the largest programs), else its summary. */
    int level = debug & KD_DEBUG_BPF_REGISTER_STATE ? 2 : debug ? 1 : 0;
    size_t log_size = level == 2 ? 16 << 20 : 1 << 20;
    void *start;
    char *log;
    int fd;

    for (size_t i = 0; i < prog->n_funcs; i++) {
        if (!strcmp(prog->funcs[i].name, func)
            && prog->funcs[i].type == type) {
            *fdp = prog->funcs[i].fd;
            return 0;
        }
    }

    start = bpf_function_start(prog->module, func);
    if (!start) {
        *error = kd_xasprintf("No eBPF function '%s' in the program", func);
        return ENOENT;
    }
    fd = kd_program_load_log(prog, func, type, start, level, log_size, &log);
    if (fd == -ENOSPC && level) {
        /* The log did not fit: that must not keep the program out. */
        fprintf(stderr, "kernel_delay: the verifier's log of '%s' is "
                "longer than %zu bytes: loading it without\n", func,
                log_size);
        free(log);
        fd = kd_program_load_log(prog, func, type, start, 0, 0, &log);
    }
    if (fd < 0) {
        size_t len = log ? strlen(log) : 0;

        /* The end of the verifier's log says what went wrong. */
        *error = kd_xasprintf("Failed to load eBPF function '%s': %s%s%s",
                              func, strerror(-fd), len ? "\n" : "",
                              len > 2048 ? log + len - 2048 : log ? log : "");
        free(log);
        return -fd;
    }
    free(log);

    prog->funcs = kd_xreallocarray(prog->funcs, prog->n_funcs + 1,
                                   sizeof *prog->funcs);
    prog->funcs[prog->n_funcs++] = (struct kd_func) {
        .name = kd_xstrdup(func),
        .type = type,
        .fd = fd,
    };
    *fdp = fd;
    return 0;
}

/* Records attachment 'fd' (or, when negative, reports the failure). */
static int
kd_program_add_link(struct kd_program *prog, enum kd_link_kind kind,
                    int fd, char *target, char *ev_name, char **error)
{
    struct kd_link *link;

    if (fd < 0) {
        int err = fd == -1 && errno ? errno : (fd == -1 ? EINVAL : -fd);

        *error = kd_xasprintf("Failed to attach to %s: %s", target,
                              strerror(err));
        if (ev_name) {
            if (kind == KD_LINK_UPROBE) {
                bpf_detach_uprobe(ev_name);
            } else if (kind == KD_LINK_KPROBE) {
                bpf_detach_kprobe(ev_name);
            }
        }
        free(target);
        free(ev_name);
        return err;
    }
    prog->links = kd_xreallocarray(prog->links, prog->n_links + 1,
                                   sizeof *prog->links);
    link = &prog->links[prog->n_links++];
    link->kind = kind;
    link->fd = fd;
    link->target = target;
    link->ev_name = ev_name;
    return 0;
}

/* A k/uprobe event name of ours, unique in this process and on the host,
 * that the legacy interface accepts ([A-Za-z0-9_]). */
static char *
kd_program_ev_name(struct kd_program *prog)
{
    return kd_xasprintf(KD_EVENT_PREFIX "%d_%zu", (int) getpid(),
                        prog->n_links);
}

/* Loads 'func' as a kprobe-type program, for a probe of a new name (in
 * '*ev_name', for the caller to pass to kd_program_add_link()).  Returns 0
 * or a positive errno with a message in '*error'. */
static int
kd_program_load_probe(struct kd_program *prog, const char *func,
                      unsigned int debug, int *fd, char **ev_name,
                      char **error)
{
    int err;

    *error = NULL;
    err = kd_program_load(prog, func, BPF_PROG_TYPE_KPROBE, debug, fd,
                          error);
    if (!err) {
        *ev_name = kd_program_ev_name(prog);
        errno = 0;
    }
    return err;
}

int
kd_program_attach_uprobe(struct kd_program *prog, const char *func,
                         bool retprobe, const char *binary, uint64_t offset,
                         pid_t pid, unsigned int debug, char **error)
{
    char *ev_name, *safe_binary, *target;
    int err, fd;

    err = kd_program_load_probe(prog, func, debug, &fd, &ev_name, error);
    if (err) {
        return err;
    }
    fd = bpf_attach_uprobe(fd, retprobe ? BPF_PROBE_RETURN
                                        : BPF_PROBE_ENTRY,
                           ev_name, binary, offset, pid, 0);
    /* The binary is the target's: its path is quoted safely. */
    safe_binary = kd_xstrdup_safe(binary);
    target = kd_xasprintf("u%sprobe %s+0x%" PRIx64, retprobe ? "ret" : "",
                          safe_binary, offset);
    free(safe_binary);
    return kd_program_add_link(prog, KD_LINK_UPROBE, fd, target, ev_name,
                               error);
}

int
kd_program_attach_kprobe(struct kd_program *prog, const char *func,
                         bool retprobe, const char *kfunc,
                         unsigned int debug, char **error)
{
    char *ev_name;
    int err, fd;

    err = kd_program_load_probe(prog, func, debug, &fd, &ev_name, error);
    if (err) {
        return err;
    }
    fd = bpf_attach_kprobe(fd, retprobe ? BPF_PROBE_RETURN
                                        : BPF_PROBE_ENTRY,
                           ev_name, kfunc, 0, 0);
    return kd_program_add_link(prog, KD_LINK_KPROBE, fd,
                               kd_xasprintf("k%sprobe %s",
                                            retprobe ? "ret" : "", kfunc),
                               ev_name, error);
}

int
kd_program_attach_tracepoint(struct kd_program *prog, const char *func,
                             const char *system, const char *event,
                             unsigned int debug, char **error)
{
    int err, fd;

    *error = NULL;
    err = kd_program_load(prog, func, BPF_PROG_TYPE_TRACEPOINT, debug, &fd,
                          error);
    if (err) {
        return err;
    }
    errno = 0;
    fd = bpf_attach_tracepoint(fd, system, event);
    return kd_program_add_link(prog, KD_LINK_TP, fd,
                               kd_xasprintf("tracepoint %s:%s", system,
                                            event),
                               NULL, error);
}

int
kd_program_attach_cpu_clock(struct kd_program *prog, const char *func,
                            unsigned int hz, int cpu, unsigned int debug,
                            char **error)
{
    int err, fd;

    *error = NULL;
    err = kd_program_load(prog, func, BPF_PROG_TYPE_PERF_EVENT, debug, &fd,
                          error);
    if (err) {
        return err;
    }
    errno = 0;
    fd = bpf_attach_perf_event(fd, PERF_TYPE_SOFTWARE,
                               PERF_COUNT_SW_CPU_CLOCK, 0, hz, -1, cpu, -1);
    return kd_program_add_link(prog, KD_LINK_PERF, fd,
                               kd_xasprintf("the CPU clock of CPU %d at "
                                            "%u Hz", cpu, hz),
                               NULL, error);
}

int
kd_program_attach_raw_tracepoints(struct kd_program *prog,
                                  unsigned int debug, char **error)
{
    size_t n = bpf_num_functions(prog->module);

    *error = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *func = bpf_function_name(prog->module, i);
        const char *tp;
        int err, fd;

        if (!func || strncmp(func, KD_RAW_TP_PREFIX,
                             strlen(KD_RAW_TP_PREFIX))) {
            continue;
        }
        tp = func + strlen(KD_RAW_TP_PREFIX);

        err = kd_program_load(prog, func, BPF_PROG_TYPE_RAW_TRACEPOINT,
                              debug, &fd, error);
        if (err) {
            return err;
        }
        errno = 0;
        err = kd_program_add_link(prog, KD_LINK_RAW_TP,
                                  bpf_attach_raw_tracepoint(fd, tp),
                                  kd_xasprintf("raw tracepoint %s", tp),
                                  NULL, error);
        if (err) {
            return err;
        }
    }
    return 0;
}

int
kd_program_map_fd(const struct kd_program *prog, const char *name)
{
    return prog->module ? bpf_table_fd(prog->module, name) : -1;
}

void
kd_program_close(struct kd_program *prog)
{
    /* Detach first, then unload. */
    for (size_t i = 0; i < prog->n_links; i++) {
        struct kd_link *link = &prog->links[i];

        close(link->fd);
        if (link->ev_name && link->kind == KD_LINK_UPROBE) {
            bpf_detach_uprobe(link->ev_name);
        } else if (link->ev_name && link->kind == KD_LINK_KPROBE) {
            bpf_detach_kprobe(link->ev_name);
        }
        free(link->target);
        free(link->ev_name);
    }
    free(prog->links);
    prog->links = NULL;
    prog->n_links = 0;

    for (size_t i = 0; i < prog->n_funcs; i++) {
        close(prog->funcs[i].fd);
        free(prog->funcs[i].name);
    }
    free(prog->funcs);
    prog->funcs = NULL;
    prog->n_funcs = 0;

    if (prog->module) {
        bpf_module_destroy(prog->module);
        prog->module = NULL;
    }
}
