/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* eBPF maps read, emptied and summed in bulk (batch ops, or one by one). */

#include "maps.h"

#include <bcc/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The kernel's own "operation not supported" (include/linux/errno.h), which
 * reaches user space from some map types' batch operations. */
#define KD_ENOTSUPP 524

/* bcc's wrappers return a negative errno, or -1 with errno set. */
static int
kd_bpf_error(int ret)
{
    if (ret >= 0) {
        return 0;
    }
    return ret == -1 && errno ? errno : -ret;
}

static void
kd_map_pack(const struct kd_map_layout *l, const char *keys,
            const char *values, size_t n, char *entries)
{
    for (size_t i = 0; i < n; i++) {
        char *entry = entries + i * l->entry_size;

        memcpy(entry, keys + i * l->key_size, l->key_size);
        memcpy(entry + l->value_offset, values + i * l->value_size,
               l->value_size);
    }
}

/* The whole map in one batch call, since 'keys' and 'values' can hold
 * 'max_entries'.  Returns EINVAL or ENOTSUP (among others) where the
 * kernel has no batch operations for this map. */
static int
kd_map_read_batch(int fd, const struct kd_map_layout *l, size_t max,
                  bool delete, char *keys, char *values, size_t *n)
{
    uint64_t in[8], out[8];    /* Batch tokens, at most a key's size. */
    bool first = true;

    *n = 0;
    for (;;) {
        __u32 count = max - *n;
        int ret;

        if (!count) {
            return 0;
        }
        if (delete) {
            ret = bpf_lookup_and_delete_batch(fd, first ? NULL : (__u32 *) in,
                                              (__u32 *) out,
                                              keys + *n * l->key_size,
                                              values + *n * l->value_size,
                                              &count);
        } else {
            ret = bpf_lookup_batch(fd, first ? NULL : (__u32 *) in,
                                   (__u32 *) out, keys + *n * l->key_size,
                                   values + *n * l->value_size, &count);
        }
        int error = kd_bpf_error(ret);

        if (error && error != ENOENT) {
            return error;
        }
        *n += count;
        if (error == ENOENT) {
            return 0;
        }
        memcpy(in, out, sizeof in);
        first = false;
    }
}

/* One entry at a time: the keys first, then their values. */
static int
kd_map_read_each(int fd, const struct kd_map_layout *l, size_t max,
                 bool delete, char *keys, char *values, size_t *n)
{
    size_t found = 0;
    char *prev = NULL;

    while (found < max) {
        char *key = keys + found * l->key_size;
        int ret = prev ? bpf_get_next_key(fd, prev, key)
                       : bpf_get_first_key(fd, key, l->key_size);
        int error = kd_bpf_error(ret);

        if (error == ENOENT) {
            break;
        } else if (error) {
            /* Not the end of the map: an error, never a short read. */
            return error;
        }
        prev = key;
        found++;
    }

    *n = 0;
    for (size_t i = 0; i < found; i++) {
        char *key = keys + i * l->key_size;

        /* An entry deleted meanwhile is skipped. */
        if (bpf_lookup_elem(fd, key, values + *n * l->value_size) < 0) {
            continue;
        }
        if (*n != i) {
            memmove(keys + *n * l->key_size, key, l->key_size);
        }
        (*n)++;
    }
    if (delete) {
        for (size_t i = 0; i < *n; i++) {
            bpf_delete_elem(fd, keys + i * l->key_size);
        }
    }
    return 0;
}

int
kd_map_read(int fd, const struct kd_map_layout *l, size_t max_entries,
            bool delete, void **entries, size_t *n)
{
    /* Room for every entry, not zeroed: only the 'n' read are used.  A
     * watch reads its maps every 100 ms, and zeroing room for the largest
     * map at each read was most of its CPU time. */
    char *keys = kd_xreallocarray(NULL, max_entries, l->key_size);
    char *values = kd_xreallocarray(NULL, max_entries, l->value_size);
    int error;

    *entries = NULL;
    *n = 0;
    error = kd_map_read_batch(fd, l, max_entries, delete, keys, values, n);
    if (error == EINVAL || error == ENOTSUP || error == EOPNOTSUPP
        || error == KD_ENOTSUPP || error == ENOSYS || error == EPERM) {
        error = kd_map_read_each(fd, l, max_entries, delete, keys, values,
                                 n);
    }
    if (!error) {
        *entries = kd_xcalloc(*n, l->entry_size);
        kd_map_pack(l, keys, values, *n, *entries);
    }
    free(keys);
    free(values);
    return error;
}

int
kd_map_clear(int fd, const struct kd_map_layout *l, size_t max_entries)
{
    void *entries;
    size_t n;
    int error = kd_map_read(fd, l, max_entries, true, &entries, &n);

    free(entries);
    return error;
}

int
kd_map_u32_keys(int fd, size_t max_entries, uint32_t **keys, size_t *n)
{
    uint32_t key, next;
    int error = 0;

    *keys = kd_xcalloc(max_entries ? max_entries : 1, sizeof **keys);
    *n = 0;
    for (void *prev = NULL; *n < max_entries; prev = &key) {
        if (bpf_get_next_key(fd, prev, &next)) {
            error = errno == ENOENT ? 0 : (errno ? errno : EIO);
            break;
        }
        (*keys)[(*n)++] = key = next;
    }
    return error;
}

int
kd_map_delete(int fd, const void *key)
{
    return kd_bpf_error(bpf_delete_elem(fd, (void *) key));
}

int
kd_map_set_u64(int fd, uint32_t key, uint64_t value)
{
    return kd_bpf_error(bpf_update_elem(fd, &key, &value, BPF_ANY));
}

int
kd_map_zero_array(int fd, size_t value_size, uint32_t n)
{
    void *zeros = kd_xcalloc(1, value_size);
    int error = 0;

    for (uint32_t key = 0; !error && key < n; key++) {
        error = kd_bpf_error(bpf_update_elem(fd, &key, zeros, BPF_ANY));
    }
    free(zeros);
    return error;
}

int
kd_map_lookup(int fd, const void *key, void *value)
{
    return kd_bpf_error(bpf_lookup_elem(fd, (void *) key, value));
}

int
kd_map_get_u64(int fd, uint32_t key, uint64_t *value)
{
    return kd_map_lookup(fd, &key, value);
}

int
kd_possible_cpus(void)
{
    static int n_cpus = -1;
    char *line;
    int n;

    if (n_cpus > 0) {
        return n_cpus;
    }
    if (kd_read_file_line("/sys/devices/system/cpu/possible", &line)) {
        return -1;
    }
    n = kd_parse_cpu_list(line, NULL, 0);
    free(line);
    n_cpus = n > 0 ? n : -1;
    return n_cpus;
}

int
kd_map_percpu_sums(int fd, uint64_t *sums, size_t n, bool reset)
{
    int n_cpus = kd_possible_cpus();
    uint64_t *values;
    int error = 0;

    if (n_cpus <= 0) {
        return ENODEV;
    }
    values = kd_xcalloc(n_cpus, sizeof *values);
    for (uint32_t key = 0; key < n; key++) {
        sums[key] = 0;
        error = kd_bpf_error(bpf_lookup_elem(fd, &key, values));
        if (error) {
            break;
        }
        for (int cpu = 0; cpu < n_cpus; cpu++) {
            sums[key] += values[cpu];
        }
        if (reset) {
            memset(values, 0, n_cpus * sizeof *values);
            error = kd_bpf_error(bpf_update_elem(fd, &key, values, BPF_ANY));
            if (error) {
                break;
            }
        }
    }
    free(values);
    return error;
}
