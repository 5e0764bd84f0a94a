#!/usr/bin/env python3
# Writes the seed corpora tests/fuzz/corpus/<target>/ (committed) from the
# lists below, one file per seed, named after what it exercises.  Run it
# again after editing a list; it does not touch files it does not write.
#
#   trigger   a trigger text
#   options   a command line, its words separated by NUL bytes
#   template  a template text (the fuzz target's substitution tables are in
#             fuzz_template.c: A, B_1, NOVALUE, TGID, SELF, AT, ...)

import os

HERE = os.path.dirname(os.path.abspath(__file__))
A255 = "a" * 255

TRIGGER = {
    # Valid: every type, every alias.
    "usdt-alias": "u:udpif_revalidator:start_dump",
    "usdt-name": "usdt:main:run_start",
    "trace-alias": "t:sched:sched_switch",
    "trace-name": "trace:syscalls:sys_enter_poll",
    "trace-leading-digit": "t:9p:9p_client_req",
    "kprobe-alias": "k:do_sys_poll",
    "kprobe-name": "kprobe:__x64_sys_getppid",
    "kprobe-isra": "k:tcp_v4_rcv.isra.0",
    "kretprobe-alias": "kr:do_sys_poll",
    "kretprobe-name": "kretprobe:vfs_read",
    "uprobe-alias": "up:bridge_run",
    "uprobe-name": "uprobe:main",
    "uprobe-cold": "up:foo.cold",
    "uprobe-lib": "up:libc.so.6:malloc",
    "uprobe-lib-plus": "up:libstdc++.so.6:_Znwm",
    "uprobe-path": "uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:free",
    "uretprobe-alias": "ur:bridge_run",
    "uretprobe-upr": "upr:bridge_run",
    "uretprobe-name": "uretprobe:bridge_run",
    "uretprobe-path": "ur:/usr/lib/x86_64-linux-gnu/libc.so.6:free",
    "part-255": "u:" + A255 + ":b",
    "lib-255": "up:" + "l" * 255 + ":f",
    # Invalid and hostile.
    "part-256": "u:" + A255 + "a:b",
    "shell-injection": 'u:a;system("reboot"):b',
    "c-injection": 't:sched:sched_switch){bpf_trace_printk("x");}//',
    "dollar": "k:$(reboot)",
    "backtick": "k:`id`",
    "quote": "up:'f'",
    "newline": "up:lib\nx:f",
    "space": "u:a b:c",
    "tab": "u:a\tb:c",
    "dotdot": "up:../../etc/passwd:f",
    "dotdot-middle": "up:/usr/lib/../lib/libc.so.6:f",
    "dot-lib": "up:./libfoo.so:f",
    "leading-digit": "k:1abc",
    "leading-dot": "k:.foo",
    "usdt-leading-digit": "u:1p:probe",
    "too-many": "t:a:b:c",
    "too-few": "u:provider",
    "four-parts": "up:a:b:c",
    "kprobe-lib": "k:lib:func",
    "empty": "",
    "colon": ":",
    "colons": ":::",
    "type-only": "u:",
    "empty-parts": "u::",
    "empty-function": "up:lib:",
    "upper-type": "UP:bridge_run",
    "unknown-type": "p:foo",
    "type-prefix": "uprob:foo",
    "non-ascii-utf8": "up:f\xc3\xa9",
    "escape-sequence": "k:\x1b[31mred",
    "backslash": "k:a\\b",
    "del": "k:a\x7fb",
    "high-bytes": "\xff" * 100,
    "quote-fits-126": "up:" + "a" * 122 + "!",
    "long-invalid": "t:" + "x" * 300 + ":" + "\x01" * 50,
}

