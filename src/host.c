/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "program.h"
#include "util.h"

static bool
kd_is_mounted(const char *dir)
{
    char dev[512], mnt[512];
    bool found = false;
    FILE *f = fopen("/proc/mounts", "re");

    if (!f) {
        return false;
    }
    while (fscanf(f, "%511s %511s %*[^\n]", dev, mnt) == 2) {
        if (!strcmp(mnt, dir)) {
            found = true;
            break;
        }
    }
    fclose(f);
    return found;
}

static void
kd_mount_if_missing(const char *type, const char *dir)
{
    if (kd_is_mounted(dir)) {
        return;
    }
    if (mount("nodev", dir, type, 0, NULL)) {
        fprintf(stderr, "kernel_delay: warning: %s is not mounted on %s "
                "and mounting it failed: %s\n", type, dir, strerror(errno));
    } else {
        fprintf(stderr, "kernel_delay: mounted %s on %s\n", type, dir);
    }
}

void
kd_host_mount_tracefs(void)
{
    kd_mount_if_missing("debugfs", "/sys/kernel/debug");
    kd_mount_if_missing("tracefs", "/sys/kernel/tracing");
}

/* Removes the stale events of ours from tracefs file 'path'. */
static int
kd_cleanup_probe_file(const char *path)
{
    char line[1024];
    int removed = 0;
    FILE *f = fopen(path, "re");

    if (!f) {
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        /* "p:GROUP/EVENT TARGET": our events are named
         * KD_EVENT_PREFIX PID "_" N, libbcc may add "_bcc_" PID. */
        char *event = strchr(line, ':');
        char *slash = event ? strchr(event, '/') : NULL;
        char *name = slash ? slash + 1 : NULL;
        size_t prefix = strlen(KD_EVENT_PREFIX);
        unsigned long pid;
        char *end;

        if (!name || strncmp(name, KD_EVENT_PREFIX, prefix)) {
            continue;
        }
        pid = strtoul(name + prefix, &end, 10);
        if (end == name + prefix || *end != '_' || !pid
            || !(kill(pid, 0) && errno == ESRCH)) {
            continue;
        }
        name[strcspn(name, " \n")] = '\0';

        /* Not stdio: fopen(..., "a") seeks, which tracefs refuses. */
        char *cmd = kd_xasprintf("-:%s\n", event + 1);
        int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

        if (fd >= 0) {
            if (write(fd, cmd, strlen(cmd)) == (ssize_t) strlen(cmd)) {
                fprintf(stderr, "kernel_delay: removed stale probe event "
                        "%s of an earlier run (pid %lu)\n", event + 1, pid);
                removed++;
            }
            close(fd);
        }
        free(cmd);
    }
    fclose(f);
    return removed;
}

int
kd_host_cleanup_stale_probes(void)
{
    static const char *const files[] = {
        "/sys/kernel/tracing/uprobe_events",
        "/sys/kernel/tracing/kprobe_events",
    };
    int removed = 0;

    for (size_t i = 0; i < KD_ARRAY_SIZE(files); i++) {
        removed += kd_cleanup_probe_file(files[i]);
    }
    return removed;
}

int
kd_host_check_headers(char **error)
{
    const char *env = getenv("BCC_KERNEL_SOURCE");
    struct utsname uts;
    char path[512];

    *error = NULL;
    if (env && *env) {
        return 0;
    }
    if (uname(&uts)) {
        return 0;
    }
    snprintf(path, sizeof path, "/lib/modules/%s/build/include",
             uts.release);
    if (kd_path_exists(path) || kd_path_exists("/sys/kernel/kheaders.tar.xz")) {
        return 0;
    }
    *error = kd_xasprintf(
        "libbcc needs a kernel header tree and there is none at "
        "/lib/modules/%s/build!\n"
        "       Install linux-headers-%s, or on Debian install "
        "linux-headers-amd64 and\n"
        "       link /lib/modules/%s/build and source to it "
        "(tools/prepare-host.sh does).", uts.release, uts.release,
        uts.release);
    return ENOENT;
}
