/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "output.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "report.h"

/* In JSON mode, the text-only lines (timestamps, notes) are left out. */
static bool kd_json_mode;

void
kd_output_set_json(bool json)
{
    kd_json_mode = json;
}

bool
kd_output_json(void)
{
    return kd_json_mode;
}

void
kd_error(const char *format, ...)
{
    FILE *stream = kd_json_mode ? stderr : stdout;
    va_list args;

    fflush(stdout);
    fputs("ERROR: ", stream);
    va_start(args, format);
    vfprintf(stream, format, args);
    va_end(args);
    fflush(stream);
}

void
kd_print_ds(struct kd_ds *ds)
{
    kd_ds_flush(ds, stdout, 0);
    fflush(stdout);
    kd_ds_destroy(ds);
}

void
kd_print_timestamp(const char *msg, uint64_t trigger_ns, uint64_t delta_ns)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec now;
    char buf[32];
    char *line;

    if (kd_json_mode) {
        return;
    }
    clock_gettime(CLOCK_REALTIME, &now);
    if (trigger_ns) {
        line = kd_xasprintf("%s (trigger@%" PRIu64 ")", msg, trigger_ns);
    } else if (delta_ns) {
        line = kd_xasprintf("%s %s ns", msg,
                            kd_report_thousands(delta_ns, buf));
    } else {
        line = kd_xstrdup(msg);
    }
    kd_report_timestamp(&ds, line, &now);
    kd_print_ds(&ds);
    free(line);
}
