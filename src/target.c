/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The target from /proc: ovs-vswitchd found, pids resolved, names. */

#include "target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define KD_VSWITCHD "ovs-vswitchd"

static const char *const kd_target_event_names[] = {
#define KD_TARGET_EVENT_NAME(ID, NAME) NAME,
    KD_TARGET_EVENTS(KD_TARGET_EVENT_NAME)
#undef KD_TARGET_EVENT_NAME
};

const char *
kd_target_event_name(enum kd_target_event event)
{
    return event < KD_N_TARGET_EVENTS ? kd_target_event_names[event] : "?";
}

static const char *
kd_proc(const char *proc_root)
{
    return proc_root ? proc_root : "/proc";
}

/* Reads the start of file 'leaf' of process 'pid' under 'proc_root' into
 * 'buf', NUL-terminated, and returns how many bytes it read: 0 when the
 * file cannot be read. */
static size_t
kd_read_pid_file(const char *proc_root, const char *pid, const char *leaf,
                 char *buf, size_t size)
{
    char path[512];
    size_t n;

    snprintf(path, sizeof path, "%s/%s/%s", proc_root, pid, leaf);
    return kd_read_file_buf(path, false, buf, size, &n) ? 0 : n;
}

/* The first word of the command line of 'pid', as psutil's cmdline()[0]
 * gives it: arguments are NUL-separated, but a process that rewrote its
 * command line into one string has its words separated by spaces. */
static char *
kd_cmdline_first(const char *proc_root, const char *pid)
{
    char buf[4096];
    bool nul_sep;
    size_t n;

    n = kd_read_pid_file(proc_root, pid, "cmdline", buf, sizeof buf);
    if (!n) {
        return NULL;
    }

    nul_sep = buf[n - 1] == '\0';
    if (nul_sep && strlen(buf) == n - 1) {
        /* A single NUL-terminated string: split at spaces after all. */
        nul_sep = false;
    }
    buf[strcspn(buf, nul_sep ? "" : " ")] = '\0';
    return kd_xstrdup(buf);
}

/* The process name as psutil's Process.name() gives it: the kernel's comm,
 * or, when comm is cut at 15 characters, the base name of the first word
 * of the command line when it starts with comm. */
static char *
kd_process_name(const char *proc_root, const char *pid)
{
    char path[512];
    char *comm, *first;

    snprintf(path, sizeof path, "%s/%s/comm", proc_root, pid);
    if (kd_read_file_line(path, &comm)) {
        return NULL;
    }
    if (strlen(comm) >= 15) {
        first = kd_cmdline_first(proc_root, pid);
        if (first) {
            const char *base = strrchr(first, '/');

            base = base ? base + 1 : first;
            if (!strncmp(base, comm, strlen(comm))) {
                free(comm);
                comm = kd_xstrdup(base);
            }
            free(first);
        }
    }
    return comm;
}

/* Whether process 'pid' has exited but is not reaped yet (a zombie), or
 * is dying: its state in /proc/PID/stat is Z or X.  A process without a
 * readable stat file is taken to run. */
static bool
kd_process_gone(const char *proc_root, const char *pid)
{
    char buf[512];
    const char *paren;

    kd_read_pid_file(proc_root, pid, "stat", buf, sizeof buf);
    /* "PID (COMM) STATE ...": COMM may hold anything, ')' included. */
    paren = strrchr(buf, ')');
    return paren && (paren[1] == ' ')
           && (paren[2] == 'Z' || paren[2] == 'X');
}

int
kd_target_find_vswitchd(const char *proc_root, unsigned int *pid)
{
    const char *proc = kd_proc(proc_root);
    struct dirent *de;
    unsigned int found = 0;
    bool several = false;
    DIR *dir;

    *pid = 0;
    dir = opendir(proc);
    if (!dir) {
        return errno;
    }
    while ((de = readdir(dir)) != NULL) {
        char *name;

        if (!isdigit((unsigned char) de->d_name[0])) {
            continue;
        }
        name = kd_process_name(proc, de->d_name);
        if (name && strstr(name, KD_VSWITCHD)
            && !kd_process_gone(proc, de->d_name)) {
            if (found) {
                several = true;
            }
            found = strtoul(de->d_name, NULL, 10);
        }
        free(name);
    }
    closedir(dir);

    if (several) {
        return EEXIST;
    }
    *pid = found;
    return found ? 0 : ENOENT;
}

int
kd_target_resolve(const char *proc_root, unsigned int pid,
                  unsigned int *tgid)
{
    char path[512], line[256];
    FILE *f;

    *tgid = 0;
    /* /proc/TID/status exists for thread ids too, though they are not
     * listed in /proc. */
    snprintf(path, sizeof path, "%s/%u/status", kd_proc(proc_root), pid);
    f = fopen(path, "re");
    if (!f) {
        return ESRCH;
    }
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "Tgid: %u", tgid) == 1) {
            break;
        }
    }
    fclose(f);
    return *tgid ? 0 : ESRCH;
}

char *
kd_target_thread_name(uint32_t pid, uint32_t tid, void *aux)
{
    char path[512];
    char *name;

    /* A name may hold a newline: only the final one is not part of it. */
    snprintf(path, sizeof path, "%s/%u/task/%u/comm",
             kd_proc(aux), pid, tid);
    return kd_read_file_text(path, &name) ? NULL : name;
}

unsigned int
kd_target_count_threads(const char *proc_root, unsigned int pid)
{
    unsigned int n = 0;
    struct dirent *de;
    char path[512];
    DIR *dir;

    snprintf(path, sizeof path, "%s/%u/task", kd_proc(proc_root), pid);
    dir = opendir(path);
    if (!dir) {
        return 0;
    }
    while ((de = readdir(dir))) {
        n += isdigit((unsigned char) de->d_name[0]) != 0;
    }
    closedir(dir);
    return n;
}
