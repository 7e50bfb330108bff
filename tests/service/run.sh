#!/usr/bin/env bash
# tests/service/run.sh BINDIR BUILD — the service pieces no C test reaches
# (make check-service):
#   1. `make install DESTDIR=` into a temporary root: the files are there,
#      the installed binaries run, kriegd.conf is installed only when absent;
#   2. `systemd-analyze verify` on every unit (skipped with a notice where
#      the tool is missing);
#   3. kriegd.conf(5) documents every key `kriegd --check-config` prints;
#   4. kriegd-backup keeps the newest N copies (and names a DIR or KRIEGD it
#      cannot use; `kriegd backup` names the file it cannot read);
#   4b. the fail2ban jail bans every port the docs use, its file form in UTC;
#   5. every ```sh block of deploy/CLUB.md (not "```sh remote"), in order, in a temporary root,
#      with stand-ins for apt-get, systemctl, certbot, ufw, git and make
#      (needs root for chown/install -o: skipped with a notice otherwise),
#      then the restore block again (no backup, twice, socket active) and
#      the deploy hook with a key that does not match.
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
         usr/local/share/doc/krieg/RULESETS.md usr/local/share/doc/krieg/PGN.md \
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
# the backup script's default config too (install probe: it kept /etc's)
grep -q "KRIEGD_CONFIG:-$Q/etc/kriegd/kriegd.conf}" "$Q"/lib/krieg/kriegd-backup ||
	fail "installed with SYSCONFDIR=$Q/etc, kriegd-backup's default config is not under it"
if grep -l "/usr/local" "$Q"/lib/krieg/kriegd-backup; then
	fail "installed with PREFIX=$Q, kriegd-backup still names /usr/local"
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
# Regression (the backup probe): the DIR it made took the caller's umask
# (0755 for root), listing the copies' names to every user.
[ "$(stat -c %a "$B/out")" = 700 ] || fail "kriegd-backup made its DIR mode $(stat -c %a "$B/out"), not 700"
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
# deploy probe: DIR a regular file said only mkdir's "File exists"; a
# missing KRIEGD binary ended with the shell's "not found", status 127.
# Both are usage errors now (status 2), named, and nothing is made.
: >"$B/afile"
st=0
KRIEGD="$R/usr/local/bin/kriegd" KRIEGD_CONFIG=/nonexistent KRIEGD_STATE_DIR="$B/state" \
	"$R/usr/local/lib/krieg/kriegd-backup" "$B/afile" >"$B/err" 2>&1 || st=$?
[ $st = 2 ] && grep -q "kriegd-backup: $B/afile is not a directory" "$B/err" ||
	fail "kriegd-backup DIR a file: status $st: $(cat "$B/err")"
for k in "$B/no/such/kriegd" no-such-kriegd-binary; do
	st=0
	KRIEGD=$k KRIEGD_CONFIG=/nonexistent KRIEGD_STATE_DIR="$B/state" \
		"$R/usr/local/lib/krieg/kriegd-backup" "$B/out-nokriegd" >"$B/err" 2>&1 || st=$?
	[ $st = 2 ] && grep -q "kriegd-backup: KRIEGD=$k: .*set KRIEGD to kriegd's path" "$B/err" ||
		fail "kriegd-backup KRIEGD=$k: status $st: $(cat "$B/err")"
	[ ! -e "$B/out-nokriegd" ] || fail "kriegd-backup KRIEGD=$k made its DIR"
