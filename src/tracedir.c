/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The directory of --trace-dir, bounded on disk. */

#include "tracedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* A trace of the directory. */
struct kd_tracedir_file {
    char *name;
    uint64_t bytes;
    struct timespec mtime;
};

void
kd_tracedir_init(struct kd_tracedir *d, const char *dir, uint64_t max_bytes,
                 unsigned int max_files)
{
    memset(d, 0, sizeof *d);
    d->dir = kd_xstrdup(dir);
    d->max_bytes = max_bytes;
    d->max_files = max_files;
}

void
kd_tracedir_destroy(struct kd_tracedir *d)
{
    free(d->dir);
    d->dir = NULL;
}

int
kd_tracedir_check(const struct kd_tracedir *d)
{
    struct stat st;

    if (stat(d->dir, &st)) {
        return errno;
    }
    if (!S_ISDIR(st.st_mode)) {
        return ENOTDIR;
    }
    return access(d->dir, W_OK | X_OK) ? errno : 0;
}

/* Whether 'name' is one of our traces. */
static bool
kd_tracedir_ours(const char *name)
{
    size_t len = strlen(name);

    return !strncmp(name, "kernel_delay-", 13) && len > 18
           && !strcmp(name + len - 5, ".json");
}

static int
kd_tracedir_file_cmp(const void *a_, const void *b_)
{
    const struct kd_tracedir_file *a = a_, *b = b_;

    if (a->mtime.tv_sec != b->mtime.tv_sec) {
        return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
    }
    if (a->mtime.tv_nsec != b->mtime.tv_nsec) {
        return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : 1;
    }
    return strcmp(a->name, b->name);
}

/* Our traces in the directory but 'except', oldest first, into a new
 * '*v' of '*n'. */
static int
kd_tracedir_list(const struct kd_tracedir *d, const char *except,
                 struct kd_tracedir_file **v, size_t *n)
{
    DIR *dir = opendir(d->dir);
    struct dirent *e;

    *v = NULL;
    *n = 0;
    if (!dir) {
        return errno;
    }
    while ((e = readdir(dir))) {
        struct stat st;

        if (!kd_tracedir_ours(e->d_name) || !strcmp(e->d_name, except)
            || fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW)
            || !S_ISREG(st.st_mode)) {
            continue;
        }
        *v = kd_xreallocarray(*v, *n + 1, sizeof **v);
        (*v)[*n] = (struct kd_tracedir_file) {
            .name = kd_xstrdup(e->d_name),
            .bytes = st.st_size,
            .mtime = st.st_mtim,
        };
        ++*n;
    }
    closedir(dir);
    if (*n) {
        qsort(*v, *n, sizeof **v, kd_tracedir_file_cmp);
    }
    return 0;
}

/* Removes the oldest traces until one more of 'len' bytes fits, 'name'
 * (about to be replaced) aside. */
static int
kd_tracedir_make_room(struct kd_tracedir *d, const char *name, size_t len)
{
    struct kd_tracedir_file *v;
    uint64_t total = len;
    size_t n, i;
    int err;

    err = kd_tracedir_list(d, name, &v, &n);
    if (err) {
        return err;
    }
    for (i = 0; i < n; i++) {
        total += v[i].bytes;
    }
    for (i = 0; i < n && (total > d->max_bytes || n - i >= d->max_files);
         i++) {
        char *path = kd_xasprintf("%s/%s", d->dir, v[i].name);

        if (!unlink(path) || errno == ENOENT) {
            d->removed++;
        }
        total -= v[i].bytes;
        free(path);
    }
    for (i = 0; i < n; i++) {
        free(v[i].name);
    }
    free(v);
    return 0;
}

/* Writes 'len' bytes of 'data' into new file 'path'. */
static int
kd_tracedir_put(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = 0;

    if (fd < 0) {
        return errno;
    }
    while (len && !err) {
        ssize_t n = write(fd, data, len);

        if (n < 0 && errno != EINTR) {
            err = errno;
        } else if (n > 0) {
            data += n;
            len -= n;
        }
    }
    if (close(fd) && !err) {
        err = errno;
    }
    return err;
}

int
kd_tracedir_write(struct kd_tracedir *d, const char *name, const char *data,
                  size_t len, char **path)
{
    char *final = kd_xasprintf("%s/%s", d->dir, name);
    char *tmp = kd_xasprintf("%s/.%s.tmp", d->dir, name);
    bool existed = kd_path_exists(final);
    int err = len > d->max_bytes ? EFBIG : 0;

    if (!err) {
        err = kd_tracedir_make_room(d, name, len);
    }
    if (!err) {
        err = kd_tracedir_put(tmp, data, len);
    }
    if (!err && rename(tmp, final)) {
        err = errno;
    }
    if (err) {
        unlink(tmp);
        d->failed++;
        d->last_error = err;
    } else if (existed) {
        d->replaced++;
    } else {
        d->written++;
    }
    if (path && !err) {
        *path = final;
        final = NULL;
    }
    free(final);
    free(tmp);
    return err;
}