OPTIONS = {
    "no-args": [],
    # Durations with units (issue 26).
    "duration-ms": ["-s", "1.5ms"],
    "duration-exp": ["--long-poll-events", "1e6"],
    "duration-max": ["--long-poll-events=9223372036.854775807s"],
    "duration-fraction": ["-s", "1.5ns"],
    "duration-space": ["--trigger-delta", "5 ms"],
    "duration-seconds": ["--sample-time", "0.000000001s"],
    "duration-negative": ["--sample-interval=-1ms"],
    "misspelt": ["--sampel-time", "2", "--jsn"],
    "pid": ["-p", "1234"],
    "pid-attached": ["-p1234"],
    "pid-attached-eq": ["-p=1234"],
    "pid-long-eq": ["--pid=1234"],
    "pid-max": ["--pid", "4194304"],
    "pid-over": ["--pid", "4194305"],
    "pid-negative": ["-p", "-5"],
    "pid-negative-zero": ["-p", "-0"],
    "pid-plus": ["-p", "+12"],
    "pid-huge": ["-p", "99999999999999999999999"],
    "pid-u64max": ["-p", "18446744073709551615"],
    "pid-missing": ["-p"],
    "pid-empty": ["--pid="],
    "debug-bare": ["-D"],
    "debug-value": ["-D", "255"],
    "debug-over": ["--debug", "256"],
    "debug-invalid": ["-D", "abc"],
    "debug-then-option": ["-D", "-p", "1"],
    "syscall-events": ["-s"],
    "syscall-events-ns": ["-s", "1000000"],
    "syscall-events-huge": ["--syscall-events", "9223372036854775808"],
    "time": ["--sample-time", "5"],
    "time-tiny": ["--sample-time", "1e-9"],
    "time-too-tiny": ["--sample-time", "1e-10"],
    "time-zero": ["--sample-time", "0"],
    "time-nan": ["--sample-time", "nan"],
    "time-inf": ["--sample-time", "inf"],
    "time-hex": ["--sample-time", "0x10"],
    "time-underflow": ["--sample-time", "1e-400"],
    "time-overflow": ["--sample-time", "1e400"],
    "time-dot": ["--sample-time", "."],
    "time-exp-only": ["--sample-time", "e5"],
    "interval-negative-zero": ["--sample-interval", "-0"],
    "interval-negative": ["--sample-interval", "-.5"],
    "interval-year": ["--sample-interval", "31536000"],
    "interval-over": ["--sample-interval", "31536000.1"],
    "count": ["--sample-count", "10"],
    "count-zero": ["--sample-count", "0"],
    "count-max": ["--sample-count", "100000000"],
    "pages": ["--buffer-page-count", "3"],
    "pages-max": ["--buffer-page-count", "1048576"],
    "pages-over": ["--buffer-page-count", "1048577"],
    "pages-zero": ["--buffer-page-count", "0"],
    "stack-zero": ["--stack-trace-size", "0"],
    "stack-over": ["--stack-trace-size", "1048577"],
    "triggers": ["--start-trigger", "up:bridge_run", "--stop-trigger",
                 "ur:bridge_run", "--trigger-delta", "1000000"],
    "trigger-eq": ["--start-trigger=u:a:b"],
    "trigger-dash": ["--start-trigger", "-x"],
    "trigger-negative": ["--stop-trigger", "-1"],
    "trigger-delta-bare": ["--trigger-delta"],
    "max-threads": ["--max-threads", "64"],
    "max-threads-low": ["--max-threads", "63"],
    "prefix": ["--sample-t", "1"],
    "ambiguous": ["--s", "1"],
    "empty-long-name": ["--=1"],
    "help": ["-h"],
    "help-long": ["--help"],
    "help-prefix": ["--he"],
    "help-attached": ["--help=x"],
    "help-short-attached": ["-hx"],
    "version": ["--version"],
    "help-after-error": ["--pid", "x", "--help"],
    "dashdash": ["--", "-p", "1"],
    "dashdash-value": ["-p", "--"],
    "extras": ["foo", "bar"],
    "dash": ["-"],
    "triple-dash": ["---"],
    "empty-word": ["", "-p", "1"],
    "skip-flags": ["--skip-syscall-poll-events", "--skip-upcall-stats"],
    "everything": ["-D", "3", "-p", "1", "--buffer-page-count", "64",
                   "--sample-count", "2", "--sample-interval", "0.5",
                   "--sample-time", "1.5", "--stack-trace-size", "16",
                   "--skip-upcall-stats", "--start-trigger", "k:f",
                   "--stop-trigger", "kr:f", "--trigger-delta", "5"],
    "repeated": ["-p", "1", "-p", "2", "-p", "3"],
    # Beyond the reference (when the parser has them).
    "tid": ["--tid", "1,2,3"],
    "tid-replaced": ["--tid", "1,2", "--tid", "3"],
    "tid-then-error": ["--tid", "1,2", "--pid", "x"],
    "tid-then-help": ["--tid", "5", "--help"],
    "tid-bad": ["--tid", "1,,2"],
    "tid-trailing-comma": ["--tid", "1,"],
    "tid-zero": ["--tid", "0"],
    "tid-over": ["--tid", "4194305"],
    "tid-4096": ["--tid", ",".join(["7"] * 4096)],
    "tid-4097": ["--tid", ",".join(["7"] * 4097)],
    "thread": ["--thread", "^handler[0-9]+$"],
    "thread-bad": ["--thread", "("],
    "thread-empty": ["--thread="],
    "flags": ["--summary", "--histogram", "--json", "--list-probes"],
    "long-poll": ["--long-poll-events"],
    "long-poll-ns": ["--long-poll-events", "50000000", "--json",
                     "--sample-count", "3", "--thread", "^handler"],
    "long-poll-conflict": ["--sample-time", "2", "--long-poll-events"],
    "long-poll-conflict-after": ["--long-poll-events=1", "--summary"],
    "abbrev-t": ["--t", "5"],
    "abbrev-h": ["--h"],
}

