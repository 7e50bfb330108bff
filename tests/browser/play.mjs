// play.mjs — two chromium pages (headless, Debian's /usr/bin/chromium
// driven by playwright-core) sign in as guests over wss to a real kriegd,
// one seeks, the other accepts, they play, and a screenshot of the game in
// progress is written.  Usage: node play.mjs KRIEGD SCREENSHOT.png
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [kriegd, shot] = process.argv.slice(2);
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(browserPath)) {
  console.error(`browser tests: ${browserPath} is missing; install Debian's chromium (make deps)`);
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'krieg-browser-'));
const log = join(dir, 'kriegd.log');
const { openSync } = await import('node:fs');
const fd = openSync(log, 'w');
const d = spawn(kriegd, ['--state-dir', join(dir, 's'), '--listen', '127.0.0.1:0',
  '--set', 'listen_web=127.0.0.1:0', '--set', 'guests_per_address=0', '--set', 'register_per_hour=0'],
{ stdio: ['ignore', fd, fd] });
let port = 0;
for (let i = 0; i < 300 && !port; i++) {
  await new Promise((r) => setTimeout(r, 100));
  const m = [...readFileSync(log, 'utf8').matchAll(/listening on 127\.0\.0\.1:(\d+)/g)];
  if (m.length >= 2) port = +m[1][1];
}
const fail = (msg) => { console.error(`FAIL: ${msg}\n--- kriegd log:\n${readFileSync(log, 'utf8')}`); d.kill(); process.exit(1); };
if (!port) fail('kriegd did not open its web door');

const browser = await chromium.launch({
  executablePath: browserPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
const errors = [];
const page = async () => {
  const p = await ctx.newPage();
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await p.goto(`https://127.0.0.1:${port}/`);
  await p.waitForSelector('#btn-guest:visible', { timeout: 10000 });
  await p.click('#btn-guest');
  await p.waitForSelector('#lobby:visible', { timeout: 10000 });
  return p;
};
try {
  const a = await page(), b = await page();
  await a.selectOption('#rules', 'icc');
  await a.click('#btn-seek');
  await b.waitForTimeout(300);
  await b.click('#btn-refresh');
  await b.click('#seeks button[data-offer]', { timeout: 10000 });
  await a.waitForSelector('#game:visible', { timeout: 10000 });
  await b.waitForSelector('#game:visible', { timeout: 10000 });
  const white = (await a.evaluate(() => window.krieg.state.color)) === 'white' ? a : b;
  const black = white === a ? b : a;
  // 1. e4 by clicks; 1... e5 typed.
  await white.click('rect[data-square="e2"]');
  await white.click('rect[data-square="e4"]');
  await white.waitForSelector('#announcements li', { timeout: 10000 });
  await black.fill('#move', 'e7e5');
  await black.click('#move-form button');
  await white.waitForFunction(() => document.querySelectorAll('#announcements li').length >= 3, null, { timeout: 10000 });
  // The board shows the own move; reloading resumes the seat.
  const wp = await white.evaluate(() => window.krieg.board.pieces.get('e4'));
  if (wp !== 'P') fail(`white's board has ${wp} on e4`);
  await white.screenshot({ path: shot, fullPage: true });
  await black.reload();
  await black.waitForSelector('#game:visible', { timeout: 10000 });
  const bp = await black.evaluate(() => window.krieg.board.pieces.get('e5'));
  if (bp !== 'p') fail(`after a reload black's board has ${bp} on e5`);
  // Every frame a page got is one protocol line.
  for (const p of [white, black]) {
    const frames = await p.evaluate(() => window.krieg.net.frames);
    if (!frames.length || frames.some((f) => f.includes('\n') || typeof JSON.parse(f) !== 'object'))
      fail('a frame that is not one protocol line');
  }
  if (errors.length) fail(`errors in the pages: ${errors.join('; ')}`);
  console.log(`browser: two pages played 1. e4 e5 over wss, a reload resumed; screenshot ${shot}`);
} catch (e) {
  fail(String(e));
} finally {
  await browser.close();
  d.kill('SIGTERM');
}
rmSync(dir, { recursive: true, force: true });
