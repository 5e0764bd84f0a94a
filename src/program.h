/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_PROGRAM_H
#define KD_PROGRAM_H 1

#include <stddef.h>

/* One eBPF function of the program, loaded and attached. */
struct kd_link {
    char *func;         /* Function name in the program. */
    char *target;       /* What it is attached to, for messages. */
    int prog_fd;
    int link_fd;        /* -1 until attached. */
};

/* An eBPF program compiled by libbcc, its loaded functions and their
 * attachments.  Everything is released by kd_program_close(), and, as all
 * attachments are file descriptors, by the kernel when the process ends
 * however it ends. */
struct kd_program {
    void *module;
    struct kd_link *links;
    size_t n_links;
};

#define KD_PROGRAM_INITIALIZER { NULL, NULL, 0 }

/* Compiles 'text' with libbcc ('debug' is libbcc's debug flags).  Returns 0
 * or a positive errno with a message in '*error'. */
int kd_program_compile(struct kd_program *, const char *text,
                       unsigned int debug, char **error);

/* Loads every function named raw_tracepoint__NAME and attaches it to the
 * raw tracepoint NAME.  Returns 0 or a positive errno with a message in
 * '*error'; on error, what was attached stays attached until
 * kd_program_close(). */
int kd_program_attach_raw_tracepoints(struct kd_program *,
                                      unsigned int debug, char **error);

/* File descriptor of map 'name', or -1. */
int kd_program_map_fd(const struct kd_program *, const char *name);

/* Detaches and unloads everything, then frees the module. */
void kd_program_close(struct kd_program *);

#endif /* program.h */
