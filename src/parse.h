/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_PARSE_H
#define KD_PARSE_H 1

#include <stdbool.h>
#include <stdint.h>

/* Strict parsing of the numbers and durations of the command line.  Pure:
 * nothing here touches the kernel. */

/* Strict number parsing, after libbpf-tools' get_int(): the whole string
 * must be a decimal number within [min, max].  Return 0 or EINVAL (not a
 * number) or ERANGE (out of range). */
int kd_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int kd_parse_seconds(const char *s, double min, double max, double *out);

/* A duration: a decimal number (digits, an optional fraction, an optional
 * exponent: "50", "1.5", "1e6"), then, with nothing between, an optional
 * unit "ns", "us", "ms" or "s"; a number without a unit is in
 * nanoseconds.  It must be a whole number of nanoseconds at most 'max'.
 * Computed exactly, without floating point.  Returns 0, EINVAL (not a
 * duration), ERANGE (negative and not zero, or above 'max') or EDOM (a
 * fraction of a nanosecond: "1.5ns"). */
int kd_parse_duration_ns(const char *s, uint64_t max, uint64_t *out);

/* Whether 's' ends with a duration unit (all of them end in 's'). */
bool kd_parse_has_unit(const char *s);

/* A duration in seconds, from 'min' to 'max' seconds: a plain number as
 * the reference's float() takes it (kd_parse_seconds()), or one with a
 * unit (kd_parse_duration_ns()).  Returns what they return. */
int kd_parse_seconds_or_unit(const char *s, double min, uint32_t max,
                             double *out);

#endif /* parse.h */
