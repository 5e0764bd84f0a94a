# bench/analyze.awk: the one analysis step of the benchmarks.  It turns
# the raw rows that bench/run.sh wrote into the table and the verdicts;
# bench/analyze.sh runs it, and bench/README.md describes the rows and
# the figures.
#
# Input: meta.tsv (KEY TAB VALUE: the machine, the settings of the run,
# notes and failures), then raw.tsv (FIGURE TAB VARIANT TAB TOOL TAB RUN
# TAB METRIC TAB VALUE, one measured value a row).  Variables (-v):
#   metafile  the name of the meta file, to tell the two inputs apart;
#   mode      "table" (default): print the table and the verdicts;
#             "short": print nothing, exit 0 when a variant of figure 4
#             has fewer than "min" quick measurements, 1 otherwise (run.sh
#             uses it to decide whether to measure another batch).
# Every median of the benchmarks is taken by med() below.  Written for
# POSIX awk (mawk included).

BEGIN {
    FS = "\t"
    # A measurement of figure 4 is quick when its page faults took at most
    # this many times the 5th percentile of the figure's.
    QUICK_FACTOR = 1.12
    if (mode == "") {
        mode = "table"
    }
}

FILENAME == metafile {
    M[$1] = $2
    ML[$1, ++MN[$1]] = $2
    next
}

NF == 6 {
    key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $5
    L[key] = L[key] " " $6
    N[key]++
    P[$1, $2, $3, $4, $5] = $6
    RV[$1, $2, $3, $4, $5] = RV[$1, $2, $3, $4, $5] " " $6
    if (!(($1, $2, $3, $4) in RUNSEEN)) {
        RUNSEEN[$1, $2, $3, $4] = 1
        RL[$1, $2, $3] = RL[$1, $2, $3] " " $4
    }
    if ($1 == "4") {
        cost_row($2, $4, $5, $6)
    }
}

# ---------------------------------------------------------------------------
# Numbers.

function isnum(x) {
    return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/
}

# The median of a space-separated list of numbers, "" when it is empty.
function med(list,    a, n, i, j, t) {
    n = split(list, a, " ")
    if (n == 0) {
        return ""
    }
    for (i = 2; i <= n; i++) {
        t = a[i] + 0
        for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) {
            a[j + 1] = a[j]
        }
        a[j + 1] = t
    }
    return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}

# The largest number of a space-separated list, "" when it is empty.
function maxof(list,    a, n, i, m) {
    n = split(list, a, " ")
    if (n == 0) {
        return ""
    }
    m = a[1] + 0
    for (i = 2; i <= n; i++) {
        if (a[i] + 0 > m) {
            m = a[i] + 0
        }
    }
    return m
}

# The values of one metric, in run order, and their median.
function vals(f, v, t, m) {
    return L[f, v, t, m]
}
function medv(f, v, t, m) {
    return med(L[f, v, t, m])
}

# Student's t for a two-sided 95% interval with DF degrees of freedom
# (DF >= 1; beyond 30, the normal's 1.96 is close enough).
function t95(df,    t) {
    split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228" \
          " 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086" \
          " 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t,
          " ")
    return df > 30 ? 1.96 : t[df]
}

# paired(F, V, A, B, METRIC): compares tools A and B measured in the same
# runs of figure F, variant V.  For each run that measured both, the
# difference of their medians of METRIC (A's less B's); sets PN to the
# number of runs, PMEAN to the mean difference and PCI to the half-width
# of its 95% interval (Student's t; "" with fewer than 2 runs), PUP to
# the number of runs where A's was the larger.  Returns PN.
function paired(f, v, a, b, m,    runs, n, i, d, sum, ss, k) {
    n = split(RL[f, v, a], runs, " ")
    PN = 0
    PUP = 0
    sum = 0
    for (i = 1; i <= n; i++) {
        if (RV[f, v, a, runs[i], m] == "" || RV[f, v, b, runs[i], m] == "") {
            continue
        }
        d[++PN] = med(RV[f, v, a, runs[i], m]) - med(RV[f, v, b, runs[i], m])
        sum += d[PN]
        PUP += d[PN] > 0
    }
    PMEAN = PN ? sum / PN : ""
    PCI = ""
    if (PN >= 2) {
        ss = 0
        for (k = 1; k <= PN; k++) {
            ss += (d[k] - PMEAN) ^ 2
        }
        PCI = t95(PN - 1) * sqrt(ss / (PN - 1)) / sqrt(PN)
    }
    return PN
}

# ---------------------------------------------------------------------------
# Formatting.

# X times S with D decimals, or X itself when it is not a number.
function fmt(d, s, x) {
    if (isnum(x)) {
        return sprintf("%." d "f", x * s)
    }
    return x == "" ? "-" : x
}