done
echo "service: kriegd-backup names a DIR that is a file and a missing KRIEGD (status 2): ok"
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
	# deploy probe: `kriegd backup` as a user who cannot read the database
	# said "no database at ...: Permission denied" (it exists), and with
	# only the -shm unreadable "unable to open database file", naming
	# neither.  The database here is root's; the backup runs as nobody.
	P=$T/perm
	mkdir -p "$P/out"
	cp -a "$B/state" "$P/state"
	chown -R root "$P/state"
	chown nobody "$P/out"
	kb() {
		if runuser -u nobody -- "$R/usr/local/bin/kriegd" --state-dir "$P/state" backup "$P/out/$1" \
			>"$P/err" 2>&1; then fail "kriegd backup as nobody ($1) succeeded"; fi
	}
	chmod 700 "$P/state"
	kb dir.db
	grep -q "kriegd: backup: cannot read the database $P/state/kriegd.db: Permission denied" "$P/err" &&
		! grep -q "no database" "$P/err" || fail "kriegd backup, directory unreadable: $(cat "$P/err")"
	chmod 755 "$P/state"
	chmod 600 "$P/state/kriegd.db"
	kb db.db
	grep -q "kriegd: backup: cannot read the database $P/state/kriegd.db: Permission denied" "$P/err" ||
		fail "kriegd backup, database unreadable: $(cat "$P/err")"
	# A daemon has it open (the -wal and -shm exist); all readable but the -shm.
	"$R/usr/local/bin/kriegd" --state-dir "$P/state" --listen 127.0.0.1:0 >"$P/log" 2>&1 &
	echo $! >"$T/kriegd.pid"
	for _ in $(seq 500); do grep -q "kriegd: ready" "$P/log" && break; sleep 0.02; done
	[ -e "$P/state/kriegd.db-shm" ] || fail "no -shm beside a running daemon's database: $(cat "$P/log")"
	chmod 644 "$P/state/kriegd.db" "$P/state/kriegd.db-wal"
	chmod 600 "$P/state/kriegd.db-shm"
	kb shm.db
	grep -q "kriegd: backup: cannot read $P/state/kriegd.db-shm: Permission denied" "$P/err" ||
		fail "kriegd backup, -shm unreadable: $(cat "$P/err")"
	chmod 644 "$P/state/kriegd.db-shm"
	runuser -u nobody -- "$R/usr/local/bin/kriegd" --state-dir "$P/state" backup "$P/out/all.db" \
		>"$P/err" 2>&1 || fail "kriegd backup as nobody, all readable: $(cat "$P/err")"
	kill "$(cat "$T/kriegd.pid")"
	wait "$(cat "$T/kriegd.pid")" || true
	: >"$T/kriegd.pid"
	echo "service: kriegd backup names the file it cannot read: ok"
fi

# ---- 4b. the fail2ban jail (deploy probe) ----
# It banned port 7474 only, while the filter matches failures through the
# web door (listen_web 7480, a proxy on 443, kriegd.socket moved to 443);
# and its file form had no time zone for kriegd's UTC times ("...Z"), so
# on a machine not on UTC every failure was read hours off and ignored.
jail=$repo/deploy/fail2ban/jail.d/kriegd.local
ports=$(sed -n 's/^port *= *//p' "$jail")
for port in 7474 7480 443; do
	case ",$ports," in *",$port,"*) ;; *) fail "fail2ban jail: port $port not banned (port = $ports)" ;; esac
done
grep -q '^#logpath' "$jail" && grep -q '^#logtimezone = UTC$' "$jail" ||
	fail "fail2ban jail: the file form has no logtimezone = UTC"
grep -q '^datepattern = {^LN-BEG}%%Y-%%m-%%dT%%H:%%M:%%S$' "$repo/deploy/fail2ban/filter.d/kriegd.conf" ||
	fail "fail2ban filter: datepattern changed; check the jail's logtimezone still applies"
