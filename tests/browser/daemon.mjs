// daemon.mjs — what the browser tests share: Debian's chromium found, a
// kriegd on a fresh state directory, its accounts made offline first, its
// line and web doors on ports of the system's choosing (read from its log),
// and a page's sign-in; chromium launched, and the waits and checks the
// scenarios are written in.
import { spawn, execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, existsSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function findBrowser() {
  const path = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(path)) {
    console.error(`browser tests: ${path} is missing; install Debian's chromium (make deps)`);
    process.exit(1);
  }
  return path;
}

// users: [name, password, ...the flags of `kriegd user add`]; args: more of
// kriegd's own.  port (the web door) is 0 if it did not open.
export async function startKriegd(kriegd, prefix, users, args) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const state = join(dir, 's');
  const log = join(dir, 'kriegd.log');
  // scrypt at its lowest cost (kriegd.conf(5) password_cost): a test
  // daemon's passwords, hashed in milliseconds instead of 170 ms each.
  const cost = ['--set', 'password_cost=10'];
  for (const [name, password, ...how] of users)
    execFileSync(kriegd, ['--state-dir', state, ...cost, 'user', 'add', name, ...how, '--password-stdin'],
      { input: `${password}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
  const fd = openSync(log, 'w');
  const d = spawn(kriegd, ['--state-dir', state, '--listen', '127.0.0.1:0', ...cost,
    '--set', 'listen_web=127.0.0.1:0', '--set', 'guests_per_address=0', '--set', 'register_per_hour=0', ...args],
  { stdio: ['ignore', fd, fd] });
  let port = 0, linePort = 0;
  for (let i = 0; i < 300 && !port; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const m = [...readFileSync(log, 'utf8').matchAll(/listening on 127\.0\.0\.1:(\d+)/g)];
    if (m.length >= 2) { linePort = +m[0][1]; port = +m[1][1]; }
  }
  // The end of a scenario file: the daemon stopped, its directory gone.
  const finish = (code) => { d.kill('SIGTERM'); rmSync(dir, { recursive: true, force: true }); process.exit(code); };
  if (!port) { console.error(`FAIL: kriegd did not open its web door\n${readFileSync(log, 'utf8')}`); finish(1); }
  return { d, dir, log, port, linePort, finish };
}

// The page's login form filled and sent (or registered); the lobby shown.
export async function signIn(p, user, password, register, timeout = 10000) {
  await p.fill('#user', user);
  await p.fill('#password', password);
  await p.click(register ? '#btn-register' : '#btn-login');
  await p.waitForSelector('#lobby:visible', { timeout });
}

// Headless chromium, as every scenario file runs it.
export function launchBrowser(executablePath) {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const check = (cond, msg) => { if (!cond) throw new Error(msg); };

// Poll fn(arg) in the page until true (the page's CSP forbids waitForFunction).
export async function until(p, fn, arg, what, ms = 5000) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await p.evaluate(fn, arg)) return;
    await sleep(50);
  }
  throw new Error(`${p.name}: timed out waiting for ${what}`);
}

// Until a line of the list #id matches re.
export const heard = (p, id, re, what) => until(p, ([i, src]) => [...document.querySelectorAll(`#${i} li`)]
  .some((li) => new RegExp(src).test(li.textContent)), [id, re.source], what);

// Every frame the context's pages send, kept in window.sent.
export const recordSent = (ctx) => ctx.addInitScript(() => {
  window.sent = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { window.sent.push(JSON.parse(data)); return send.call(this, data); };
});