# An integer with thousands separators.
function commas(x,    s, neg, out) {
    if (!isnum(x)) {
        return x == "" ? "-" : x
    }
    s = sprintf("%.0f", x)
    neg = s ~ /^-/
    if (neg) {
        s = substr(s, 2)
    }
    out = ""
    while (length(s) > 3) {
        out = "," substr(s, length(s) - 2) out
        s = substr(s, 1, length(s) - 3)
    }
    return (neg ? "-" : "") s out
}

function ratio(a, b) {
    if (isnum(a) && isnum(b) && b + 0 != 0) {
        return sprintf("%.2f", a / b)
    }
    return "-"
}

# One line of the table; trailing blanks removed.
function row(a, b, c, d, e, f,    s) {
    s = sprintf("%-44s %17s %17s %6s  %-15s %s", a, b, c, d, e, f)
    sub(/ +$/, "", s)
    print s
}

# verdict(OK, HAVE, WHAT): "PASS" or "FAIL" as OK says, "n/a" when a
# figure is missing (HAVE false); recorded for the list of verdicts with
# WHAT, which says what was checked.
function verdict(ok, have, what,    v) {
    v = !have ? "n/a" : ok ? "PASS" : "FAIL"
    VERDICT[++NVERDICT] = sprintf("%-4s  %s", v, what)
    return v
}

function want(fig) {
    return index(M["only"], "," fig ",") > 0
}

# ---------------------------------------------------------------------------
# Figure 4: each measurement is two rows (ns_call, ns_fault) with the same
# variant and run.

function cost_row(tag, run, metric, value,    id) {
    id = tag SUBSEP run
    if (!(id in CID)) {
        CID[id] = ++NC
        CTAG[NC] = tag
        if (!(tag in TAGSEEN)) {
            TAGSEEN[tag] = 1
            TAGS[++NTAGS] = tag
        }
    }
    if (metric == "ns_call") {
        CCALL[CID[id]] = value
    } else if (metric == "ns_fault") {
        CFAULT[CID[id]] = value
    }
}

# Fills QUICK[tag], ALL[tag], NQ[tag], NALL[tag] (medians of ns per call
# over the quick measurements and over all) and QUICK_SHARE.
function cost_figures(    i, j, t, fs, lim, q, qlist, alist, k) {
    k = 0
    for (i = 1; i <= NC; i++) {
        if (isnum(CCALL[i]) && isnum(CFAULT[i])) {
            fs[++k] = CFAULT[i] + 0
        }
    }
    if (k == 0) {
        return
    }
    # The quickest page faults: the 5th percentile, which one odd
    # measurement cannot move.
    for (i = 2; i <= k; i++) {
        t = fs[i]
        for (j = i - 1; j >= 1 && fs[j] > t; j--) {
            fs[j + 1] = fs[j]
        }
        fs[j + 1] = t
    }
    lim = fs[int((k - 1) * 0.05) + 1] * QUICK_FACTOR
    q = 0
    for (i = 1; i <= NC; i++) {
        if (!isnum(CCALL[i]) || !isnum(CFAULT[i])) {
            continue
        }
        t = CTAG[i]
        alist[t] = alist[t] " " CCALL[i]
        NALL[t]++
        if (CFAULT[i] + 0 <= lim) {
            qlist[t] = qlist[t] " " CCALL[i]
            NQ[t]++
            q++
        }
    }
    QUICK_SHARE = q / k
    for (i = 1; i <= NTAGS; i++) {
        t = TAGS[i]
        QUICK[t] = med(qlist[t])
        ALL[t] = med(alist[t])
    }
}

# The cost a variant adds over the baseline ("none"), quick or all.
function added(tag, which) {
    if (which == "all") {
        return isnum(ALL[tag]) && isnum(ALL["none"]) ? \
            ALL[tag] - ALL["none"] : ""
    }
    return isnum(QUICK[tag]) && isnum(QUICK["none"]) ? \
        QUICK[tag] - QUICK["none"] : ""
}

# ---------------------------------------------------------------------------
# The table.

function header(    i) {
    print "kernel_delay benchmark, " M["date"]
    print "machine: Linux " M["kernel"] " " M["arch"] ", " M["cpu"] \
        ", nproc " M["nproc"] ", " M["mem_gb"] " GiB"
    print "load before the run: CPU busy " M["busy"] "% over 1 s, load" \
        " average " M["loadavg"] ", " M["hooks_before"] " other eBPF" \
        " programs on the syscall hooks;"
    print "  waited " fmt(0, 1, M["quiet_waited"]) " s in all for the" \
        " machine to be quiet (no other tracer, CPUs < 25% busy)"
    print "ours: " M["ours_version"] " (git " M["git_rev"] "); reference: " \
        M["ref_name"] " on " M["py_version"] ", bcc " M["bcc_version"]
    print "medians of " M["runs"] " runs each unless said, after an untimed" \
        " warm-up; RATIO = ours / reference"
    print ""
    row("FIGURE", "OURS", "REFERENCE", "RATIO", "TARGET", "VERDICT")
}