echo "service: fail2ban jail bans kriegd's ports, file form in UTC: ok"

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
# Every call is logged (the restore's order is checked); kriegd.socket
# and the timer are only marked active or not.
echo "\$*" >>"$C/systemctl.log"
now=0
[ "\${1:-}" = enable ] && [ "\${2:-}" = --now ] && { now=1; shift; }
verb=\$1; shift
[ \$now = 1 ] && verb=start
[ "\$verb" = is-active ] && [ "\${1:-}" = --quiet ] && shift
[ \$# -gt 0 ] || set -- ""
for unit in "\$@"; do
case "\$verb \$unit" in
"daemon-reload "|"enable "*) ;;
"is-active kriegd.socket"|"is-active kriegd-backup.timer") [ -e "$C/active.\$unit" ] || exit 3 ;;
"start kriegd.socket") : >"$C/active.\$unit" ;;
"stop kriegd.socket"|"stop kriegd-backup.timer") rm -f "$C/active.\$unit" ;;
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
"start kriegd-backup") backup ;;
"start kriegd-backup.timer") : >"$C/active.\$unit"; backup ;;
*) echo "systemctl stand-in: '\$verb \$unit' not emulated" >&2; exit 1 ;;
esac
done
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
[ "$(grep -c "reloaded sha256=" "$LOG")" -ge 1 ] || fail "CLUB.md: no reload"
[ "$(ls "$R/var/lib/kriegd-backups" | wc -l)" -ge 3 ] || fail "CLUB.md: backups missing"
aside=$(ls -d "$R"/var/lib/kriegd/before-restore-*Z 2>/dev/null || true)
[ "$(echo "$aside" | wc -l)" = 1 ] && [ -e "$aside/kriegd.db" ] ||
	fail "CLUB.md: restore did not move the db aside into one dated folder: $aside"
# deploy probe: the restore stops kriegd.socket (a connection to it started
# kriegd, which made a new empty database while the backup was copied in)
# and the timer before kriegd, and starts the timer, active since step 5,
# again after kriegd.
grep -n "" "$C/systemctl.log" >"$C/calls"
stopline=$(grep -m1 ":stop kriegd.socket kriegd-backup.timer kriegd$" "$C/calls" | cut -d: -f1 || true)
[ -n "$stopline" ] || fail "CLUB.md: the restore does not stop the socket and the timer with kriegd: $(cat "$C/calls")"
tail -n +"$stopline" "$C/calls" | grep -A1 ":start kriegd$" | grep -q ":start kriegd-backup.timer$" ||
	fail "CLUB.md: the restore did not start the timer again after kriegd: $(cat "$C/calls")"
# The restore block alone, as the walkthrough runs it.
awk '/^## 6\. Restore/ { s = 1 } s && /^```sh$/ { on = 1; next } on && /^```/ { exit } on' \
	"$repo/deploy/CLUB.md" | sed -E "s#(/etc/kriegd|/etc/letsencrypt|/var/lib/kriegd|/usr/local)#$R\\1#g" \
	>"$C/restore.sh"
grep -q "before-restore" "$C/restore.sh" || fail "no restore block in deploy/CLUB.md"
restore() { ( cd "$C" && PATH="$S:$R/usr/local/bin:$PATH" bash "$C/restore.sh" ) >"$C/rout" 2>&1; }
# deploy probe: with no backup it went on (`cp` of nothing) and kriegd
# started on a new empty database: now it stops before changing anything.
mv "$R/var/lib/kriegd-backups" "$C/backups-saved"
mkdir -m 700 "$R/var/lib/kriegd-backups"
calls=$(wc -l <"$C/systemctl.log")
if restore; then fail "CLUB.md: the restore went on without a backup: $(cat "$C/rout")"; fi
grep -q "restore: no backup" "$C/rout" || fail "CLUB.md: restore without a backup: $(cat "$C/rout")"
[ -s "$R/var/lib/kriegd/kriegd.db" ] && [ "$(ls -d "$R"/var/lib/kriegd/before-restore-*Z)" = "$aside" ] ||
	fail "CLUB.md: the restore without a backup moved the database"
tail -n +"$((calls + 1))" "$C/systemctl.log" | grep -q "^stop" &&
	fail "CLUB.md: the restore without a backup stopped something"
PATH="$S:$PATH" systemctl status kriegd >/dev/null || fail "CLUB.md: restore without a backup stopped kriegd"
rmdir "$R/var/lib/kriegd-backups"
mv "$C/backups-saved" "$R/var/lib/kriegd-backups"
# backup probe: a newest copy cut short was put in place of the database,
# and kriegd then refused to start: the copy is checked before anything.
newest=$(ls "$R/var/lib/kriegd-backups" | sort | tail -n 1)
cut="$R/var/lib/kriegd-backups/kriegd-99991231T235959Z.db"
head -c "$(( $(stat -c %s "$R/var/lib/kriegd-backups/$newest") / 2 ))" "$R/var/lib/kriegd-backups/$newest" >"$cut"
calls=$(wc -l <"$C/systemctl.log")
if restore; then fail "CLUB.md: the restore put a cut-short copy in place: $(cat "$C/rout")"; fi
grep -q "restore: .*kriegd-99991231T235959Z.db fails the check" "$C/rout" && grep -q "the database is damaged" "$C/rout" ||
	fail "CLUB.md: restore of a cut-short copy: $(cat "$C/rout")"
