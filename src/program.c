/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "program.h"

#include <bcc/bcc_common.h>
#include <bcc/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define KD_RAW_TP_PREFIX "raw_tracepoint__"

int
kd_program_compile(struct kd_program *prog, const char *text,
                   unsigned int debug, char **error)
{
    *error = NULL;
    prog->module = bpf_module_create_c_from_string(text, debug, NULL, 0,
                                                   true, NULL);
    if (!prog->module) {
        *error = kd_xstrdup("Failed to compile the eBPF program (the "
                            "compiler's messages are above)");
        return EINVAL;
    }
    return 0;
}

/* Loads function 'func' as a program of 'type'.  Returns its fd or a
 * negative errno, with the verifier's log in '*error'. */
static int
kd_program_load(struct kd_program *prog, const char *func, int type,
                unsigned int debug, char **error)
{
    size_t log_size = debug ? 1 << 20 : 1 << 16;
    char *log = kd_xcalloc(1, log_size);
    void *start = bpf_function_start(prog->module, func);
    int fd;

    if (!start) {
        *error = kd_xasprintf("No eBPF function '%s' in the program", func);
        free(log);
        return -ENOENT;
    }
    fd = bcc_func_load(prog->module, type, func, start,
                       bpf_function_size(prog->module, func),
                       bpf_module_license(prog->module),
                       bpf_module_kern_version(prog->module),
                       debug ? 2 : 0, log, log_size, NULL, -1);
    if (fd < 0) {
        size_t len = strlen(log);

        /* The end of the verifier's log says what went wrong. */
        *error = kd_xasprintf("Failed to load eBPF function '%s': %s%s%s",
                              func, strerror(-fd), len ? "\n" : "",
                              len > 2048 ? log + len - 2048 : log);
    }
    free(log);
    return fd;
}

int
kd_program_attach_raw_tracepoints(struct kd_program *prog,
                                  unsigned int debug, char **error)
{
    size_t n = bpf_num_functions(prog->module);

    *error = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *func = bpf_function_name(prog->module, i);
        struct kd_link *link;
        const char *tp;
        int fd;

        if (!func || strncmp(func, KD_RAW_TP_PREFIX,
                             strlen(KD_RAW_TP_PREFIX))) {
            continue;
        }
        tp = func + strlen(KD_RAW_TP_PREFIX);

        fd = kd_program_load(prog, func, BPF_PROG_TYPE_RAW_TRACEPOINT,
                             debug, error);
        if (fd < 0) {
            return -fd;
        }
        prog->links = kd_xreallocarray(prog->links, prog->n_links + 1,
                                       sizeof *prog->links);
        link = &prog->links[prog->n_links++];
        link->func = kd_xstrdup(func);
        link->target = kd_xasprintf("raw tracepoint %s", tp);
        link->prog_fd = fd;
        link->link_fd = bpf_attach_raw_tracepoint(fd, tp);
        if (link->link_fd < 0) {
            int err = link->link_fd == -1 ? errno : -link->link_fd;

            *error = kd_xasprintf("Failed to attach to %s: %s",
                                  link->target, strerror(err));
            link->link_fd = -1;
            return err ? err : EINVAL;
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
    for (size_t i = 0; i < prog->n_links; i++) {
        struct kd_link *link = &prog->links[i];

        if (link->link_fd >= 0) {
            close(link->link_fd);
        }
        if (link->prog_fd >= 0) {
            close(link->prog_fd);
        }
        free(link->func);
        free(link->target);
    }
    free(prog->links);
    prog->links = NULL;
    prog->n_links = 0;
    if (prog->module) {
        bpf_module_destroy(prog->module);
        prog->module = NULL;
    }
}
