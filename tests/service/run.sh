#!/usr/bin/env bash
# tests/service/run.sh BINDIR BUILD — the service pieces no C test reaches
# (make check-service):
#   1. `make install DESTDIR=` into a temporary root: the files are there,
#      the installed binaries run, kriegd.conf is installed only when absent;
#   2. `systemd-analyze verify` on every unit (skipped with a notice where
#      the tool is missing);
#   3. kriegd.conf(5) documents every key `kriegd --check-config` prints;
#   4. kriegd-backup keeps the newest N copies;
#   5. every ```sh block of deploy/CLUB.md (not "```sh remote"), in order, in a temporary root,
#      with stand-ins for apt-get, systemctl, certbot, ufw, git and make
#      (needs root for chown/install -o: skipped with a notice otherwise).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bindir=${1:?usage: run.sh BINDIR BUILD}
build=${2:?usage: run.sh BINDIR BUILD}
T=$(mktemp -d "${TMPDIR:-/tmp}/krieg-service-XXXXXX")
cleanup() {
	if [ -s "$T/kriegd.pid" ]; then kill "$(cat "$T/kriegd.pid")" 2>/dev/null || true; fi
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "service: FAIL: $*" >&2; exit 1; }
minstall() { make -s --no-print-directory -C "$repo" install BINDIR="$bindir" BUILD="$build" "$@"; }

# ---- 1. make install DESTDIR=... ----
R=$T/root
minstall DESTDIR="$R" >/dev/null
for f in usr/local/bin/kriegd usr/local/bin/krieg usr/local/bin/krieg-referee usr/local/bin/krieg-bot \
         usr/local/share/doc/krieg/proxy/PROXY.md usr/local/share/doc/krieg/fail2ban/filter.d/kriegd.conf \
         usr/local/share/doc/krieg/fail2ban/jail.d/kriegd.local \
         usr/local/lib/krieg/kriegd-backup usr/local/share/man/man8/kriegd.8 \
         usr/local/share/man/man5/kriegd.conf.5 usr/local/share/man/man1/krieg-referee.1 \
         usr/local/share/man/man1/krieg.1 usr/local/share/man/man1/krieg-bot.1 usr/local/share/doc/krieg/CLUB.md \
         usr/local/lib/systemd/system/kriegd.service usr/local/lib/systemd/system/kriegd.socket \
         usr/local/lib/systemd/system/kriegd-backup.service \
         usr/local/lib/systemd/system/kriegd-backup.timer etc/kriegd/kriegd.conf; do
	[ -e "$R/$f" ] || fail "make install did not install /$f"
done
[ "$("$R/usr/local/bin/kriegd" --version)" = "kriegd $(sed -n 's/^#define KRIEG_RELEASE "\(.*\)".*/\1/p' "$repo/proto/proto.h") (protocol 1)" ] ||
	fail "installed kriegd --version"
"$R/usr/local/bin/kriegd" --check-config --config "$R/etc/kriegd/kriegd.conf" >"$T/eff" ||
	fail "the installed kriegd.conf does not pass --check-config"
"$R/usr/local/bin/krieg-referee" perft 1 | grep -q 20 || fail "installed krieg-referee perft 1"
"$R/usr/local/bin/krieg" --help >/dev/null 2>&1 || fail "installed krieg --help"
echo "# the administrator's line" >>"$R/etc/kriegd/kriegd.conf"
minstall DESTDIR="$R" >/dev/null
grep -q "the administrator's line" "$R/etc/kriegd/kriegd.conf" ||
	fail "make install overwrote an existing kriegd.conf"
echo "service: make install DESTDIR: ok"

# ---- 2. systemd-analyze verify ----
if command -v systemd-analyze >/dev/null; then
	# Installed with a PREFIX that exists, so every ExecStart= and man page
	# the units name can be checked.
	P=$T/p
	minstall PREFIX="$P" SYSCONFDIR="$P/etc" >/dev/null
	MANPATH=$P/share/man systemd-analyze verify "$P"/lib/systemd/system/kriegd.service \
		"$P"/lib/systemd/system/kriegd.socket "$P"/lib/systemd/system/kriegd-backup.service \
		"$P"/lib/systemd/system/kriegd-backup.timer >"$T/verify" 2>&1 ||
		{ cat "$T/verify"; fail "systemd-analyze verify"; }
	if [ -s "$T/verify" ]; then cat "$T/verify"; fail "systemd-analyze verify warned"; fi
	echo "service: systemd-analyze verify: ok"