[ "$(ls -d "$R"/var/lib/kriegd/before-restore-*Z)" = "$aside" ] ||
	fail "CLUB.md: the restore of a cut-short copy moved the database"
tail -n +"$((calls + 1))" "$C/systemctl.log" | grep -q "^stop" &&
	fail "CLUB.md: the restore of a cut-short copy stopped something"
rm "$cut"
# deploy probe: a second restore overwrote the only copy from before the
# first (one "before-restore" folder); and with kriegd.socket active, it is
# started again before kriegd (which is handed it).
sleep 1   # a new second, a new folder
: >"$C/active.kriegd.socket"
calls=$(wc -l <"$C/systemctl.log")
restore || fail "CLUB.md: second restore: $(cat "$C/rout")"
[ "$(ls -d "$R"/var/lib/kriegd/before-restore-*Z | wc -l)" = 2 ] && [ -e "$aside/kriegd.db" ] ||
	fail "CLUB.md: a second restore did not keep the first's folder: $(ls "$R/var/lib/kriegd")"
{ tail -n +"$((calls + 1))" "$C/systemctl.log" | grep -E "^(start|stop)" || true; } | tr '\n' '|' >"$C/seq"
[ "$(cat "$C/seq")" = "stop kriegd.socket kriegd-backup.timer kriegd|start kriegd.socket|start kriegd|start kriegd-backup.timer|" ] ||
	fail "CLUB.md: the restore's stops and starts with the socket active: $(cat "$C/seq")"
PATH="$S:$PATH" systemctl status kriegd >/dev/null || fail "CLUB.md: kriegd is not running after the second restore"
echo "service: CLUB.md restore: stops without a backup, socket and timer, a dated folder each: ok"
# deploy probe: the deploy hook reloaded before the settings were checked;
# now a pair that does not load stops it before the pair is moved in or
# kriegd reloaded.
live=$R/etc/letsencrypt/live/krieg.example.org
cp "$live/privkey.pem" "$C/privkey.saved"
cp "$R/var/lib/kriegd/tls/privkey.pem" "$C/tls-privkey.before"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$live/privkey.pem" 2>/dev/null
reloads=$(grep -c "reloaded sha256=\|reload failed" "$LOG" || true)
if PATH="$S:$PATH" "$R/etc/letsencrypt/renewal-hooks/deploy/kriegd" >"$C/hook" 2>&1; then
	fail "CLUB.md: the deploy hook took a key that does not match its certificate"
fi
grep -q "does not match the certificate of cert" "$C/hook" || fail "CLUB.md: the deploy hook's failure: $(cat "$C/hook")"
cmp -s "$C/tls-privkey.before" "$R/var/lib/kriegd/tls/privkey.pem" ||
	fail "CLUB.md: the deploy hook moved a pair that does not load into place"
[ "$(grep -c "reloaded sha256=\|reload failed" "$LOG" || true)" = "$reloads" ] ||
	fail "CLUB.md: the deploy hook reloaded kriegd with a pair that does not load"
cp "$C/privkey.saved" "$live/privkey.pem"
echo "service: CLUB.md deploy hook checks before it reloads: ok"
PATH="$S:$PATH" systemctl status kriegd >/dev/null || fail "CLUB.md: kriegd is not running at the end"
PATH="$S:$PATH" systemctl stop kriegd
grep -q "kriegd: stopped" "$LOG" || fail "CLUB.md: kriegd did not stop cleanly"
echo "service: deploy/CLUB.md walkthrough: ok"
echo "service: passed"