function table_1(    os, rs, ow, rw, ot, rt) {
    os = medv(1, "idle", "ours", "start_s")
    rs = medv(1, "idle", "reference", "start_s")
    ow = medv(1, "idle", "ours", "wall_s")
    rw = medv(1, "idle", "reference", "wall_s")
    ot = medv(1, "idle", "ours", "tail_s")
    rt = medv(1, "idle", "reference", "tail_s")
    print ""
    print "1. Start-up, idle target, --sample-time 0.1 (s)"
    row("  launch to '# Start sampling'", fmt(3, 1, os), fmt(3, 1, rs),
        ratio(os, rs), "<= 1/3 of ref",
        verdict(os <= rs / 3, isnum(os) && isnum(rs),
            "1. start-up: ours " fmt(3, 1, os) " s <= 1/3 of the" \
            " reference's " fmt(3, 1, rs) " s"))
    row("  whole run (launch to exit)", fmt(3, 1, ow), fmt(3, 1, rw),
        ratio(ow, rw))
    row("  '# Sample dump' to exit, no thread", fmt(3, 1, ot),
        fmt(3, 1, rt), ratio(ot, rt))
    table_1_ovs(rs)
}

# Figure 1, against a real ovs-vswitchd: launch to sampling without and
# with user stacks (--profile-hz: the unwind tables of its 18 files are
# built at attach), against the start-up budget (1/3 of the reference's on
# the idle target, 'rs'); the tables' size.
function table_1_ovs(rs,    o, s, b, m, r, f, kb) {
    o = medv(1, "ovs", "ours", "start_s")
    s = medv(1, "ovs", "ours-stacks", "start_s")
    if (!isnum(o) && !isnum(s)) {
        return
    }
    b = medv(1, "ovs", "ours-stacks", "build_s")
    m = medv(1, "ovs", "ours-stacks", "tables_mib")
    r = medv(1, "ovs", "ours-stacks", "rows")
    f = medv(1, "ovs", "ours-stacks", "files")
    kb = medv(1, "ovs", "ours-stacks", "rss_kb")
    row("  ovs-vswitchd: launch to '# Start sampling'", fmt(3, 1, o))
    row("    with --profile-hz " M["profile_hz"] " (unwinder, tables)",
        fmt(3, 1, s), fmt(3, 1, rs), ratio(s, rs))
    row("    tables: files, rows", fmt(0, 1, f) ", " commas(r))
    row("    tables built in (s, a thread, as it compiles)", fmt(3, 1, b),
        fmt(3, 1, rs / 3), "", "<= 1/3 of ref",
        verdict(b <= rs / 3, isnum(b) && isnum(rs),
            "1. the unwind tables of ovs-vswitchd built in " fmt(3, 1, b) \
            " s, within the start-up budget (1/3 of the reference's " \
            fmt(3, 1, rs) " s)"))
    row("    tables' kernel memory (MiB); peak RSS (MiB)",
        fmt(1, 1, m) "; " fmt(1, 1 / 1024, kb))
}

# The reference's "dump to exit" at N threads: a median, or what stopped
# it.
function ref_exit(n,    t) {
    if (N[2, n, "reference", "not_run"] > 0) {
        return "not run"
    }
    if (N[2, n, "reference", "timeout_s"] > 0) {
        t = maxof(vals(2, n, "reference", "timeout_s"))
        return isnum(t) ? "timeout >" fmt(0, 1, t) " s" : "timeout"
    }
    return medv(2, n, "reference", "exit_ms")
}

# Wall time of the read and report per thread at N threads (us), "" when
# not measured.
function wall_per(n,    w) {
    w = medv(2, n, "ours", "line_ms")
    return isnum(w) ? w * 1000 / n : ""
}

# CPU time per thread at N threads (us), "" when not measured.
function cpu_per(n,    c) {
    c = medv(2, n, "ours", "cpu_ms")
    return isnum(c) ? c * 1000 / n : ""
}

function rep_rows(n,    what, line, target, verd, re) {
    what = commas(n) " threads"
    line = medv(2, n, "ours", "line_ms")
    target = verd = ""
    if (n == 1000) {
        target = "< 50 ms"
        verd = verdict(line < 50, isnum(line),
            "2. read + report, 1,000 threads: " fmt(2, 1, line) \
            " ms < 50 ms")
    } else if (n == 5000) {
        target = "< 250 ms"
        verd = verdict(line < 250, isnum(line),
            "2. read + report, 5,000 threads: " fmt(2, 1, line) \
            " ms < 250 ms")
    }
    re = ref_exit(n)
    row("  " what ": read + report (-D line)", fmt(2, 1, line), "n/a", "",
        target, verd)
    row("  " what ": its CPU time (-D line)",
        fmt(2, 1, medv(2, n, "ours", "cpu_ms")), "n/a")
    row("  " what ": '# Sample dump' to exit",
        fmt(2, 1, medv(2, n, "ours", "exit_ms")), fmt(1, 1, re),
        ratio(medv(2, n, "ours", "exit_ms"), re))
    row("  " what ": threads in the report",
        fmt(0, 1, medv(2, n, "ours", "shown")),
        fmt(0, 1, medv(2, n, "reference", "shown")))
}

