/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "host.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

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

static bool
kd_exists(const char *path)
{
    struct stat st;

    return !stat(path, &st);
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
    if (kd_exists(path) || kd_exists("/sys/kernel/kheaders.tar.xz")) {
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
