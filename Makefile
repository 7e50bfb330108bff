# krieg — one Makefile for the whole tree.
#
#   make            build bin/kriegd, bin/krieg, bin/krieg-referee, bin/krieg-bot
#   make deps       install the Debian packages the build needs (only if missing)
#   make run        build and run kriegd with embedded defaults (state under ./var)
#   make check      build everything with ASan+UBSan and run the unit and integration tests
#   make bench      perft against Stockfish and other benchmarks
#   make soak       kriegd's RSS under SOAK_CONNS/2 games for SOAK_SECONDS: FLAT or GROWING
#   make fuzz       libFuzzer targets, FUZZ_SECONDS each (tests/fuzz/README.md)
#   make fuzz-tsan  the dispatcher's fuzz inputs once each under ThreadSanitizer
#   make memcheck   the integration suite with kriegd under valgrind
#   make install    install binaries, man pages, systemd units and docs under $(PREFIX),
#                   and $(SYSCONFDIR)/kriegd/kriegd.conf if there is none (DESTDIR= for staging)
#   make clean

PREFIX  ?= /usr/local
SYSCONFDIR ?= /etc
BUILD   ?= build/release
BINDIR  ?= bin
CC      ?= cc

PKGS     = libevent libevent_openssl openssl jansson sqlite3 libsystemd
TESTPKGS = check
DEBS     = build-essential pkg-config libevent-dev libssl-dev libjansson-dev \
           libsqlite3-dev check libedit-dev libsystemd-dev groff-base man-db libwslay-dev

OPT      ?= -O2
SANFLAGS ?=
WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter
CPPFLAGS += -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
CFLAGS   += -std=c17 $(OPT) -g $(WARN) $(SANFLAGS)
LDFLAGS  += $(SANFLAGS)

pkgcflags = $(shell pkg-config --cflags $(1) 2>/dev/null)
pkglibs   = $(shell pkg-config --libs $(1) 2>/dev/null)