function table_2(    i, n, sizes, ns, c1, c, w1) {
    ns = split("100 1000 5000 10000", sizes, " ")
    print ""
    print "2. Report time, N threads each sleeping 50 ms x max(1, N/1,000)" \
        " between bursts, --sample-time max(0.5, 1.2 x that) s (ms;" \
        " reference: " M["ref_runs_100"] " run(s) at 100, 1 at 1,000 and" \
        " 5,000, none at 10,000; ours at 10,000 with --max-threads " \
        M["rep_max_threads"] ")"
    for (i = 1; i <= ns; i++) {
        rep_rows(sizes[i])
    }
    for (i = 1; i <= ns; i++) {
        row("  read + report per thread, " commas(sizes[i]) " (us)",
            fmt(2, 1, wall_per(sizes[i])))
    }
    for (i = 1; i <= ns; i++) {
        row("  CPU time per thread, " commas(sizes[i]) " (us)",
            fmt(2, 1, cpu_per(sizes[i])))
    }
    w1 = wall_per(1000)
    for (i = 3; i <= ns; i++) {
        n = sizes[i]
        row("  read + report/thread, " commas(n) " / 1,000",
            "x" ratio(wall_per(n), w1))
    }
    c1 = cpu_per(1000)
    for (i = 3; i <= ns; i++) {
        n = sizes[i]
        c = cpu_per(n)
        row("  CPU/thread, " commas(n) " / 1,000 (x1.0: linear)",
            "x" ratio(c, c1), "", "", "<= x1.2",
            verdict(c <= 1.2 * c1, isnum(c) && isnum(c1),
                "2. CPU per thread, " commas(n) " threads: " \
                fmt(2, 1, c) " us <= 1.2 x " fmt(2, 1, c1) " us at" \
                " 1,000 (x" ratio(c, c1) ")"))
    }
}

# Figure 3's figures of TOOL in VARIANT, into E[...]: medians of the calls,
# the rates (calls / seconds of each run), the events printed and the
# events dropped; the events consumed per second; the most events any run
# dropped and how many runs printed fewer events than calls.
function ev_figures(v, t,    runs, a, n, i, r, calls, secs, rates, ev) {
    delete E
    n = split(RL[3, v, t], a, " ")
    rates = ""
    E["short"] = 0
    for (i = 1; i <= n; i++) {
        r = a[i]
        calls = P[3, v, t, r, "calls"]
        secs = P[3, v, t, r, "secs"]
        ev = P[3, v, t, r, "events"]
        if (isnum(calls) && isnum(secs) && secs + 0 > 0) {
            rates = rates " " calls / secs
        }
        if (isnum(ev) && isnum(calls) && ev + 0 < calls + 0) {
            E["short"]++
        }
    }
    E["runs"] = n
    E["rate"] = med(rates)
    E["calls"] = medv(3, v, t, "calls")
    E["events"] = medv(3, v, t, "events")
    E["dropped"] = medv(3, v, t, "dropped")
    E["maxdrop"] = maxof(vals(3, v, t, "dropped"))
    E["consumed"] = isnum(E["events"]) && isnum(M["burst"]) ? \
        E["events"] / M["burst"] : ""
}

# The rows of VARIANT (LABEL says what it is, SHORT names it in the
# verdicts).
function ev_rows(v, label, short,    o, r, na, k, sup) {
    sup = P[3, "probe", "ours", 0, "supported"]
    na = sup == "0" ? "not supported yet" : ""
    ev_figures(v, "ours")
    for (k in E) {
        o[k] = na != "" ? "" : E[k]
    }
    ev_figures(v, "reference")
    for (k in E) {
        r[k] = E[k]
    }
    row("  " label ":")
    row("    spinner rate while traced (calls/s)",
        na != "" ? na : commas(o["rate"]), commas(r["rate"]),
        ratio(o["rate"], r["rate"]), ">= 1.00 x ref",
        verdict(o["rate"] >= r["rate"],
            isnum(o["rate"]) && isnum(r["rate"]),
            "3. " short ": spinner under ours " commas(o["rate"]) \
            " calls/s >= under the reference " commas(r["rate"]) \
            " (x" ratio(o["rate"], r["rate"]) ")"))
    row("    calls made in the burst", na != "" ? na : commas(o["calls"]),
        commas(r["calls"]))
    row("    events printed", na != "" ? na : commas(o["events"]),
        commas(r["events"]), ratio(o["events"], r["events"]))
    row("    events dropped (warning), median",
        na != "" ? na : commas(o["dropped"]), commas(r["dropped"]))
    row("    events dropped by ours, most in a run",
        na != "" ? na : commas(o["maxdrop"]), "", "", "0",
        verdict(o["maxdrop"] == 0, isnum(o["maxdrop"]),
            "3. " short ": events dropped by ours: " \
            commas(o["maxdrop"]) " in the worst of " o["runs"] " runs"))
    row("    runs of ours short of the calls",
        na != "" ? na : o["short"], "", "", "0",
        verdict(o["short"] == 0, o["runs"] > 0 && na == "",
            "3. " short ": every call reported by ours in every run (" \
            (o["short"] == "" ? "-" : o["short"]) " of " o["runs"] \
            " short)"))
    row("    events consumed/s (printed / burst)",
        na != "" ? na : commas(o["consumed"]), commas(r["consumed"]),
        ratio(o["consumed"], r["consumed"]))
}

