// daemon.mjs — what the browser tests share: Debian's chromium found, a
// kriegd on a fresh state directory, its accounts made offline first, its
// line and web doors on ports of the system's choosing (read from its log),
// and a page's sign-in.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, openSync } from 'node:fs';
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
  for (const [name, password, ...how] of users)
    execFileSync(kriegd, ['--state-dir', state, 'user', 'add', name, ...how, '--password-stdin'],
      { input: `${password}\n`, stdio: ['pipe', 'ignore', 'inherit'] });
  const fd = openSync(log, 'w');
  const d = spawn(kriegd, ['--state-dir', state, '--listen', '127.0.0.1:0',
    '--set', 'listen_web=127.0.0.1:0', '--set', 'guests_per_address=0', '--set', 'register_per_hour=0', ...args],
  { stdio: ['ignore', fd, fd] });
  let port = 0, linePort = 0;
  for (let i = 0; i < 300 && !port; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const m = [...readFileSync(log, 'utf8').matchAll(/listening on 127\.0\.0\.1:(\d+)/g)];
    if (m.length >= 2) { linePort = +m[0][1]; port = +m[1][1]; }
  }
  return { d, dir, log, port, linePort };
}

// The page's login form filled and sent (or registered); the lobby shown.
export async function signIn(p, user, password, register, timeout = 10000) {
  await p.fill('#user', user);
  await p.fill('#password', password);
  await p.click(register ? '#btn-register' : '#btn-login');
  await p.waitForSelector('#lobby:visible', { timeout });
}
