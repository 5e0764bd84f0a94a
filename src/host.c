/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The host: mounts, stale probe events, headers, --version's findings. */

#include "host.h"

#include <bcc/bcc_version.h>
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hook.h"
#include "layout.h"
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
    kd_mount_if_missing("debugfs", KD_DEBUGFS_DIR);
    kd_mount_if_missing("tracefs", KD_TRACEFS_DIR);
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
    static const char *const files[] = { "uprobe_events", "kprobe_events" };
    int removed = 0;

    for (size_t i = 0; i < KD_ARRAY_SIZE(files); i++) {
        char *path = kd_xasprintf("%s/%s", kd_hook_tracefs(), files[i]);

        removed += kd_cleanup_probe_file(path);
        free(path);
    }
    return removed;
}

int
kd_host_effective_caps(uint64_t *caps)
{
    char line[256];
    int error = ENOENT;
    FILE *f = fopen("/proc/self/status", "re");

    if (!f) {
        return errno;
    }
    while (fgets(line, sizeof line, f)) {
        unsigned long long value;

        if (sscanf(line, "CapEff: %llx", &value) == 1) {
            *caps = value;
            error = 0;
            break;
        }
    }
    fclose(f);
    return error;
}

/* Looks for the kernel header tree libbcc will compile with.  Returns
 * whether there is one; '*where' (to be freed) is the tree, or, when there
 * is none, the place libbcc looks for it first. */
static bool
kd_host_find_headers(char **where)
{
    const char *env = getenv("BCC_KERNEL_SOURCE");
    struct utsname uts;
    char *include;
    bool found;

    if (env && *env) {
        *where = kd_xasprintf("BCC_KERNEL_SOURCE=%s", env);
        return true;
    }
    if (uname(&uts)) {
        *where = kd_xstrdup("/lib/modules/$(uname -r)/build");
        return true;
    }
    *where = kd_xasprintf("/lib/modules/%s/build", uts.release);
    include = kd_xasprintf("%s/include", *where);
    found = kd_path_exists(include);
    free(include);
    if (!found && kd_path_exists("/sys/kernel/kheaders.tar.xz")) {
        free(*where);
        *where = kd_xstrdup("/sys/kernel/kheaders.tar.xz");
        found = true;
    }
    return found;
}

int
kd_host_check_headers(char **error)
{
    struct utsname uts;
    char *where;
    bool found = kd_host_find_headers(&where);

    free(where);
    *error = NULL;
    if (found || uname(&uts)) {
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

/* What --version says about the host. */

/* A shared library looked for among those loaded. */
struct kd_host_lib {
    const char *name;       /* "libbcc". */
    char *path;             /* Its real path, or NULL. */
};

/* dl_iterate_phdr() callback: stops at the loaded object named NAME ".so"
 * or NAME ".so.*", recording its real path in 'lib_'. */
static int
kd_host_find_lib_cb(struct dl_phdr_info *info, size_t size, void *lib_)
{
    struct kd_host_lib *lib = lib_;
    const char *base = strrchr(info->dlpi_name, '/');
    size_t len = strlen(lib->name);
    char real[PATH_MAX];

    (void) size;
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, lib->name, len) || strncmp(base + len, ".so", 3)
        || (base[len + 3] && base[len + 3] != '.')) {
        return 0;
    }
    lib->path = kd_xstrdup(realpath(info->dlpi_name, real)
                           ? real : info->dlpi_name);
    return 1;
}

/* The version in the real file name of the loaded library 'name'
 * ("libbcc.so.0.26.0" gives "0.26.0"), which is the version it runs with:
 * libbcc has no run-time version call.  Returns NULL when 'name' is not
 * loaded as a shared object or its file name has no full version.  Sets
 * '*path' (to be freed) to its file, or NULL. */
static char *
kd_host_lib_version(const char *name, char **path)
{
    struct kd_host_lib lib = { .name = name, .path = NULL };
    const char *base, *version;

    dl_iterate_phdr(kd_host_find_lib_cb, &lib);
    *path = lib.path;
    if (!lib.path) {
        return NULL;
    }
    base = strrchr(lib.path, '/');
    base = base ? base + 1 : lib.path;
    version = strstr(base, ".so.");
    if (!version || !strchr(version + 4, '.')) {
        return NULL;
    }
    return kd_xstrdup(version + 4);
}

static void
kd_host_set_feature(struct kd_host_feature *f, const char *name,
                    const char *state, char *detail)
{
    f->name = name;
    f->state = state;
    f->detail = detail;
}

/* BTF: what the run itself does with it. */
static void
kd_host_probe_btf(struct kd_host_feature *f)
{
    struct kd_layout layout;
    char *error;

    if (kd_layout_init(&layout, false, &error)) {
        kd_host_set_feature(f, "BTF", "no",
                            kd_xasprintf("unusable: %s", error));
        free(error);
    } else if (layout.from_btf) {
        const char *sysfs = "/sys/kernel/btf/vmlinux";

        kd_host_set_feature(f, "BTF", "yes",
                            kd_xasprintf("%s%sstruct offsets are read "
                                         "from it",
                                         kd_path_exists(sysfs) ? sysfs : "",
                                         kd_path_exists(sysfs) ? ": " : ""));
    } else {
        kd_host_set_feature(f, "BTF", "no",
                            kd_xstrdup("struct offsets come from the "
                                       "kernel headers, which must match "
                                       "the kernel"));
    }
}

