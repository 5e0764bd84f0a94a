/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_JSON_H
#define KD_JSON_H 1

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "util.h"

/* A minimal JSON writer into a kd_ds: the caller writes the structure,
 * these write the values.  Strings are always valid JSON: control
 * characters, quotes and backslashes are escaped, and bytes that are not
 * valid UTF-8 are written as \u00XX (their Latin-1 reading). */
void kd_json_string(struct kd_ds *, const char *s);
void kd_json_key(struct kd_ds *, const char *key);   /* "key": */
void kd_json_u64(struct kd_ds *, uint64_t value);
void kd_json_bool(struct kd_ds *, bool value);
void kd_json_null(struct kd_ds *);

/* Wall-clock time 'ts' as a JSON string in RFC 3339, in UTC with "Z", to
 * the microsecond, whatever TZ says: "2026-11-25T07:24:37.595260Z". */
void kd_json_time(struct kd_ds *, const struct timespec *ts);

/* Separators: kd_json_next() writes a comma unless '*first', which it
 * clears. */
void kd_json_next(struct kd_ds *, bool *first);

#endif /* json.h */
