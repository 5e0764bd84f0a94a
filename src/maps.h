/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_MAPS_H
#define KD_MAPS_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reading eBPF maps in bulk: batch operations where the kernel has them,
 * one entry at a time otherwise. */

/* How an entry of a map is laid out in the caller's array: the key at
 * offset 0, the value at 'value_offset', 'entry_size' bytes apart. */
struct kd_map_layout {
    size_t key_size;
    size_t value_size;
    size_t value_offset;
    size_t entry_size;
};

/* Reads every entry of hash map 'fd' (of at most 'max_entries') into a
 * new array '*entries' of '*n' entries, and deletes them from the map when
 * 'delete'.  Returns 0 or a positive errno. */
int kd_map_read(int fd, const struct kd_map_layout *, size_t max_entries,
                bool delete, void **entries, size_t *n);

/* Deletes every entry of hash map 'fd'.  Returns 0 or a positive errno. */
int kd_map_clear(int fd, const struct kd_map_layout *, size_t max_entries);

/* Lists the keys, of 4 bytes, of map 'fd' (of at most 'max_entries') into
 * a new array '*keys' of '*n'.  Returns 0 or a positive errno. */
int kd_map_u32_keys(int fd, size_t max_entries, uint32_t **keys, size_t *n);

/* Deletes 'key' from map 'fd'.  Returns 0 or a positive errno. */
int kd_map_delete(int fd, const void *key);

/* Sets the 'n' entries of array map 'fd', of 'value_size' bytes, to
 * zeros.  Returns 0 or a positive errno. */
int kd_map_zero_array(int fd, size_t value_size, uint32_t n);

/* Sets entry 'key' of array map 'fd' to 'value'. */
int kd_map_set_u64(int fd, uint32_t key, uint64_t value);

/* Looks up 'key' in map 'fd' into 'value'.  Returns 0 or a positive
 * errno. */
int kd_map_lookup(int fd, const void *key, void *value);

/* Gets entry 'key' of array map 'fd' into '*value'. */
int kd_map_get_u64(int fd, uint32_t key, uint64_t *value);

/* Sums, over all CPUs, the u64 entries 0 to n-1 of per-CPU array 'fd' into
 * 'sums', then sets them to zero when 'reset'. */
int kd_map_percpu_sums(int fd, uint64_t *sums, size_t n, bool reset);

/* Number of possible CPUs (the size of a per-CPU value), or -1. */
int kd_possible_cpus(void);

#endif /* maps.h */