function table_3() {
    print ""
    print "3. Syscall events, -s 0, a " M["burst"] " s getppid() burst" \
        " (medians of " M["ev_runs"] " runs of each tool per variant," \
        " interleaved)"
    ev_rows("stacks-off", "without stacks (--stack-trace-size 0)",
        "stacks off")
    ev_rows("stacks-on", "with stacks (default --stack-trace-size)",
        "stacks on")
}

# The rows of figure 4, over the quick measurements (WHICH "quick", with
# the targets) or over all ("all").
function cost_rows(ind, which,    oo, ro, ot, rt, fr, fc, ck, lo, lt) {
    oo = added("ours_other", which)
    ro = added("ref_other", which)
    ot = added("ours_target", which)
    rt = added("ref_target", which)
    fr = added("floor_raw", which)
    fc = added("floor_classic", which)
    ck = added("check_raw", which)
    if (which == "quick") {
        row(ind "(a) a process that is not the target", fmt(1, 1, oo),
            fmt(1, 1, ro), ratio(oo, ro), "<= 0.6 x ref",
            verdict(oo <= 0.6 * ro, isnum(oo) && isnum(ro),
                "4. added cost per syscall of another process: ours " \
                fmt(1, 1, oo) " ns <= 0.6 x the reference's " \
                fmt(1, 1, ro) " ns (x" ratio(oo, ro) ")"))
    } else {
        row(ind "(a) a process that is not the target", fmt(1, 1, oo),
            fmt(1, 1, ro), ratio(oo, ro))
    }
    row(ind "(b) the target itself", fmt(1, 1, ot), fmt(1, 1, rt),
        ratio(ot, rt))
    lo = added("ours_lp_other", which)
    lt = added("ours_lp_target", which)
    if (which == "quick") {
        row(ind "(c) --long-poll-events: (a)", fmt(1, 1, lo), fmt(1, 1, ro),
            ratio(lo, ro), "<= 1.1 x (a)",
            verdict(lo <= 1.1 * oo, isnum(lo) && isnum(oo),
                "4. --long-poll-events, added cost per syscall of another" \
                " process: " fmt(1, 1, lo) " ns, unchanged: <= 1.1 x ours'" \
                " default mode " fmt(1, 1, oo) " ns (x" ratio(lo, oo) \
                "; x" ratio(lo, ro) " the reference's)"))
        row(ind "(d) --long-poll-events: (b), in an interval",
            fmt(1, 1, lt), fmt(1, 1, rt), ratio(lt, rt), "<= 1.0 x ref",
            verdict(lt <= rt, isnum(lt) && isnum(rt),
                "4. --long-poll-events, added cost per syscall of the" \
                " target in a poll interval: " fmt(1, 1, lt) " ns <= the" \
                " reference's classic mode " fmt(1, 1, rt) " ns (x" \
                ratio(lt, rt) ")"))
    } else {
        row(ind "(c) --long-poll-events: (a)", fmt(1, 1, lo), fmt(1, 1, ro),
            ratio(lo, ro))
        row(ind "(d) --long-poll-events: (b), in an interval",
            fmt(1, 1, lt), fmt(1, 1, rt), ratio(lt, rt))
    }
    row(ind "floor: 2 empty progs on the same hooks", fmt(1, 1, fr),
        fmt(1, 1, fc), ratio(fr, fc))
    row(ind "least pid check, 2 progs (vs ref (a))", fmt(1, 1, ck),
        fmt(1, 1, ro), ratio(ck, ro))
}