else
	echo "service: NOTICE: systemd-analyze not found; unit files not verified"
fi

# ---- 2b. the installed man pages and units name the installed files ----
# (Before, the man pages kept /usr/local/share/doc/... whatever PREFIX was.)
Q=$T/q
minstall PREFIX="$Q" SYSCONFDIR="$Q/etc" >/dev/null
named=$(cat "$Q"/share/man/man*/* "$Q"/lib/systemd/system/* | grep -oE "$Q/share/doc/[A-Za-z0-9_./-]*[A-Za-z0-9_]" | sort -u)
[ -n "$named" ] || fail "the installed man pages name no documentation under PREFIX"
for f in $named; do [ -e "$f" ] || fail "installed man pages or units name $f, which is not installed"; done
if grep -l "/usr/local" "$Q"/share/man/man*/* "$Q"/lib/systemd/system/*; then
	fail "installed with PREFIX=$Q, a man page or unit still names /usr/local"
fi
echo "service: installed man pages and units name the installed files: ok"

# ---- 3. every key in kriegd.conf(5) ----
sed -E -n 's/^#? ?([a-z_]+)[ :=].*/\1/p' "$T/eff" | sort -u | while read -r k; do
	grep -q "^\.BI $k " "$repo/man/kriegd.conf.5" || fail "kriegd.conf.5 does not document '$k'"
done
echo "service: kriegd.conf(5) documents every key: ok"
# ... and kriegd --help every verb and flag of `kriegd user` (its usage line, exit 2)
kd=$R/usr/local/bin/kriegd
usage=$("$kd" --state-dir "$T/nostate" user 2>&1 || [ $? = 2 ]) || fail "kriegd user: not a usage error"
help=$("$kd" --help 2>&1)
for w in $(grep -oE -- '--[a-z-]+|(\| |user )[a-z]+' <<<"$usage" | sed -E 's/^(\| |user )//'); do
	grep -qe "$w" <<<"$help" || fail "kriegd --help does not name '$w' of: $usage"
done
echo "service: kriegd --help names every word of kriegd user's usage: ok"

# ---- 4. kriegd-backup keeps N ----
B=$T/backup
mkdir -p "$B/state"
# `user list` finds no database yet (it makes none); `user add` makes it.
"$R/usr/local/bin/kriegd" --state-dir "$B/state" user list >/dev/null 2>&1 &&
	fail "kriegd user list: no error without a database"
[ ! -e "$B/state/kriegd.db" ] || fail "kriegd user list made a database"
echo "backup-pass-1" | "$R/usr/local/bin/kriegd" --state-dir "$B/state" user add keeper \
	--password-stdin >/dev/null || fail "kriegd user add keeper"
for i in 1 2 3; do
	KRIEGD="$R/usr/local/bin/kriegd" KRIEGD_CONFIG=/nonexistent KRIEGD_STATE_DIR="$B/state" \
		KRIEGD_BACKUP_KEEP=2 "$R/usr/local/lib/krieg/kriegd-backup" "$B/out" >/dev/null 2>&1 ||
		fail "kriegd-backup run $i"
done
[ "$(ls "$B/out" | wc -l)" = 2 ] || fail "kriegd-backup KEEP=2 left $(ls "$B/out" | wc -l) copies"
echo "service: kriegd-backup keeps N: ok"
# Regressions (operations probe): KEEP=010 kept 8 (octal), 08 rotated
# nothing and exited 0; runs started together all failed, removing each
# other's temporary files; a killed run's FILE.tmp stayed, and sorted
# last: the restore took it.
for k in 010 08 0; do
	if KRIEGD="$R/usr/local/bin/kriegd" KRIEGD_CONFIG=/nonexistent KRIEGD_STATE_DIR="$B/state" \
		KRIEGD_BACKUP_KEEP=$k "$R/usr/local/lib/krieg/kriegd-backup" "$B/out" >/dev/null 2>&1; then
		fail "kriegd-backup took KRIEGD_BACKUP_KEEP=$k"
	fi
done
: >"$B/out/kriegd-29991231T235959Z.db.tmp"
: >"$B/out/kriegd-29991231T235959Z.db.tmp-journal"
pids=
for i in 1 2 3; do
	KRIEGD="$R/usr/local/bin/kriegd" KRIEGD_CONFIG=/nonexistent KRIEGD_STATE_DIR="$B/state" \
		KRIEGD_BACKUP_KEEP=10 "$R/usr/local/lib/krieg/kriegd-backup" "$B/out" >"$B/run$i" 2>&1 &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "kriegd-backup run together with others: $(cat "$B"/run*)"; done
[ "$(ls "$B/out" | grep -cE '^kriegd-[0-9]{8}T[0-9]{6}Z\.db$')" = 5 ] ||
	fail "kriegd-backup runs together: $(ls "$B/out")"
if ls "$B/out" | grep -q tmp; then fail "kriegd-backup left temporary files: $(ls "$B/out")"; fi
echo "service: kriegd-backup runs take turns, leftovers removed, KEEP checked: ok"
# Regression (probe of the change above): its lock file, made by a run as
# root, could not be opened by the service's own user: every later run
# failed.  A run by hand as root, then one as the directory's owner.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1; then
	O=$T/owned
	mkdir -p "$O"
	cp -a "$B/state" "$O/state"
	mkdir -p "$O/out"
	chown -R nobody "$O"
	chmod 0755 "$T"
	KRIEGD="$R/usr/local/bin/kriegd" KRIEGD_CONFIG=/nonexistent KRIEGD_STATE_DIR="$O/state" \
		"$R/usr/local/lib/krieg/kriegd-backup" "$O/out" >"$O/root.log" 2>&1 || fail "kriegd-backup as root: $(cat "$O/root.log")"
	sleep 1   # a new name for the next run
	runuser -u nobody -- env KRIEGD="$R/usr/local/bin/kriegd" KRIEGD_CONFIG=/nonexistent \
		KRIEGD_STATE_DIR="$O/state" "$R/usr/local/lib/krieg/kriegd-backup" "$O/out" >"$O/user.log" 2>&1 ||
		fail "kriegd-backup as the directory's owner after a run as root: $(cat "$O/user.log")"
	echo "service: kriegd-backup as root, then as the service's user: ok"
fi

# ---- 5. deploy/CLUB.md ----
if [ "$(id -u)" != 0 ]; then
	echo "service: NOTICE: not root; deploy/CLUB.md walkthrough not run"
	echo "service: passed"
	exit 0
fi
C=$T/club
R=$C/root
S=$C/stubs
mkdir -p "$R" "$S"
LOG=$C/kriegd.log
: >"$LOG"
# Stand-ins: each does to the temporary root what the real command does to a machine.
cat >"$S/apt-get" <<'STUB'
#!/bin/sh
echo "(apt-get $*)"
STUB
cat >"$S/ufw" <<'STUB'
#!/bin/sh
echo "(ufw $*)"
STUB
cat >"$S/git" <<'STUB'
#!/bin/sh
case $1 in clone) mkdir -p "$3" ;; esac
echo "(git $*)"
STUB
realmake=$(command -v make)
cat >"$S/make" <<STUB
#!/bin/sh
# The tree under test is built already; install installs it into the root.
case " \$* " in
*" install "*) exec "$realmake" -s --no-print-directory -C "$repo" install BINDIR="$bindir" BUILD="$build" DESTDIR="$R" ;;
*) echo "(make \$*)" ;;
esac
STUB
cat >"$S/certbot" <<STUB
#!/bin/sh
# certbot certonly --standalone -d NAME: a self-signed pair where certbot puts its.
name=
while [ \$# -gt 0 ]; do [ "\$1" = -d ] && name=\$2; shift; done
d="$R/etc/letsencrypt/live/\$name"
mkdir -p "\$d"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj "/CN=\$name" -keyout "\$d/privkey.pem" -out "\$d/fullchain.pem" 2>/dev/null
chmod 600 "\$d/privkey.pem"
STUB
cat >"$S/systemctl" <<STUB
#!/bin/bash
# The units' effect on the temporary root (ExecStart=, ExecReload=, ...).
set -eu
pidf="$C/kriegd.pid"
log="$LOG"
count() { grep -c -- "\$1" "\$log" || true; }
waitfor() {  # waitfor NEEDLE BEFORE
	for _ in \$(seq 500); do [ "\$(count "\$1")" -gt "\$2" ] && return 0; sleep 0.02; done
	echo "systemctl stand-in: no '\$1' in the log" >&2; cat "\$log" >&2; exit 1
}
running() { [ -s "\$pidf" ] && kill -0 "\$(cat "\$pidf")" 2>/dev/null; }
start() {
	running && return 0
	set -- --state-dir "$R/var/lib/kriegd" --listen 127.0.0.1:0
	[ -e "$R/etc/kriegd/kriegd.conf" ] && set -- --config "$R/etc/kriegd/kriegd.conf" "\$@"
	local n; n=\$(count "kriegd: ready")
	"$R/usr/local/bin/kriegd" "\$@" </dev/null >>"\$log" 2>&1 &
	echo \$! >"\$pidf"
	waitfor "kriegd: ready" "\$n"
}
stop() {
	running || return 0
	local p; p=\$(cat "\$pidf"); kill -TERM "\$p"
	for _ in \$(seq 1000); do kill -0 "\$p" 2>/dev/null || break; sleep 0.02; done
	: >"\$pidf"
}
backup() {
	KRIEGD="$R/usr/local/bin/kriegd" KRIEGD_CONFIG="$R/etc/kriegd/kriegd.conf" \
	KRIEGD_STATE_DIR="$R/var/lib/kriegd" KRIEGD_BACKUP_KEEP=14 \
		"$R/usr/local/lib/krieg/kriegd-backup" "$R/var/lib/kriegd-backups"
}
now=0
[ "\${1:-}" = enable ] && [ "\${2:-}" = --now ] && { now=1; shift; }
verb=\$1; unit=\${2:-}
[ \$now = 1 ] && verb=start
case "\$verb \$unit" in
"daemon-reload "|"enable "*) ;;
"start kriegd"|"start kriegd.service") start ;;
"stop kriegd") stop ;;
"restart kriegd") stop; start ;;
"reload kriegd")
	running || { echo "kriegd is not running" >&2; exit 1; }
	n=\$(count "reloaded sha256=\|reload failed"); f=\$(count "reload failed")
	kill -HUP "\$(cat "\$pidf")"
	waitfor "reloaded sha256=\|reload failed" "\$n"
	if [ "\$(count "reload failed")" -gt "\$f" ]; then echo "reload failed" >&2; exit 1; fi ;;