# --- sources -------------------------------------------------------------
COMMON_SRC  = $(wildcard common/*.c)
PROTO_SRC   = $(wildcard proto/*.c)
SERVER_SRC  = $(filter-out server/main.c,$(wildcard server/*.c))
CLIENT_SRC  = $(filter-out client-cli/krieg/main.c,$(wildcard client-cli/krieg/*.c))
REFTOOL_SRC = $(wildcard client-cli/referee/*.c)
UNIT_SRC    = $(wildcard tests/unit/test_*.c)
INTEG_SRC   = $(wildcard tests/integration/test_*.c)
HARNESS_SRC = $(wildcard tests/integration/harness*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCORE   = $(BUILD)/libkriegcore.a
LIBPROTO  = $(BUILD)/libkriegproto.a
LIBSERVER = $(BUILD)/libkriegd.a
LIBCLIENT = $(BUILD)/libkriegclient.a
# The web door's compiled-in files (see "web client" below).
WEB_FILES       = $(notdir $(wildcard client-web/*.html client-web/*.css client-web/*.js client-web/*.svg))
WEB_ASSETS_C    = $(BUILD)/gen/web_assets.c
WEB_ASSETS_OBJ  = $(BUILD)/obj/gen/web_assets.o

CORE_LIBS   = -lm
PROTO_LIBS  = $(call pkglibs,jansson)
SERVER_LIBS = $(call pkglibs,libevent libevent_openssl libevent_pthreads openssl sqlite3 jansson libsystemd) -lwslay -lpthread
CLIENT_LIBS = $(call pkglibs,libevent libevent_openssl openssl jansson) -ledit

.PHONY: all deps run check check-build unit integration bench bench-build install clean check-service
# Keep the objects of pattern-built test binaries (make would delete them as intermediates).
.SECONDARY:
all: $(BINDIR)/kriegd $(BINDIR)/krieg $(BINDIR)/krieg-referee $(BINDIR)/krieg-bot

# --- dependencies ---------------------------------------------------------
# Installs only what pkg-config cannot find, so a prepared machine runs nothing.
deps:
	@if pkg-config --exists $(PKGS) $(TESTPKGS) libedit && command -v cc >/dev/null && \
	    command -v groff >/dev/null && command -v man >/dev/null && \
	    [ -f /usr/include/wslay/wslay.h ]; then :; \
	else \
	  echo "make deps: installing $(DEBS)"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(DEBS); \
	fi

# --- libraries -------------------------------------------------------------
# Each directory sees the headers of its own layer and those below it, so
# the layering is a compile error, not a convention: a common/ file that
# includes a proto or server header does not build.
COMMON_INC  = -Icommon -I$(BUILD)/gen
PROTO_INC   = -Icommon -Iproto
SERVER_INC  = $(PROTO_INC) -Iserver
CLIENT_INC  = $(PROTO_INC) -Iclient-cli/krieg
REFTOOL_INC = $(PROTO_INC) -Iclient-cli/referee
TEST_INC    = $(PROTO_INC) -Iserver -Iclient-cli/krieg -Iclient-cli/bot -Itests

$(BUILD)/obj/common/%.o: common/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(COMMON_INC) $(CFLAGS) -MMD -MP -c -o $@ $<
$(BUILD)/obj/proto/%.o: proto/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PROTO_INC) $(CFLAGS) $(call pkgcflags,jansson) -MMD -MP -c -o $@ $<
$(BUILD)/obj/server/%.o: server/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SERVER_INC) $(CFLAGS) $(call pkgcflags,$(PKGS)) -MMD -MP -c -o $@ $<
$(BUILD)/obj/client-cli/krieg/%.o: client-cli/krieg/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLIENT_INC) $(CFLAGS) $(call pkgcflags,$(PKGS) libedit) -MMD -MP -c -o $@ $<
$(BUILD)/obj/client-cli/referee/%.o: client-cli/referee/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(REFTOOL_INC) $(CFLAGS) $(call pkgcflags,jansson) -MMD -MP -c -o $@ $<
$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_INC) $(CFLAGS) $(call pkgcflags,$(PKGS) check) -MMD -MP -c -o $@ $<

$(LIBCORE): $(call obj,$(COMMON_SRC))
$(LIBPROTO): $(call obj,$(PROTO_SRC))
$(LIBSERVER): $(call obj,$(SERVER_SRC)) $(WEB_ASSETS_OBJ)
$(LIBCLIENT): $(call obj,$(CLIENT_SRC))
$(BUILD)/%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# --- generated tables (owner: rules core) -----------------------------------
# common/gen/gentables.c writes the const lookup tables (magic bitboards,
# leaper attacks, between/line masks, Zobrist keys) that common/attacks.c
# includes.  It runs on the build machine, so it is built without sanitizers.
GEN_TABLES = $(BUILD)/gen/krieg_tables.inc
$(BUILD)/gen/gentables: common/gen/gentables.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O2 $(WARN) -o $@ $<
$(GEN_TABLES): $(BUILD)/gen/gentables
	$< > $@.tmp && mv $@.tmp $@
$(call obj,common/attacks.c): $(GEN_TABLES)
# --- end generated tables ------------------------------------------------------

# --- web client (owner: issue 16) ----------------------------------------------
# client-web/'s files, compiled into kriegd as one generated C file
# (server/web.h, struct web_asset): the web door's whole file set.
$(BUILD)/gen/genassets: server/gen/genassets.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O2 $(WARN) -o $@ $<
$(WEB_ASSETS_C): $(BUILD)/gen/genassets $(addprefix client-web/,$(WEB_FILES))
	$< client-web $(WEB_FILES) > $@.tmp && mv $@.tmp $@
$(WEB_ASSETS_OBJ): $(WEB_ASSETS_C)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SERVER_INC) $(CFLAGS) -c -o $@ $<
# The browser tests (tests/browser/): Debian's chromium driven by Node with
# playwright-core (installed from the committed package-lock.json into
# tests/browser/node_modules; no browser is downloaded) against a real kriegd;
# and nginx-light for tests/browser/proxy.sh (deploy/proxy/'s example, run).
# Debian packages: chromium, nodejs, npm, nginx-light.
.PHONY: browser-deps check-browser
# Only what is missing is installed: a machine whose Node.js came from
# elsewhere (NodeSource's nodejs carries its own npm) refuses Debian's npm
# beside it, and the whole install with it.
browser-deps:
	@need=; [ -x /usr/bin/chromium ] || need="$$need chromium"; \
	  command -v node >/dev/null || need="$$need nodejs"; \
	  command -v npm >/dev/null || need="$$need npm"; \
	  [ -x /usr/sbin/nginx ] || need="$$need nginx-light"; \
	  if [ -n "$$need" ]; then \
	  echo "make check-browser: installing$$need"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$need || \
	  { echo "make check-browser: could not install$$need; the browser tests cannot run" >&2; exit 1; }; \
	fi
	@[ -d tests/browser/node_modules/playwright-core ] || (cd tests/browser && npm ci --no-audit --no-fund)
# The browser tests wait more than they compute (deadpath.mjs's 75 s are
# mostly timers: a relay frozen, the page's renderer stopped, only its own
# browser's, found by process tree), so three run at once: deadpath, play
# then phone then a11y, session then guard (about 75 s against 130 s one
# after another).  Each has its own kriegd and browser; the outputs are
# printed whole, one after another.
check-browser: browser-deps $(BINDIR)/kriegd
	@mkdir -p $(BUILD)/browser
	@kd=$(abspath $(BINDIR)/kriegd); b=$(abspath $(BUILD)/browser); \
	 run() { echo "$$*"; "$$@"; }; \
	 node tests/browser/deadpath.mjs $$kd > $$b/deadpath.log 2>&1 & dp=$$!; \
	 { run node tests/browser/play.mjs $$kd $$b/screenshot.png && \
	   run node tests/browser/phone.mjs $$kd && \
	   run node tests/browser/a11y.mjs $$kd; } > $$b/play.log 2>&1 & pl=$$!; \
	 run node tests/browser/session.mjs $$kd && \
	 run node tests/browser/guard.mjs $$kd; s=$$?; \
	 wait $$pl; p=$$?; cat $$b/play.log; \
	 wait $$dp; d=$$?; echo "node tests/browser/deadpath.mjs $$kd"; cat $$b/deadpath.log; \
	 [ $$s = 0 ] && [ $$p = 0 ] && [ $$d = 0 ]
	tests/browser/proxy.sh $(abspath $(BINDIR)/kriegd)
# --- end web client -------------------------------------------------------------

# --- binaries ---------------------------------------------------------------
$(BINDIR)/kriegd: $(call obj,server/main.c) $(LIBSERVER) $(LIBPROTO) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(SERVER_LIBS) $(CORE_LIBS)
$(BINDIR)/krieg: $(call obj,client-cli/krieg/main.c) $(LIBCLIENT) $(LIBPROTO) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CLIENT_LIBS) $(CORE_LIBS)
$(BINDIR)/krieg-referee: $(call obj,$(REFTOOL_SRC)) $(LIBPROTO) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PROTO_LIBS) $(CORE_LIBS)

# --- krieg-bot (client-cli/bot): a client like any other, over net.c ---------
BOT_SRC = $(filter-out client-cli/bot/main.c,$(wildcard client-cli/bot/*.c))
BOT_INC = $(CLIENT_INC) -Iclient-cli/bot
LIBBOT  = $(BUILD)/libkriegbot.a
$(BUILD)/obj/client-cli/bot/%.o: client-cli/bot/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BOT_INC) $(CFLAGS) $(call pkgcflags,$(PKGS)) -MMD -MP -c -o $@ $<
$(LIBBOT): $(call obj,$(BOT_SRC))
$(BINDIR)/krieg-bot: $(call obj,client-cli/bot/main.c) $(LIBBOT) $(LIBCLIENT) $(LIBPROTO) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CLIENT_LIBS) $(CORE_LIBS)
# --- end krieg-bot ---------------------------------------------------------

# --- tests ------------------------------------------------------------------
# One Check binary per test file; each links every library (the archives
# contribute only the objects it uses).
TEST_LIBS = $(LIBSERVER) $(LIBBOT) $(LIBCLIENT) $(LIBPROTO) $(LIBCORE)
TEST_LDLIBS = $(SERVER_LIBS) -ledit $(call pkglibs,check) $(CORE_LIBS)
# Unit and integration binaries live in separate folders: the same name
# (test_auth) may exist in both.
UNIT_BINS  = $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
INTEG_BINS = $(patsubst tests/integration/%.c,$(BUILD)/tests/integration/%,$(INTEG_SRC))
BENCH_BINS = $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(wildcard tests/bench/*.c))

$(BUILD)/tests/unit/test_%: $(BUILD)/obj/tests/unit/test_%.o $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)
$(INTEG_BINS): $(BUILD)/tests/integration/%: $(BUILD)/obj/tests/integration/%.o $(call obj,$(HARNESS_SRC)) $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)
# test_clockjump steps kriegd's wall clock with an LD_PRELOAD shim, found
# beside the test binary (../../lib); built without the sanitizers.
FAKETIME_SO = $(BUILD)/lib/krieg-faketime.so
$(FAKETIME_SO): tests/integration/faketime.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 $(OPT) -g $(WARN) -fPIC -shared -o $@ $< -ldl
$(BUILD)/tests/integration/test_clockjump: | $(FAKETIME_SO)

# The sanitized tree lives apart from the release one so both can coexist.
ASAN_VARS = BUILD=build/asan BINDIR=build/asan/bin OPT=-O1 \
            SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# gcc builds the release tree, compiles every test (-O2 finds warnings
# -O1 does not) and links what runs from that tree (test_trim, the
# benchmarks); clang (when present) must compile the same sources cleanly:
# its warnings come from its front end, the same at -O0, and nothing is
# linked (check-compile: 24 s against 51 s for a linked -O2 tree).  The
# tests then run from the sanitized tree.  The builds take one job per
# core (JOBS), the unit suites too (they compute); the integration suites
# two per core (they wait on sockets and timers: the cores were 30-40%
# busy at one per core, and the suites' time fell by a quarter at two).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Each step's start is stamped (the ten minutes: where they go).
check: deps
	@date '+== check %T: the -O2 tree'
	$(MAKE) -j$(JOBS) all check-compile $(BENCH_BINS) $(addprefix $(BUILD)/tests/unit/,$(PLAIN_TESTS))
	@date '+== check %T: the sanitized tree'
	$(MAKE) -j$(JOBS) $(ASAN_VARS) check-build
	@date '+== check %T: the suites'
	$(MAKE) $(ASAN_VARS) suites
	@date '+== check %T: the plain suites'
	tests/run-tests.sh plain $(addprefix $(BUILD)/tests/unit/,$(PLAIN_TESTS))
	@date '+== check %T: the service, TSan, clang and fuzz checks'
	$(MAKE) -j3 --output-sync=target check-after
	@date '+== check %T: the browser'
	$(MAKE) $(ASAN_VARS) check-browser
	@date '+== check %T: done'

# After the suites, side by side (each target's output printed whole when
# it ends): the service checks then the benchmarks' smoke, the TSan build
# and thread tests, and when clang is there its compilation of the tree and
# the fuzz smoke.  Alone, one after the other, they took 170 s of make
# check; the first two use a fifth of a core and a core at most, so they
# leave room for the builds.  The browser tests come last and alone:
# chromium fills both cores.
CLANG := $(shell command -v clang 2>/dev/null)
.PHONY: check-after check-service-smoke check-tsan check-clang
check-after: check-service-smoke check-tsan $(if $(CLANG),check-clang fuzz-smoke)
check-clang:
	$(MAKE) -j$(JOBS) CC=clang BUILD=build/clang BINDIR=build/clang/bin OPT=-O0 check-compile
check-service-smoke:
	$(MAKE) check-service
	$(MAKE) bench-smoke
check-tsan:
	$(MAKE) -j$(JOBS) $(TSAN_VARS) build/tsan/bin/kriegd
	ASAN_OPTIONS=$${ASAN_OPTIONS:-$(SUITE_ASAN)} KRIEGD=$(abspath build/tsan/bin/kriegd) tests/run-tests.sh tsan \
	  $(addprefix build/asan/tests/integration/,$(THREAD_TESTS))

# The daemon's threads (store writer, password hashing, reader) under ThreadSanitizer:
# the integration tests that drive them run against a TSan-built kriegd.
TSAN_VARS = BUILD=build/tsan BINDIR=build/tsan/bin OPT=-O1 \
            SANFLAGS="-fsanitize=thread -fno-omit-frame-pointer"
THREAD_TESTS = test_umpire test_accounts test_timing test_batch   # longest first: 69, 39, 17, 6 s

# Tests of glibc's allocator itself (under ASan, malloc is ASan's): run
# again from the release tree, where they are built in full.
PLAIN_TESTS = test_trim

check-build: all $(UNIT_BINS) $(INTEG_BINS) $(BENCH_BINS)

# Every source of the tree compiled, nothing linked: clang's part of make
# check is its warnings, which linking adds nothing to.
TREE_OBJS = $(call obj,$(COMMON_SRC) $(PROTO_SRC) $(SERVER_SRC) server/main.c $(CLIENT_SRC) \
              client-cli/krieg/main.c $(REFTOOL_SRC) $(BOT_SRC) client-cli/bot/main.c \
              $(UNIT_SRC) $(INTEG_SRC) $(HARNESS_SRC) $(wildcard tests/bench/*.c))
.PHONY: check-compile
check-compile: $(TREE_OBJS)

# tests/run-tests.sh runs a suite per core, in the order given: the
# longest (by the times it prints) go first, so that the lanes end together.
UNIT_FIRST  = test_belief test_replay_page test_bot test_view
INTEG_FIRST = test_watch test_recovery test_bot test_client test_transport test_umpire test_club \
              test_game test_accounts
longest_first = $(foreach t,$(1),$(filter %/$(t),$(2))) $(filter-out $(addprefix %/,$(1)),$(2))

# ASan's options for the suites and their daemons (an ASAN_OPTIONS of one's
# own wins): a small quarantine of freed memory, and freed memory kept
# rather than handed back to the kernel every 5 s, each time to be faulted
# in again: page faults were most of the suites' system time, itself about
# 40% of their CPU (the suites together: 361 s -> 325 s on 2 cores).  The
# harness gives its daemons the same when run by hand.
SUITE_ASAN = quarantine_size_mb=4:allocator_release_to_os_interval_ms=-1
SUITE_ENV  = ASAN_OPTIONS=$${ASAN_OPTIONS:-$(SUITE_ASAN)} \
             KRIEGD=$(abspath $(BINDIR)/kriegd) KRIEG=$(abspath $(BINDIR)/krieg) \
             KRIEG_REFEREE=$(abspath $(BINDIR)/krieg-referee)

unit: $(UNIT_BINS)
	@$(SUITE_ENV) tests/run-tests.sh unit $(call longest_first,$(UNIT_FIRST),$(UNIT_BINS))

integration: $(INTEG_BINS) all
	@$(SUITE_ENV) KRIEG_TEST_JOBS=$${KRIEG_TEST_JOBS:-$$(( $(JOBS) * 2 ))} \
	 tests/run-tests.sh integration $(call longest_first,$(INTEG_FIRST),$(INTEG_BINS))

# make check's: the unit and the integration suites as one set, two per
# core, the longest first.  The unit suites compute while the integration
# suites wait on sockets and timers, so together they fill the cores: one
# set took 361 s where the two, one after the other, took about 416.
SUITES_FIRST = test_bot test_watch test_recovery test_client test_transport test_belief \
               test_umpire test_club test_game test_accounts test_replay_page test_view
.PHONY: suites
suites: $(UNIT_BINS) $(INTEG_BINS) all
	@$(SUITE_ENV) KRIEG_TEST_JOBS=$${KRIEG_TEST_JOBS:-$$(( $(JOBS) * 2 ))} \
	 tests/run-tests.sh suites $(call longest_first,$(SUITES_FIRST),$(INTEG_BINS) $(UNIT_BINS))

# pkg-config is read when make parses this file, so on a machine where
# `deps` has just installed the libraries the build must be a fresh make.
bench: deps
	@command -v stockfish >/dev/null || [ -x /usr/games/stockfish ] || { \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq stockfish; }
	@$(MAKE) --no-print-directory all bench-build
	@tests/bench/run.sh $(abspath $(BINDIR))
	@echo "== password hashing (scrypt) per login"
	@$(BUILD)/bench/auth_bench
	@echo "== moves through kriegd, group commit (TMPDIR: the disk under test)"
	@$(BUILD)/bench/move_bench $(abspath $(BINDIR)/kriegd)
	@echo "== one client's first read of a long record (40,000 notes) against everyone else's pings"
	@$(BUILD)/bench/move_bench --stall 40000 6 $(abspath $(BINDIR)/kriegd)
	@echo "== a live game's views against the actions their reader was not told of (2,000 private notes)"
	@$(BUILD)/bench/move_bench --hidden 2000 300 $(abspath $(BINDIR)/kriegd)
	@echo "== load: kriegd against the transport ceiling (tests/bench/loadgen, echod)"
	@tests/bench/load.sh $(abspath $(BINDIR)) $(abspath $(BUILD)/bench)
	@client-cli/bot/bench.sh $(abspath $(BINDIR))

# The benchmark programs must keep running (a guest cap once broke
# move_bench, unseen until a `make bench`): in `make check`, a second of
# move_bench and of loadgen against the release kriegd, checked for tries
# made without errors, never for speed.
.PHONY: bench-smoke
bench-smoke: all $(BENCH_BINS)
	@tests/bench/smoke.sh $(BUILD)/bench $(abspath $(BINDIR)/kriegd)

# Benchmark programs: tests/bench/*.c, each linked like a test (BENCH_BINS
# is defined with the test binaries, before the rules that need it).
bench-build: $(BENCH_BINS)
$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)

# The soak (issue 13; BENCHMARKS.md "Soak"): loadgen --soak runs kriegd
# under SOAK_CONNS connections (SOAK_CONNS/2 games, each finished game
# followed by the next) for SOAK_SECONDS, think time SOAK_THINK ms (drawn
# from 0.5..1.5 x: 30..90 ms, about 3,000 tries/s and a third of a core for
# kriegd, so the machine stays usable), kriegd's RSS sampled every
# SOAK_SAMPLE s; the verdict is fitted after the warm-up (20%, at least
# 120 s).  Fails when GROWING.
SOAK_SECONDS ?= 600
SOAK_CONNS   ?= 400
SOAK_THINK   ?= 60
SOAK_SAMPLE  ?= 5
.PHONY: soak
soak: deps
	@$(MAKE) --no-print-directory all bench-build
	@echo "== soak: load average before: $$(cut -d' ' -f1-3 /proc/loadavg), $$(nproc) cores"
	@$(BUILD)/bench/loadgen --soak $(SOAK_SECONDS) -S $(SOAK_SAMPLE) -c $(SOAK_CONNS) \
	   -t $(SOAK_THINK) $(abspath $(BINDIR)/kriegd); s=$$?; \
	 echo "== soak: load average after: $$(cut -d' ' -f1-3 /proc/loadavg)"; exit $$s

# --- fuzzing (tests/fuzz/README.md) ----------------------------------------
# libFuzzer targets, built with clang into their own tree: the libraries
# with coverage, ASan and UBSan, the targets linked with the fuzzer's main.
# `make fuzz FUZZ_SECONDS=N` fuzzes each target for N seconds (new inputs
# go to build/fuzz/corpus/, the seeds in tests/fuzz/corpus/ stay as they
# are); `make fuzz-smoke` (part of check) replays every seed and
# regression input, then fuzzes each target for FUZZ_SMOKE_SECONDS.
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 1
FUZZ_SRC  = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_VARS = CC=clang BUILD=build/fuzz BINDIR=build/fuzz/bin OPT=-O1 \
            SANFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
$(BUILD)/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(LIBSERVER) $(LIBBOT) $(LIBCLIENT) $(LIBPROTO) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(SERVER_LIBS) $(CORE_LIBS)
.PHONY: fuzz fuzz-build fuzz-deps fuzz-smoke fuzz-tsan memcheck
fuzz-build: $(FUZZ_BINS)
# clang's fuzzer runtime is a package of its own on Debian (libclang-rt-dev).
fuzz-deps:
	@t=$$(mktemp -d); echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' > $$t/t.c; \
	if clang -fsanitize=fuzzer,address,undefined -o $$t/t $$t/t.c 2>/dev/null; then :; else \
	  echo "make fuzz: installing libclang-rt-dev"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends libclang-rt-dev; \
	fi; rm -rf $$t
fuzz: deps fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_VARS) fuzz-build
	@tests/fuzz/run.sh fuzz $(FUZZ_SECONDS) build/fuzz/fuzz
fuzz-smoke: fuzz-deps
	@$(MAKE) --no-print-directory -j$(JOBS) $(FUZZ_VARS) fuzz-build
	@tests/fuzz/run.sh smoke $(FUZZ_SMOKE_SECONDS) build/fuzz/fuzz
# The dispatcher's inputs under ThreadSanitizer (its world has the
# daemon's threads: the store writer, the checkpointer, the hashers, the
# reader): fuzz_dispatch built without the coverage counters, whose
# increments from those threads are all TSan would report otherwise, runs
# every seed, regression input and input `make fuzz` kept, once each.
FUZZ_TSAN_VARS = CC=clang BUILD=build/fuzz-tsan BINDIR=build/fuzz-tsan/bin OPT=-O1 \
                 SANFLAGS="-fsanitize=thread -fno-omit-frame-pointer"
fuzz-tsan: deps fuzz-deps
	@$(MAKE) --no-print-directory -j$(JOBS) $(FUZZ_TSAN_VARS) build/fuzz-tsan/fuzz/fuzz_dispatch
	@d=$$(mktemp -d); cp tests/fuzz/corpus/dispatch/* tests/fuzz/regress/dispatch/* $$d/; \
	 if [ -d build/fuzz/corpus/dispatch ]; then cp build/fuzz/corpus/dispatch/* $$d/ 2>/dev/null; fi; \
	 build/fuzz-tsan/fuzz/fuzz_dispatch -detect_leaks=0 -runs=0 -artifact_prefix=build/fuzz-tsan/crash- \
	   $$d >$$d.log 2>&1; s=$$?; \
	 grep -c "WARNING: ThreadSanitizer" $$d.log | sed 's/$$/ ThreadSanitizer reports/'; \
	 grep -E "^Done" $$d.log; [ $$s = 0 ] || tail -60 $$d.log; rm -rf $$d $$d.log; exit $$s

# The integration suite with kriegd under valgrind (memcheck): any memory
# error or definite leak in the daemon fails the test that ran it
# (tests/integration/valgrind-kriegd), and so does any valgrind report
# of a daemon the test killed (one log per process in $(BUILD)/memcheck,
# checked by tests/run-tests.sh after each suite).  The daemon is this
# tree's build, without sanitizers; timeouts are stretched for valgrind's
# pace.  Every code path, not volume: test_watch plays MEMCHECK_WATCH_GAMES
# games per rule set instead of 100 (make check keeps 100).  One suite at
# a time: about 25 minutes on one core.
MEMCHECK_TESTS ?= $(INTEG_BINS)
MEMCHECK_WATCH_GAMES ?= 5
memcheck: deps
	@command -v valgrind >/dev/null || { \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq valgrind; }
	@$(MAKE) --no-print-directory all $(INTEG_BINS)
	@KRIEGD=$(abspath tests/integration/valgrind-kriegd) KRIEGD_MEMCHECK=$(abspath $(BINDIR)/kriegd) \
	 KRIEG=$(abspath $(BINDIR)/krieg) KRIEG_REFEREE=$(abspath $(BINDIR)/krieg-referee) \
	 KRIEG_BOT=$(abspath $(BINDIR)/krieg-bot) CK_TIMEOUT_MULTIPLIER=20 KRIEG_TIMEOUT_SCALE=20 \
	 WATCH_GAMES=$(MEMCHECK_WATCH_GAMES) KRIEG_MEMCHECK_LOGDIR=$(abspath $(BUILD))/memcheck \
	 tests/run-tests.sh memcheck $(MEMCHECK_TESTS)

run: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p var
	@echo "kriegd: state in ./var; connect with: bin/krieg localhost   (pins the development certificate on first use)"
	@echo "        or: openssl s_client -quiet -connect localhost:7474"
	@echo "        or a browser: https://127.0.0.1:7480/ (the web door, listen_web)"
	exec $(BINDIR)/kriegd --state-dir var --set listen_web=127.0.0.1:7480

# --- service (owner: issue 12) ---------------------------------------------------
# Man pages: checked by groff -ww (every warning) in check-service.
MANPAGES = client-cli/krieg.1 client-cli/referee/krieg-referee.1 client-cli/bot/krieg-bot.1 man/kriegd.8 \
           man/kriegd.conf.5
UNITS    = kriegd.service kriegd.socket kriegd-backup.service kriegd-backup.timer krieg-bot@.service
# The units name /usr/local and /etc/kriegd; installed, they name PREFIX and SYSCONFDIR.
UNIT_SED = s|/usr/local|$(PREFIX)|g; s|/etc/kriegd|$(SYSCONFDIR)/kriegd|g

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/krieg \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	  $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/lib/systemd/system \
	  $(DESTDIR)$(PREFIX)/share/doc/krieg/proxy $(DESTDIR)$(PREFIX)/share/doc/krieg/fail2ban/filter.d \
	  $(DESTDIR)$(PREFIX)/share/doc/krieg/fail2ban/jail.d $(DESTDIR)$(SYSCONFDIR)/kriegd
	install -m 755 $(BINDIR)/kriegd $(BINDIR)/krieg $(BINDIR)/krieg-referee $(BINDIR)/krieg-bot \
	  $(DESTDIR)$(PREFIX)/bin/
	# The units, man pages and the backup script name the installed paths
	# (PREFIX, SYSCONFDIR: the script's default config was left /etc's).
	sed '$(UNIT_SED)' deploy/kriegd-backup > $(DESTDIR)$(PREFIX)/lib/krieg/kriegd-backup
	chmod 755 $(DESTDIR)$(PREFIX)/lib/krieg/kriegd-backup
	for m in client-cli/krieg.1:man1 client-cli/referee/krieg-referee.1:man1 client-cli/bot/krieg-bot.1:man1 \
	  man/kriegd.conf.5:man5 man/kriegd.8:man8; do f=$${m%:*}; \
	  sed '$(UNIT_SED)' $$f > $(DESTDIR)$(PREFIX)/share/man/$${m#*:}/$$(basename $$f) && \
	  chmod 644 $(DESTDIR)$(PREFIX)/share/man/$${m#*:}/$$(basename $$f) || exit 1; done
	for u in $(UNITS); do \
	  sed '$(UNIT_SED)' systemd/$$u > $(DESTDIR)$(PREFIX)/lib/systemd/system/$$u && \
	  chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/$$u || exit 1; done
	install -m 644 deploy/kriegd.conf.example deploy/BACKUP.md deploy/CLUB.md deploy/BOTS.md proto/PROTOCOL.md \
	  proto/RULESETS.md proto/PGN.md $(DESTDIR)$(PREFIX)/share/doc/krieg/
	# What kriegd.conf(5) and the example point to: the proxy and fail2ban examples.
	install -m 644 deploy/proxy/PROXY.md deploy/proxy/Caddyfile deploy/proxy/nginx-kriegd.conf \
	  $(DESTDIR)$(PREFIX)/share/doc/krieg/proxy/
	install -m 644 deploy/fail2ban/filter.d/kriegd.conf $(DESTDIR)$(PREFIX)/share/doc/krieg/fail2ban/filter.d/
	install -m 644 deploy/fail2ban/jail.d/kriegd.local $(DESTDIR)$(PREFIX)/share/doc/krieg/fail2ban/jail.d/
	# The administrator's settings are never overwritten by an upgrade.
	if [ -e $(DESTDIR)$(SYSCONFDIR)/kriegd/kriegd.conf ]; then \
	  echo "keeping $(DESTDIR)$(SYSCONFDIR)/kriegd/kriegd.conf (the new example: $(PREFIX)/share/doc/krieg/kriegd.conf.example)"; \
	else install -m 644 deploy/kriegd.conf.example $(DESTDIR)$(SYSCONFDIR)/kriegd/kriegd.conf; fi

# Man pages without a groff warning; `make install` into a temporary root
# and the installed binaries run; systemd-analyze verify on every unit;
# deploy/CLUB.md's commands (tests/service/run.sh).
check-service: all
	@for m in $(MANPAGES); do \
	  w=$$(LC_ALL=C.UTF-8 MANWIDTH=80 groff -ww -mandoc -z -Tutf8 $$m 2>&1); \
	  if [ -n "$$w" ]; then echo "$$m:"; echo "$$w"; exit 1; fi; done; echo "man pages: groff -ww clean"
	@tests/service/run.sh $(abspath $(BINDIR)) $(BUILD)
# --- end service ----------------------------------------------------------------

clean:
	rm -rf build bin

# Header dependencies of the tree being built only (build/release,
# build/clang, build/asan and build/tsan each have their own).
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
