/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/tracedir.c: the traces' directory, bounded on disk,
 * in a directory of the test's own. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedir.h"
#include "util.h"
#include "check.h"

/* Writes trace 'name' of 'len' bytes and dates it 'sec' seconds into the
 * epoch, so that the oldest is known whatever the file system's clock. */
static int
put(struct kd_tracedir *d, const char *name, size_t len, time_t sec)
{
    char *data = kd_xcalloc(len + 1, 1);
    char *path = NULL;
    int err;

    memset(data, 'x', len);
    err = kd_tracedir_write(d, name, data, len, &path);
    if (!err) {
        struct timespec t[2] = { { sec, 0 }, { sec, 0 } };

        utimensat(AT_FDCWD, path, t, 0);
    }
    free(path);
    free(data);
    return err;
}

static bool
exists(const char *dir, const char *name)
{
    char *path = kd_xasprintf("%s/%s", dir, name);
    bool e = kd_path_exists(path);

    free(path);
    return e;
}

/* Oldest first out, for the file cap and the size cap; a trace written
 * again replaces itself; one larger than the cap alone is not written;
 * other files are left alone; a directory that is not one is said. */
static void
test_tracedir_caps(void)
{
    char dir[] = "/tmp/kd-test-tracedir.XXXXXX";
    struct kd_tracedir d;
    char *other, *path = NULL;

    if (!CHECK(mkdtemp(dir) != NULL)) {
        return;
    }
    other = kd_xasprintf("%s/notes.json", dir);
    close(open(other, O_WRONLY | O_CREAT, 0644));
    kd_tracedir_init(&d, dir, 1000, 3);
    CHECK_INT(kd_tracedir_check(&d), 0);
    CHECK_INT(put(&d, "kernel_delay-n-1-2-a.json", 100, 10), 0);
    CHECK_INT(put(&d, "kernel_delay-n-1-2-b.json", 100, 30), 0);
    CHECK_INT(put(&d, "kernel_delay-n-1-2-c.json", 100, 20), 0);
    CHECK_INT(put(&d, "kernel_delay-n-1-2-d.json", 100, 40), 0);
    CHECK(!exists(dir, "kernel_delay-n-1-2-a.json"));
    CHECK(exists(dir, "kernel_delay-n-1-2-c.json"));
    CHECK_INT(d.written, 4);
    CHECK_INT(d.removed, 1);

    /* Written again: replaced, and counts as one. */
    CHECK_INT(put(&d, "kernel_delay-n-1-2-c.json", 150, 50), 0);
    CHECK_INT(d.replaced, 1);
    CHECK_INT(d.removed, 1);
    CHECK(exists(dir, "kernel_delay-n-1-2-b.json"));

    /* 750 bytes: b (100) goes, d (100) and c (150) stay: 1000. */
    CHECK_INT(put(&d, "kernel_delay-n-1-2-e.json", 750, 60), 0);
    CHECK(!exists(dir, "kernel_delay-n-1-2-b.json"));
    CHECK(exists(dir, "kernel_delay-n-1-2-d.json"));
    CHECK(exists(dir, "kernel_delay-n-1-2-c.json"));
    CHECK_INT(d.removed, 2);
    CHECK_INT(put(&d, "kernel_delay-n-1-2-f.json", 1001, 70), EFBIG);
    CHECK(!exists(dir, "kernel_delay-n-1-2-f.json"));
    CHECK_INT(d.failed, 1);
    CHECK_INT(d.last_error, EFBIG);
    CHECK(kd_path_exists(other));
    CHECK(!exists(dir, ".kernel_delay-n-1-2-f.json.tmp"));
    kd_tracedir_destroy(&d);

    /* A file, not a directory; one that is not there. */
    kd_tracedir_init(&d, other, 1000, 3);
    CHECK_INT(kd_tracedir_check(&d), ENOTDIR);
    CHECK_INT(put(&d, "kernel_delay-n-1-2-g.json", 10, 1), ENOTDIR);
    kd_tracedir_destroy(&d);
    path = kd_xasprintf("%s/none", dir);
    kd_tracedir_init(&d, path, 1000, 3);
    CHECK_INT(kd_tracedir_check(&d), ENOENT);
    kd_tracedir_destroy(&d);

    free(path);
    path = kd_xasprintf("rm -rf '%s'", dir);
    CHECK_INT(system(path), 0);
    free(path);
    free(other);
}

static const struct test tests[] = {
    TEST(test_tracedir_caps),
};

CHECK_SUITE(tracedir, tests)