function table_4(    oo, fr, i) {
    cost_figures()
    print ""
    print "4. Added cost per getppid() syscall (ns, CPU time of abcost on" \
        " CPU " M["spin_cpu"] "; the tools' programs taken from them, the" \
        " variants interleaved over " M["cost_rounds"] " rounds), in the" \
        " machine's quick spells (" fmt(0, 100, QUICK_SHARE) "% of the" \
        " measurements)"
    row("  baseline, nothing attached (ns/call)", fmt(1, 1, QUICK["none"]),
        "(same)")
    cost_rows("  ", "quick")
    row("    (ours: raw tp sys_enter/exit; ref: classic)")
    oo = added("ours_other", "quick")
    fr = added("floor_raw", "quick")
    row("  (a) / floor of the same hooks", "x" ratio(oo, fr),
        "x" ratio(added("ref_other", "quick"),
                  added("floor_classic", "quick")), "",
        "<= 1.3 x floor",
        verdict(oo <= 1.3 * fr, isnum(oo) && isnum(fr),
            "4. added cost per syscall of another process: ours " \
            fmt(1, 1, oo) " ns <= 1.3 x two empty programs on its hooks " \
            fmt(1, 1, fr) " ns (x" ratio(oo, fr) ")"))
    row("  all measurements, quick and slow spells alike:")
    row("    baseline (ns/call)", fmt(1, 1, ALL["none"]), "(same)")
    cost_rows("    ", "all")
    row("  quick measurements per variant (of all)")
    for (i = 1; i <= NTAGS; i++) {
        row("    " TAGS[i], (NQ[TAGS[i]] + 0) " of " (NALL[TAGS[i]] + 0))
    }
}

# Figure 6: the poller's rate (calls over seconds, per run), every long
# interval reported by ours, none dropped.
function lp_rate(t,    i, c, sc, list) {
    list = ""
    for (i = 1; i <= M["ev_runs"] + 0; i++) {
        c = P[6, "poller", t, i, "calls"]
        sc = P[6, "poller", t, i, "secs"]
        if (isnum(c) && isnum(sc) && sc > 0) {
            list = list " " (c / sc)
        }
    }
    return med(list)
}

# Figure 6, ours with OPTION (variant T) against the reference's rate R.
function lp_variant(t, option, r,    o, i, missed, runs, rep, lg) {
    o = lp_rate(t)
    if (!isnum(o)) {
        return
    }
    runs = 0
    missed = 0
    for (i = 1; i <= M["ev_runs"] + 0; i++) {
        rep = P[6, "poller", t, i, "reported"]
        lg = P[6, "poller", t, i, "longs"]
        if (isnum(rep) && isnum(lg)) {
            runs++
            missed += rep < lg
        }
    }
    row("  rate with " option " (polls/s)", commas(o), commas(r),
        ratio(o, r), ">= 1.00 x ref",
        verdict(o >= r, isnum(o) && isnum(r),
            "6. poller under --long-poll-events " option " " commas(o) \
            " polls/s >= under the reference's classic mode " commas(r) \
            " (x" ratio(o, r) "), " missed " of " runs " runs missing" \
            " a long interval"))
}

function table_6(    o, r, n, i, runs, missed, drops, rep, lg) {
    o = lp_rate("ours")
    r = lp_rate("reference")
    n = lp_rate("none")
    runs = 0
    missed = 0
    drops = 0
    for (i = 1; i <= M["ev_runs"] + 0; i++) {
        rep = P[6, "poller", "ours", i, "reported"]
        lg = P[6, "poller", "ours", i, "longs"]
        if (!isnum(rep) || !isnum(lg)) {
            continue
        }
        runs++
        missed += rep < lg
        drops += P[6, "poller", "ours", i, "dropped"] + 0
    }
    print ""
    print "6. --long-poll-events 1 ms, a poll(NULL, 0, 0) loop at full rate" \
        " for " M["burst"] " s with a 2 ms interval every 100 ms (ours)," \
        " beside the reference's classic time mode (medians of " \
        M["ev_runs"] " runs each, interleaved)"
    row("  poller rate untraced (polls/s)", commas(n), "(same)")
    row("  added ns per poll() (1e9/traced - 1e9/untraced)",
        isnum(o) && isnum(n) && o > 0 && n > 0 ? fmt(0, 1, 1e9 / o - 1e9 / n) : "",
        isnum(r) && isnum(n) && r > 0 && n > 0 ? fmt(0, 1, 1e9 / r - 1e9 / n) : "")
    row("  poller rate while traced (polls/s)", commas(o), commas(r),
        ratio(o, r), ">= 1.00 x ref",
        verdict(o >= r, isnum(o) && isnum(r),
            "6. poller under --long-poll-events " commas(o) " polls/s >=" \
            " under the reference's classic mode " commas(r) " (x" \
            ratio(o, r) ")"))
    lp_variant("ours-profile", "--profile-hz " M["profile_hz"], r)
    lp_variant("ours-offcpu", "--off-cpu", r)
    lp_variant("ours-trace", "--trace-dir", r)
    row("  long intervals made, median",
        commas(medv(6, "poller", "ours", "longs")))
    row("  long intervals reported, median",
        commas(medv(6, "poller", "ours", "reported")))
    row("  runs of ours missing a long interval", runs ? missed : "", "",
        "", "0",
        verdict(missed == 0, runs > 0,
            "6. every long interval reported by ours in every run (" \
            missed " of " runs " runs short)"))
    row("  intervals dropped by ours, all runs", runs ? drops : "", "", "",
        "0",
        verdict(drops == 0, runs > 0,
            "6. no interval dropped by ours (" drops " in " runs " runs)"))
}