TEMPLATE = {
    "placeholder": "@A@",
    "two": "@A@@B_1@",
    "at-at": "@@",
    "at": "@",
    "unterminated": "@A",
    "trailing-at": "A@",
    "double-at": "@@A@@",
    "lower-case": "@a@",
    "mixed-case": "@Ab@",
    "unknown": "@UNKNOWN@",
    "no-value": "@NOVALUE@",
    "unknown-line-3": "one\ntwo\nthree @UNKNOWN@\n",
    "adjacent": "@A@B_1@",
    "triple-at": "@@@",
    "underscore": "@_@",
    "digit": "@0@",
    "hostile-values": "@SELF@ @B_1@ @AT@A@ @NL@ @UNSET@",
    "long-name": "@" + "A" * 1000 + "@",
    "nul-inside": "@A@\0@UNKNOWN@",
    "crlf": "@A@\r\n@B_1@\r\n",
    "real-excerpt": (
        "#define MAX_THREADS @MAX_THREADS@\n"
        "#define WITH_START_TRIGGER @WITH_START_TRIGGER@\n"
        "@INCLUDES@\n"
        "BPF_HASH(threads, u32, struct thread_data, @MAX_THREADS@);\n"
        "static inline bool is_target(void) {\n"
        "    return (bpf_get_current_pid_tgid() >> 32) == @TGID@;\n"
        "}\n"
        "#if @WITH_SYSCALL_EVENTS@\n"
        "BPF_RINGBUF_OUTPUT(events, @BUFFER_PAGE_COUNT@);\n"
        "#endif\n"
        "/* email@example.com, @ 12 @, a@b@c */\n"),
}


def write(target, seeds, encode):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name, seed in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(encode(seed))


def text(s):
    # Every character is one byte: "\xff" is the byte 0xff.
    return s.encode("latin-1")


write("trigger", TRIGGER, text)
write("options", OPTIONS, lambda words: b"\0".join(text(w) for w in words))
write("template", TEMPLATE, text)