/* The ring buffer.  Without privileges, libbpf's probe answers "no" for
 * anything. */
static void
kd_host_probe_ringbuf(struct kd_host_feature *f)
{
    int rc = geteuid() ? -EPERM
                       : libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF,
                                                   NULL);

    if (rc == -EPERM) {
        kd_host_set_feature(f, "ring buffer",
                            "unknown", kd_xstrdup("probing it needs root; "
                                                  "Linux 5.8 or later has "
                                                  "it"));
    } else if (rc > 0) {
        kd_host_set_feature(f, "ring buffer",
                            "yes", NULL);
    } else if (!rc) {
        kd_host_set_feature(f, "ring buffer",
                            "no", kd_xstrdup("kernel_delay needs it: "
                                             "Linux 5.8 or later"));
    } else {
        kd_host_set_feature(f, "ring buffer",
                            "unknown",
                            kd_xasprintf("cannot probe: %s",
                                         strerror(-rc)));
    }
}

/* The kernel headers, and where they are. */
static void
kd_host_probe_headers(struct kd_host_feature *f)
{
    char *where;

    if (kd_host_find_headers(&where)) {
        char real[PATH_MAX];

        if (where[0] == '/' && realpath(where, real)
            && strcmp(real, where)) {
            char *both = kd_xasprintf("%s -> %s", where, real);

            free(where);
            where = both;
        }
        kd_host_set_feature(f,
                            "kernel headers", "yes", where);
    } else {
        char *detail = kd_xasprintf("none at %s: libbcc needs them to "
                                    "compile", where);

        free(where);
        kd_host_set_feature(f,
                            "kernel headers", "no", detail);
    }
}

void
kd_host_info_probe(struct kd_host_info *info)
{
    struct utsname uts;
    char *lib_version;

    memset(info, 0, sizeof *info);

    info->libbcc_built = LIBBCC_VERSION;
    info->libbcc = kd_host_lib_version("libbcc", &info->libbcc_path);
    lib_version = kd_host_lib_version("libbpf", &info->libbpf_path);
    info->libbpf = lib_version ? lib_version
                               : kd_xstrdup(libbpf_version_string());
    info->libbpf_built = kd_xasprintf("%d.%d", LIBBPF_MAJOR_VERSION,
                                      LIBBPF_MINOR_VERSION);
    info->kernel = uname(&uts) ? NULL
                   : kd_xasprintf("%s %s", uts.release, uts.machine);

    kd_host_probe_btf(&info->features[KD_HOST_BTF]);
    if (kd_hook_kprobes_available()) {
        kd_host_set_feature(&info->features[KD_HOST_KPROBES], "kprobes",
                            "yes", NULL);
    } else {
        kd_host_set_feature(&info->features[KD_HOST_KPROBES], "kprobes",
                            "no", kd_xstrdup("k: and kr: triggers and "
                                             "UPCALL STATISTICS need them"));
    }
    kd_host_probe_ringbuf(&info->features[KD_HOST_RINGBUF]);
    kd_host_probe_headers(&info->features[KD_HOST_HEADERS]);
}

void
kd_host_info_format(const struct kd_host_info *info, struct kd_ds *ds)
{
    kd_ds_put_format(ds, "libbcc: %s", info->libbcc ? info->libbcc
                                                    : "unknown");
    if (info->libbcc_path) {
        kd_ds_put_format(ds, " (%s)", info->libbcc_path);
    }
    kd_ds_put_format(ds, ", built with %s\n", info->libbcc_built);

    kd_ds_put_format(ds, "libbpf: %s", info->libbpf);
    if (info->libbpf_path) {
        kd_ds_put_format(ds, " (%s)", info->libbpf_path);
    }
    kd_ds_put_format(ds, ", built with %s\n", info->libbpf_built);

    kd_ds_put_format(ds, "kernel: %s\n", info->kernel ? info->kernel
                                                      : "unknown");
    for (size_t i = 0; i < KD_HOST_N_FEATURES; i++) {
        const struct kd_host_feature *f = &info->features[i];

        if (!f->name) {
            continue;
        }
        kd_ds_put_format(ds, "%s: %s", f->name, f->state);
        if (f->detail) {
            kd_ds_put_format(ds, " (%s)", f->detail);
        }
        kd_ds_put_char(ds, '\n');
    }
}

void
kd_host_info_destroy(struct kd_host_info *info)
{
    free(info->libbcc);
    free(info->libbcc_path);
    free(info->libbpf);
    free(info->libbpf_path);
    free(info->libbpf_built);
    free(info->kernel);
    for (size_t i = 0; i < KD_HOST_N_FEATURES; i++) {
        free(info->features[i].detail);
    }
    memset(info, 0, sizeof *info);
}