# Figure 7: ns per pipe round trip of two tasks that are not the target.
function table_7(    n, o, w, t, r) {
    n = medv(7, "pipe", "none", "ns_rt")
    o = medv(7, "pipe", "ours", "ns_rt")
    w = medv(7, "pipe", "ours-why", "ns_rt")
    t = medv(7, "pipe", "ours-trace", "ns_rt")
    r = medv(7, "pipe", "reference", "ns_rt")
    print ""
    print "7. Context switches of other tasks: a pipe round trip between two" \
        " processes on one CPU (two switches; medians of " \
        (M["pipe_runs"] != "" ? M["pipe_runs"] : M["ev_runs"]) \
        " runs x " M["pipe_repeats"] ", ns)"
    row("  untraced", fmt(0, 1, n), "(same)")
    row("  added per round trip", isnum(o) && isnum(n) ? fmt(0, 1, o - n) : "",
        isnum(r) && isnum(n) ? fmt(0, 1, r - n) : "")
    row("  round trip under --long-poll-events", fmt(0, 1, o), fmt(0, 1, r),
        ratio(o, r))
    paired(7, "pipe", "ours", "reference", "ns_rt")
    row("  ours less reference, paired runs (95% CI)",
        PCI != "" ? fmt(0, 1, PMEAN) " +- " fmt(0, 1, PCI) : "", "", "",
        "not above 0",
        verdict(PMEAN - PCI <= 0, PCI != "",
            "7. a round trip of other tasks under --long-poll-events costs" \
            " no more than under the reference's classic mode: ours less" \
            " the reference's " fmt(0, 1, PMEAN) " +- " fmt(0, 1, PCI) \
            " ns (95%, " PN " paired runs, ours above in " PUP ")"))
    row("  with --profile-hz " M["profile_hz"] " --off-cpu", fmt(0, 1, w),
        fmt(0, 1, r), ratio(w, r))
    if (isnum(t)) {
        row("  with --trace-dir", fmt(0, 1, t), fmt(0, 1, r), ratio(t, r))
    }
}

# Figure 8: the CPU a watch takes, tool and eBPF programs, with a busy
# target; the profile's, --off-cpu's and --metrics' (scraped every second)
# part, and the tracer's resident memory.
function table_8(    t, tool, bpf, all, base, i, name, rss, scrape) {
    print ""
    print "8. A watch's CPU time (% of one CPU: the tool's own, its eBPF" \
        " programs'), --long-poll-events 100 ms on " M["watch_threads"] \
        " threads always inside a poll interval, on one CPU (medians of " \
        M["ev_runs"] " runs of " M["watch_secs"] " s)"
    split("ours ours-profile ours-offcpu ours-metrics", t, " ")
    for (i = 1; i <= 4; i++) {
        tool = medv(8, "watch", t[i], "tool_pct")
        bpf = medv(8, "watch", t[i], "bpf_pct")
        all[i] = isnum(tool) && isnum(bpf) ? tool + bpf : ""
        rss[i] = medv(8, "watch", t[i], "rss_kb")
        name = i == 1 ? "  --long-poll-events" \
               : i == 2 ? "  with --profile-hz " M["profile_hz"] \
               : i == 3 ? "  with --off-cpu" \
               : "  with --metrics, scraped 1/s"
        row(name " (tool + eBPF)", fmt(2, 1, tool) " + " fmt(2, 1, bpf))
    }
    base = all[1]
    row("  --profile-hz " M["profile_hz"] " adds (% of one CPU)",
        isnum(all[2]) && isnum(base) ? fmt(2, 1, all[2] - base) : "", "",
        "", "< 1.00",
        verdict(all[2] - base < 1, isnum(all[2]) && isnum(base),
            "8. --profile-hz " M["profile_hz"] " costs " \
            fmt(2, 1, all[2] - base) "% of one CPU (< 1%) with " \
            M["watch_threads"] " busy threads"))
    row("  --off-cpu adds (% of one CPU)",
        isnum(all[3]) && isnum(base) ? fmt(2, 1, all[3] - base) : "")
    row("  --metrics scraped 1/s adds (% of one CPU)",
        isnum(all[4]) && isnum(base) ? fmt(2, 1, all[4] - base) : "")
    # One scrape's CPU, paired within each --metrics watch (bench/run.sh's
    # scrape_cost); at one scrape a second, 1 ms of it is 0.1% of a CPU.
    scrape = medv(8, "watch", "ours-metrics", "scrape_ns")
    row("  one scrape (ms of the tool's CPU)", fmt(3, 1e-6, scrape))
    row("  so a scrape a second takes (% of one CPU)",
        fmt(3, 1e-7, scrape), "", "", "< 0.50",
        verdict(scrape * 1e-7 < 0.5, isnum(scrape),
            "8. --metrics scraped every second costs " \
            fmt(3, 1e-7, scrape) "% of one CPU (< 0.5%): " \
            fmt(3, 1e-6, scrape) " ms a scrape"))
    row("  RSS (MiB): watch, with --metrics",
        isnum(rss[1]) ? fmt(1, 1, rss[1] / 1024) : "",
        isnum(rss[4]) ? fmt(1, 1, rss[4] / 1024) : "")
}