"status kriegd") running || { echo "kriegd is not running" >&2; exit 3; }; echo "kriegd running" ;;
"start kriegd-backup"|"start kriegd-backup.timer") backup ;;
*) echo "systemctl stand-in: '\$*' not emulated" >&2; exit 1 ;;
esac
STUB
cat >"$S/journalctl" <<STUB
#!/bin/sh
cat "$LOG"
STUB
chmod 755 "$S"/*
# The walkthrough's paths, moved into the root (one pass, so nothing moves twice).
awk '/^```sh$/ { on = 1; next } /^```/ { on = 0; next } on' "$repo/deploy/CLUB.md" |
	sed -E "s#(/etc/kriegd|/etc/letsencrypt|/var/lib/kriegd|/usr/local)#$R\\1#g" >"$C/club.sh"
[ -s "$C/club.sh" ] || fail "no sh blocks in deploy/CLUB.md"
mkdir -p "$R/var/lib/kriegd"
chmod 700 "$R/var/lib/kriegd"
( cd "$C" && PATH="$S:$R/usr/local/bin:$PATH" bash -euo pipefail "$C/club.sh" ) >"$C/out" 2>&1 ||
	{ cat "$C/out"; echo "--- kriegd log"; cat "$LOG"; fail "deploy/CLUB.md walkthrough"; }
# What the walkthrough promised.
grep -q "alice" "$C/out" || fail "CLUB.md: the admin is not listed"
grep -q "certificate cert=$R/var/lib/kriegd/tls/fullchain.pem" "$LOG" ||
	fail "CLUB.md: kriegd never loaded the certbot certificate"
[ "$(grep -c "reloaded sha256=" "$LOG")" -ge 2 ] || fail "CLUB.md: no reload"
[ "$(ls "$R/var/lib/kriegd-backups" | wc -l)" -ge 3 ] || fail "CLUB.md: backups missing"
[ -e "$R/var/lib/kriegd/before-restore/kriegd.db" ] || fail "CLUB.md: restore did not move the db aside"
PATH="$S:$PATH" systemctl status kriegd >/dev/null || fail "CLUB.md: kriegd is not running at the end"
PATH="$S:$PATH" systemctl stop kriegd
grep -q "kriegd: stopped" "$LOG" || fail "CLUB.md: kriegd did not stop cleanly"
echo "service: deploy/CLUB.md walkthrough: ok"
echo "service: passed"
