# Benchmarks: "make bench" (included by the top Makefile).
#
# Builds kernel_delay and the benchmark's own helpers (into bench/build/),
# installs what the reference kernel_delay.py needs when it is missing,
# prepares the host (tracefs, debugfs, kernel header links) and runs
# bench/run.sh, which measures, writes raw rows into a results directory
# (bench/results/), and prints the table and the verdicts that
# bench/analyze.sh makes of them (also written to bench/results.txt).
# bench/README.md says what each figure means and how it is measured.
#
#   make bench                    everything (about six to eleven
#                                 minutes: figure 3 runs each tool with
#                                 and without stacks; figure 4 may add
#                                 rounds)
#   make bench BENCH_ARGS=--quick fewer repetitions (see bench/run.sh -h)

BENCH_HELPERS = bench/build/runcmd bench/build/threads bench/build/spin \
	bench/build/abcost bench/build/pipe bench/build/deep
BENCH_CFLAGS = -std=gnu11 -D_GNU_SOURCE -O2 -g $(WARNFLAGS)
BENCH_ARGS ?=

bench/build:
	mkdir -p bench/build

bench/build/runcmd: bench/runcmd.c | bench/build
	$(CC) $(BENCH_CFLAGS) -o $@ $<

bench/build/threads: bench/threads.c | bench/build
	$(CC) $(BENCH_CFLAGS) -pthread -o $@ $<

bench/build/spin: bench/spin.c bench/helper.h | bench/build
	$(CC) $(BENCH_CFLAGS) -o $@ $<

bench/build/pipe: bench/pipe.c bench/helper.h | bench/build
	$(CC) $(BENCH_CFLAGS) -o $@ $<

# Without frame pointers, as packages are (figure 9).
bench/build/deep: bench/deep.c bench/helper.h | bench/build
	$(CC) $(BENCH_CFLAGS) -fomit-frame-pointer -o $@ $<

bench/build/abcost: bench/abcost.c bench/helper.h | bench/build
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LDLIBS_ALL)

bench-helpers: $(BENCH_HELPERS)

bench:
	tools/install-deps.sh bench
	tools/prepare-host.sh
	$(MAKE) kernel_delay bench-helpers
	bench/run.sh $(BENCH_ARGS)

bench-clean:
	rm -rf bench/build

clean: bench-clean

.PHONY: bench bench-helpers bench-clean