# Figure 9: the share of samples with the whole chain, from the sums over
# the runs of TOOL.
function whole_pct(t,    s, w, n, i, a, b) {
    n = split(vals(9, "stacks", t, "samples"), a, " ")
    split(vals(9, "stacks", t, "whole"), b, " ")
    s = w = 0
    for (i = 1; i <= n; i++) {
        s += a[i]
        w += b[i]
    }
    return s > 0 ? 100 * w / s : ""
}

# Figure 9: user stacks unwound from the CFI in the kernel, beside frame
# pointers and perf record --call-graph dwarf, on a target built without
# frame pointers.
function table_9(    o, f, p, oc, pc, ot, ob, pr, ps, kb) {
    o = whole_pct("ours")
    f = whole_pct("ours-fp")
    p = whole_pct("perf")
    ot = medv(9, "stacks", "ours", "tool_pct")
    ob = medv(9, "stacks", "ours", "bpf_pct")
    pr = medv(9, "stacks", "perf", "tool_pct")
    ps = medv(9, "stacks", "perf", "post_pct")
    oc = isnum(ot) && isnum(ob) ? ot + ob : ""
    pc = isnum(pr) && isnum(ps) ? pr + ps : ""
    kb = medv(9, "stacks", "perf", "bytes_per_s")
    print ""
    print "9. User stacks, five calls deep through libc, no frame pointers," \
        " " M["stacks_hz"] " Hz (" M["ev_runs"] " runs of " \
        M["stacks_secs"] " s): ours beside perf record --call-graph dwarf"
    row("", "ours", "perf", "ratio", "target")
    row("  samples with the whole chain (%)", fmt(1, 1, o), fmt(1, 1, p),
        "", ">= 95",
        verdict(o >= 95, isnum(o),
            "9. " fmt(1, 1, o) "% of the samples unwound whole (>= 95%)"))
    row("    ours with --frame-pointers (%)", fmt(1, 1, f))
    row("  CPU per second profiled (% of one CPU)", fmt(2, 1, oc),
        fmt(2, 1, pc), ratio(oc, pc), "<= 1.00",
        verdict(oc <= pc, isnum(oc) && isnum(pc),
            "9. ours takes " fmt(2, 1, oc) "% of one CPU, perf " \
            fmt(2, 1, pc) "% (record and script)"))
    row("    ours: tool + eBPF; perf: record + script",
        fmt(2, 1, ot) " + " fmt(2, 1, ob), fmt(2, 1, pr) " + " fmt(2, 1, ps))
    row("  perf.data per second profiled (KiB)", "", fmt(0, 1 / 1024, kb))
}

function table_5(    o, r) {
    o = medv(2, 1000, "ours", "rss_kb")
    r = medv(2, 1000, "reference", "rss_kb")
    print ""
    print "5. Peak memory, 0.5 s sample of 1,000 threads (max RSS, MiB;" \
        " reference: 1 run)"
    row("  whole run", fmt(1, 1 / 1024, o), fmt(1, 1 / 1024, r), ratio(o, r))
}

# The closing lines: the verdicts, the machine's state, notes, failures.
function footer(    i, s) {
    print ""
    print "Verdicts (PASS/FAIL against the targets; n/a: not measured):"
    for (i = 1; i <= NVERDICT; i++) {
        print "  " VERDICT[i]
    }
    print ""
    if (MN["not_quiet"] > 0) {
        s = ""
        for (i = 1; i <= MN["not_quiet"]; i++) {
            s = s (i > 1 ? ", " : "") ML["not_quiet", i]
        }
        print "note: measured on a busy machine (CPU busy just before, other" \
            " programs on the syscall hooks): " s "."
    }
    for (i = 1; i <= MN["note"]; i++) {
        print "note: " ML["note", i]
    }
    for (i = 1; i <= MN["failed"]; i++) {
        print "MEASUREMENT FAILED: " ML["failed", i]
    }
    if ("elapsed" in M) {
        print "bench took " M["elapsed"] " s"
    }
}

END {
    if (mode == "short") {
        cost_figures()
        for (i = 1; i <= NTAGS; i++) {
            if (NQ[TAGS[i]] + 0 < min + 0) {
                exit 0
            }
        }
        exit 1
    }
    header()
    if (want(1)) table_1()
    if (want(2)) table_2()
    if (want(3)) table_3()
    if (want(4)) table_4()
    if (want(2) || want(5)) table_5()
    if (want(6)) table_6()
    if (want(7)) table_7()
    if (want(8)) table_8()
    if (want(9)) table_9()
    footer()
}
