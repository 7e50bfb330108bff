#!/usr/bin/env bash
# tests/browser/proxy.sh KRIEGD — deploy/proxy/nginx-kriegd.conf, tested:
# a kriegd with the plain listener and trusted proxy its header names, the
# example site (certificate paths and ports rewritten) checked by `nginx -t`
# and run by an unprivileged nginx, then through it: the page (200, the
# CSP intact), and a WebSocket upgrade that reaches kriegd with the
# client's address, a client's own X-Forwarded-For dropped by the proxy.
# Without nginx (Debian's nginx-light, make browser-deps) it says so and
# fails, as the browser tests do without chromium.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
kriegd=${1:?usage: proxy.sh KRIEGD}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$NGINX" ] || { echo "proxy: nginx is missing (apt-get install nginx-light); the proxy example is untested" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/krieg-proxy-XXXXXX")
cleanup() {
	[ -s "$T/nginx.pid" ] && kill "$(cat "$T/nginx.pid")" 2>/dev/null || true
	[ -n "${kpid:-}" ] && kill "$kpid" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "proxy: FAIL: $*" >&2; echo "--- kriegd log:" >&2; cat "$T/kriegd.log" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# kriegd with exactly the settings the example's header gives, on free ports.
plain=$(free_port); front=$(free_port)
settings=$(sed -n 's/^#     \(listen_web_plain\|web_trusted_proxy\) = \(.*\)$/\1=\2/p' \
	"$repo/deploy/proxy/nginx-kriegd.conf" | sed "s/:7481$/:$plain/")
[ "$(echo "$settings" | wc -l)" = 2 ] || fail "the example's header does not name kriegd's two settings"
args=()
for s in $settings; do args+=(--set "$s"); done
"$kriegd" --state-dir "$T/s" --listen 127.0.0.1:0 "${args[@]}" >"$T/kriegd.log" 2>&1 &
kpid=$!
for _ in $(seq 100); do grep -q "listening on 127.0.0.1:$plain" "$T/kriegd.log" && break; sleep 0.1; done
grep -q "listening on 127.0.0.1:$plain" "$T/kriegd.log" || fail "kriegd did not open its plain listener"

# The example site, its certificate kriegd's development one, on a free port.
sed -e "s|/etc/letsencrypt/live/krieg.example.org/fullchain.pem|$T/s/kriegd-cert.pem|" \
    -e "s|/etc/letsencrypt/live/krieg.example.org/privkey.pem|$T/s/kriegd-key.pem|" \
    -e "s|listen 443 ssl;|listen 127.0.0.1:$front ssl;|" -e "/listen \[::\]:443 ssl;/d" \
    -e "s|127.0.0.1:7481|127.0.0.1:$plain|" "$repo/deploy/proxy/nginx-kriegd.conf" >"$T/site.conf"
cat >"$T/nginx.conf" <<CONF
daemon on;
pid $T/nginx.pid;
error_log $T/nginx-error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $T/tmp; proxy_temp_path $T/tmp; fastcgi_temp_path $T/tmp;
    uwsgi_temp_path $T/tmp; scgi_temp_path $T/tmp;
    include $T/site.conf;
}
CONF
mkdir -p "$T/tmp"
"$NGINX" -t -q -p "$T" -c "$T/nginx.conf" 2>"$T/nginx-t.log" || { cat "$T/nginx-t.log"; fail "nginx -t refused the example"; }
"$NGINX" -p "$T" -c "$T/nginx.conf" 2>>"$T/nginx-t.log" || { cat "$T/nginx-t.log"; fail "nginx did not start"; }
for _ in $(seq 50); do [ -s "$T/nginx.pid" ] && break; sleep 0.1; done

url="https://krieg.example.org:$front"
res=(--resolve "krieg.example.org:$front:127.0.0.1" -k -s --max-time 5)
# The page, with kriegd's headers intact.
curl "${res[@]}" -D "$T/h1" -o "$T/index.html" "$url/" || fail "GET / through nginx"
grep -q "^HTTP/1.1 200" "$T/h1" || { cat "$T/h1"; fail "GET / through nginx was not 200"; }
grep -qi "^content-security-policy: default-src 'none'" "$T/h1" || fail "the CSP did not pass the proxy"
grep -q '<script type="module" src="/app.js">' "$T/index.html" || fail "not the web client's page"
# The upgrade, from the page's own origin, with a spoofed X-Forwarded-For
# that the proxy must replace: kriegd sees the client (127.0.0.1) via the proxy.
curl "${res[@]}" -D "$T/h2" -o "$T/ws" --max-time 3 \
	-H "Origin: https://krieg.example.org" -H "Upgrade: websocket" -H "Connection: Upgrade" \
	-H "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" -H "Sec-WebSocket-Version: 13" \
	-H "X-Forwarded-For: 203.0.113.66" "$url/ws" || true
grep -q "^HTTP/1.1 101" "$T/h2" || { cat "$T/h2"; fail "the upgrade through nginx was not 101"; }
grep -q '"event":"greeting"' "$T/ws" || fail "no greeting through the proxy"
for _ in $(seq 50); do grep -q "transport=websocket" "$T/kriegd.log" && break; sleep 0.1; done
grep -q "peer=127.0.0.1(via 127.0.0.1) transport=websocket" "$T/kriegd.log" ||
	fail "kriegd did not take the client's address from the trusted proxy"
! grep -q "203.0.113.66" "$T/kriegd.log" || fail "a client's own X-Forwarded-For passed the proxy"
# A cross-site page is still refused behind the proxy.
curl "${res[@]}" -D "$T/h3" -o /dev/null \
	-H "Origin: https://evil.example.com" -H "Upgrade: websocket" -H "Connection: Upgrade" \
	-H "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" -H "Sec-WebSocket-Version: 13" "$url/ws" || true
grep -q "^HTTP/1.1 403" "$T/h3" || { cat "$T/h3"; fail "a cross-origin upgrade through nginx was not refused"; }
echo "proxy: deploy/proxy/nginx-kriegd.conf: nginx -t clean; page, upgrade, X-Forwarded-For and Origin through it: ok"
