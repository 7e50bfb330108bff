# krieg — one Makefile for the whole tree.
#
#   make            build bin/kriegd, bin/krieg, bin/krieg-referee
#   make deps       install the Debian packages the build needs (only if missing)
#   make run        build and run kriegd with embedded defaults (state under ./var)
#   make check      build everything with ASan+UBSan and run the unit and integration tests
#   make bench      perft against Stockfish and other benchmarks
#   make install    install binaries, man page and systemd unit under $(PREFIX)
#   make clean

PREFIX  ?= /usr/local
BUILD   ?= build/release
BINDIR  ?= bin
CC      ?= cc

PKGS     = libevent libevent_openssl openssl jansson sqlite3
TESTPKGS = check
DEBS     = build-essential pkg-config libevent-dev libssl-dev libjansson-dev \
           libsqlite3-dev check libedit-dev

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

CORE_LIBS   = -lm
PROTO_LIBS  = $(call pkglibs,jansson)
SERVER_LIBS = $(call pkglibs,libevent libevent_openssl libevent_pthreads openssl sqlite3 jansson) -lpthread
CLIENT_LIBS = $(call pkglibs,libevent libevent_openssl openssl jansson) -ledit

.PHONY: all deps run check check-build unit integration bench bench-build install clean
# Keep the objects of pattern-built test binaries (make would delete them as intermediates).
.SECONDARY:
all: $(BINDIR)/kriegd $(BINDIR)/krieg $(BINDIR)/krieg-referee

# --- dependencies ---------------------------------------------------------
# Installs only what pkg-config cannot find, so a prepared machine runs nothing.
deps:
	@if pkg-config --exists $(PKGS) $(TESTPKGS) libedit && command -v cc >/dev/null; then :; \
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
TEST_INC    = $(PROTO_INC) -Iserver -Iclient-cli/krieg -Itests

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
$(LIBSERVER): $(call obj,$(SERVER_SRC))
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

# --- tests ------------------------------------------------------------------
# One Check binary per test file; each links every library (the archives
# contribute only the objects it uses).
TEST_LIBS = $(LIBSERVER) $(LIBCLIENT) $(LIBPROTO) $(LIBCORE)
TEST_LDLIBS = $(SERVER_LIBS) -ledit $(call pkglibs,check) $(CORE_LIBS)
# Unit and integration binaries live in separate folders: the same name
# (test_auth) may exist in both.
UNIT_BINS  = $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
INTEG_BINS = $(patsubst tests/integration/%.c,$(BUILD)/tests/integration/%,$(INTEG_SRC))

$(BUILD)/tests/unit/test_%: $(BUILD)/obj/tests/unit/test_%.o $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)
$(INTEG_BINS): $(BUILD)/tests/integration/%: $(BUILD)/obj/tests/integration/%.o $(call obj,$(HARNESS_SRC)) $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)

# The sanitized tree lives apart from the release one so both can coexist.
ASAN_VARS = BUILD=build/asan BINDIR=build/asan/bin OPT=-O1 \
            SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# gcc builds the release tree and its tests (-O2 finds warnings -O1 does
# not); clang (when present) must compile the same sources cleanly; the
# tests then run from the sanitized tree.
check: deps
	$(MAKE) check-build
	if command -v clang >/dev/null; then \
	  $(MAKE) CC=clang BUILD=build/clang BINDIR=build/clang/bin check-build; fi
	$(MAKE) $(ASAN_VARS) check-build
	$(MAKE) -k $(ASAN_VARS) unit integration
	$(MAKE) $(TSAN_VARS) build/tsan/bin/kriegd
	KRIEGD=$(abspath build/tsan/bin/kriegd) tests/run-tests.sh tsan \
	  $(addprefix build/asan/tests/integration/,$(THREAD_TESTS))

# The daemon's threads (store writer, password hashing) under ThreadSanitizer:
# the integration tests that drive them run against a TSan-built kriegd.
TSAN_VARS = BUILD=build/tsan BINDIR=build/tsan/bin OPT=-O1 \
            SANFLAGS="-fsanitize=thread -fno-omit-frame-pointer"
THREAD_TESTS = test_accounts test_batch test_timing

check-build: all $(UNIT_BINS) $(INTEG_BINS)

unit: $(UNIT_BINS)
	@tests/run-tests.sh unit $(UNIT_BINS)

integration: $(INTEG_BINS) all
	@KRIEGD=$(abspath $(BINDIR)/kriegd) KRIEG=$(abspath $(BINDIR)/krieg) \
	 KRIEG_REFEREE=$(abspath $(BINDIR)/krieg-referee) \
	 tests/run-tests.sh integration $(INTEG_BINS)

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

# Benchmark programs: tests/bench/*.c, each linked like a test.
BENCH_BINS = $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(wildcard tests/bench/*.c))
bench-build: $(BENCH_BINS)
$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LDLIBS)

run: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p var
	@echo "kriegd: state in ./var; connect with: bin/krieg localhost   (pins the development certificate on first use)"
	@echo "        or: openssl s_client -quiet -connect localhost:7474"
	exec $(BINDIR)/kriegd --state-dir var

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BINDIR)/kriegd $(BINDIR)/krieg $(BINDIR)/krieg-referee $(DESTDIR)$(PREFIX)/bin/
	install -m 644 client-cli/krieg.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)$(PREFIX)/share/doc/krieg
	sed 's|/usr/local/bin|$(PREFIX)/bin|g' systemd/kriegd.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/kriegd.service
	install -m 644 deploy/kriegd.conf.example deploy/BACKUP.md $(DESTDIR)$(PREFIX)/share/doc/krieg/

clean:
	rm -rf build bin

# Header dependencies of the tree being built only (build/release,
# build/clang, build/asan and build/tsan each have their own).
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
