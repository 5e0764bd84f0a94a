/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_PROGRAM_H
#define KD_PROGRAM_H 1

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>
#include <sys/types.h>

/* One eBPF function of the program, loaded. */
struct kd_func {
    char *name;
    int type;           /* enum bpf_prog_type. */
    int fd;
};

enum kd_link_kind {
    KD_LINK_RAW_TP,     /* Raw tracepoint: a link fd. */
    KD_LINK_TP,         /* Tracepoint: a perf event fd. */
    KD_LINK_KPROBE,     /* k(ret)probe: a perf event fd (+ probe event). */
    KD_LINK_UPROBE,     /* u(ret)probe: a perf event fd (+ probe event). */
    KD_LINK_PERF,       /* A sampling perf event: its fd. */
};

/* One attachment of a function. */
struct kd_link {
    enum kd_link_kind kind;
    char *target;       /* What it is attached to, for messages. */
    char *ev_name;      /* k/uprobe event name, for the legacy interface. */
    int fd;
};

/* An eBPF program compiled by libbcc, its loaded functions and their
 * attachments.  Everything is released by kd_program_close(), and, as all
 * attachments are file descriptors, by the kernel when the process ends
 * however it ends (k/uprobes made through the legacy tracefs interface
 * excepted; this kernel and any since 4.17 has the perf PMUs instead). */
struct kd_program {
    void *module;
    struct kd_func *funcs;
    size_t n_funcs;
    struct kd_link *links;
    size_t n_links;
};

#define KD_PROGRAM_INITIALIZER { NULL, NULL, 0, NULL, 0 }

/* Prefix of the names of the functions attached to the raw tracepoint
 * named by the rest of the name. */
#define KD_RAW_TP_PREFIX "raw_tracepoint__"

/* Prefix of the k/uprobe event names kernel_delay makes. */
#define KD_EVENT_PREFIX "kernel_delay_"

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

/* Loads function 'func' as a program of 'type' (enum bpf_prog_type), once
 * even if asked again.  Returns 0 and its fd in '*fd', or a positive errno
 * with a message in '*error'. */
int kd_program_load(struct kd_program *, const char *func, int type,
                    unsigned int debug, int *fd, char **error);

/* Attach function 'func' (loaded here as needed)... */

/* ...to the entry, or the return when 'retprobe', of the user code at
 * 'offset' of file 'binary', for process 'pid' only (-1 for all). */
int kd_program_attach_uprobe(struct kd_program *, const char *func,
                             bool retprobe, const char *binary,
                             uint64_t offset, pid_t pid, unsigned int debug,
                             char **error);

/* ...to the entry, or the return when 'retprobe', of kernel function
 * 'kfunc'. */
int kd_program_attach_kprobe(struct kd_program *, const char *func,
                             bool retprobe, const char *kfunc,
                             unsigned int debug, char **error);

/* ...to tracepoint 'system':'event'. */
int kd_program_attach_tracepoint(struct kd_program *, const char *func,
                                 const char *system, const char *event,
                                 unsigned int debug, char **error);

/* ...to a software CPU clock perf event of CPU 'cpu' (all its tasks),
 * sampling at 'hz'. */
int kd_program_attach_cpu_clock(struct kd_program *, const char *func,
                                unsigned int hz, int cpu, unsigned int debug,
                                char **error);

/* File descriptor of map 'name', or -1. */
int kd_program_map_fd(const struct kd_program *, const char *name);

/* Detaches and unloads everything, then frees the module. */
void kd_program_close(struct kd_program *);

#endif /* program.h */
