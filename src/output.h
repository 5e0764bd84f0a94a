/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_OUTPUT_H
#define KD_OUTPUT_H 1

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* What the program writes besides the reports, and where: in JSON mode,
 * standard output carries only JSON Lines. */

/* Sets JSON mode (--json), in which the text-only lines (timestamps,
 * notes) are left out and errors go to standard error. */
void kd_output_set_json(bool json);
bool kd_output_json(void);

/* Prints an "ERROR: ..." line: on standard output, as the reference does,
 * or, in JSON mode, on standard error, so that standard output stays JSON
 * Lines whatever happens. */
void kd_error(const char *format, ...) KD_PRINTF_FORMAT(1, 2);

/* Writes 'ds' to standard output, flushes it, and frees 'ds'. */
void kd_print_ds(struct kd_ds *);

/* Prints a timestamp line ("# Start sampling @...") and flushes it, so
 * that whoever reads the output knows at once; " (trigger@TS)" follows
 * 'msg' when 'trigger_ns' is not 0, " DELTA ns" when 'delta_ns' is not 0.
 * Nothing in JSON mode. */
void kd_print_timestamp(const char *msg, uint64_t trigger_ns,
                        uint64_t delta_ns);

#endif /* output.h */
