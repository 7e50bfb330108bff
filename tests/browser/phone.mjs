// phone.mjs — the web client on a phone's screen, in a real browser
// (Debian's /usr/bin/chromium, headless, playwright-core, a phone's
// viewport: touch, twice the pixels) against a real kriegd.  Two guests
// on phones held upright (375x667 and 360x640) play a few tries by tapping
// squares, a third watches held sideways (667x375), a player turns a phone
// sideways mid-game; a player with the longest name there is (a line
// client) seeks, and long words are said.  On every view (sign-in, lobby,
// game, watch, record), measured:
//   - the page no wider than the screen (nor zoomed out to fit it);
//   - the board as wide as it can be and no wider, every square at least
//     40 px (a fingertip) and, the board scrolled up to the header, all 64
//     in sight and reached by a tap (nothing over them: the sticky header);
//   - the key buttons and fields in sight, within the screen's width, at
//     least 40 px high, and reached by a tap where they are;
//   - a try made by two taps answered, the board left where it was (the
//     announcement of it does not scroll the page under the header), and
//     a spectator's newest announcement in sight in its scrolling list.
// Every failing measurement is reported, then the test fails.
// KRIEG_WEB_ROOT=DIR serves the page from DIR instead of the copy built
// into kriegd (to run this test against another client-web).
// Usage: node phone.mjs KRIEGD [SCREENSHOT_DIR]
import { mkdirSync } from 'node:fs';
import { LineClient } from './line.mjs';
import { check, findBrowser, launchBrowser, startKriegd, until } from './daemon.mjs';

const [kriegd, shots] = process.argv.slice(2);
const browserPath = findBrowser();
const T0 = Date.now();
const { port, linePort, finish } = await startKriegd(kriegd, 'krieg-phone-', [],
  process.env.KRIEG_WEB_ROOT ? ['--set', `web_root=${process.env.KRIEG_WEB_ROOT}`] : []);
if (shots) mkdirSync(shots, { recursive: true });
const browser = await launchBrowser(browserPath);
const errors = [], problems = [];
const MIN = 40;   // px: a square, a button, a field, as a fingertip needs

const newPhone = async (name, width, height) => {
  const ctx = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width, height },
    deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const p = await ctx.newPage();
  p.setDefaultTimeout(5000);
  p.name = name;
  p.on('pageerror', (e) => errors.push(`${name}: ${e}`));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(`${name}: ${m.text()}`); });
  p.on('dialog', (dlg) => dlg.accept());   // "Resign?": yes
  await p.goto(`https://127.0.0.1:${port}/`);
  await p.waitForSelector('#btn-guest:visible', { timeout: 10000 });
  return p;
};
const where = (p, view) => { const v = p.viewportSize(); return `${p.name} ${v.width}x${v.height}, ${view}`; };
const shot = async (p, view) => {
  if (shots) await p.screenshot({ path: `${shots}/${p.name}-${view.replace(/\W+/g, '-')}-${p.viewportSize().width}x${p.viewportSize().height}.png` });
};

// The page no wider than the screen: nothing to scroll sideways, and not
// zoomed out to fit something wider (a phone's browser widens its layout
// viewport, innerWidth, to the page's width).  The widest culprits named.
async function fits(p, view) {
  const w = p.viewportSize().width;
  const m = await p.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: innerWidth,
    wide: [...document.querySelectorAll('body *')].filter((e) => e.getClientRects().length)
      .map((e) => [e, e.getBoundingClientRect().right]).filter(([, r]) => r > screen.width + 0.5)
      .map(([e, r]) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''} to ${Math.round(r)}`).slice(0, 4),
  }));
  if (m.scroll > w || m.inner > w)
    problems.push(`${where(p, view)}: the page is ${m.scroll} px wide (window ${m.inner}) on a ${w} px screen: ${m.wide.join(', ')}`);
  await shot(p, view);
}

// The board (#id): no wider than the screen, its squares big enough; with
// scroll, the page first scrolled to put its top just under the header,
// as a player would.  Then every square in sight and the one a tap at its
// centre reaches.
async function boardFits(p, id, view, scroll) {
  const { width, height } = p.viewportSize();
  const m = await p.evaluate(([sel, scroll]) => {
    const svg = document.querySelector(`#${sel} svg`), hdr = document.querySelector('header');
    if (scroll) scrollBy(0, svg.getBoundingClientRect().top - hdr.getBoundingClientRect().bottom);
    const b = svg.getBoundingClientRect(), h = hdr.getBoundingClientRect();
    const unreached = [...svg.querySelectorAll('rect[data-square]')].filter((r) => {
      const c = r.getBoundingClientRect(), x = c.left + c.width / 2, y = c.top + c.height / 2;
      return !(x >= 0 && x < innerWidth && y >= 0 && y < innerHeight && document.elementFromPoint(x, y) === r);
    }).map((r) => r.dataset.square);
    return { left: b.left, right: b.right, top: b.top, bottom: b.bottom, square: b.width / 8, header: h.bottom, unreached };
  }, [id, scroll]);
  const box = `board ${Math.round(m.left)}..${Math.round(m.right)} x ${Math.round(m.top)}..${Math.round(m.bottom)}, header to ${Math.round(m.header)}`;
  if (m.left < 0 || m.right > width) problems.push(`${where(p, view)}: the board is not within the screen's ${width} px: ${box}`);
  if (m.square < MIN) problems.push(`${where(p, view)}: a square is ${m.square.toFixed(1)} px, under ${MIN}`);
  if (m.top < m.header - 1 || m.bottom > height)
    problems.push(`${where(p, view)}: the board is not all in sight under the header on a ${height} px screen: ${box}`);
  if (m.unreached.length)
    problems.push(`${where(p, view)}: a tap misses ${m.unreached.length} squares (${m.unreached.slice(0, 8).join(' ')}...): ${box}`);
  return m;
}

// Buttons and fields: shown, within the screen's width, tall enough to
// tap, and (scrolled to, as a player would) reached by a tap at their centre.
async function reachable(p, view, sels) {
  const width = p.viewportSize().width;
  const m = await p.evaluate((all) => all.map((sel) => {
    const e = document.querySelector(sel);
    if (!e || !e.getClientRects().length) return { sel, shown: false };
    e.scrollIntoView({ block: 'center' });
    const b = e.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return { sel, shown: true, left: b.left, right: b.right, height: b.height,
      hit: hit === e || e.contains(hit) || (hit && hit.control === e), on: hit ? `${hit.tagName.toLowerCase()}${hit.id ? `#${hit.id}` : ''}` : 'nothing' };
  }), sels);
  await p.evaluate(() => scrollTo(0, 0));
  for (const e of m) {
    if (!e.shown) { problems.push(`${where(p, view)}: ${e.sel} is not shown`); continue; }
    if (e.left < 0 || e.right > width)
      problems.push(`${where(p, view)}: ${e.sel} spans ${Math.round(e.left)}..${Math.round(e.right)}, beyond the screen's ${width} px`);
    if (e.height < MIN) problems.push(`${where(p, view)}: ${e.sel} is ${Math.round(e.height)} px high, under ${MIN}`);
    if (!e.hit) problems.push(`${where(p, view)}: a tap on ${e.sel} reaches ${e.on} instead`);
  }
}

// A try by two taps, on the squares' centres as the page is: answered, and
// the board where it was (not scrolled away under the header).
const boardTop = (p) => p.evaluate(() => document.querySelector('#board svg').getBoundingClientRect().top);
async function tapTry(p, from, to, color) {
  const before = await boardTop(p);
  for (const sq of [from, to]) {
    const b = await p.locator(`#board rect[data-square="${sq}"]`).boundingBox();
    await p.touchscreen.tap(b.x + b.width / 2, b.y + b.height / 2);
  }
  try {
    await until(p, (c) => window.krieg.net.pending.size === 0 && window.krieg.state.toMove === c, color,
      `the try ${from}-${to}, made by taps, answered`);
  } catch (e) {
    throw new Error(`${e.message}: the turn says "${await p.textContent('#turn')}"`);
  }
  const after = await boardTop(p);
  if (Math.abs(after - before) > 1)
    problems.push(`${where(p, 'game')}: the answer to ${from}-${to} moved the board from ${Math.round(before)} to ${Math.round(after)} px`);
}
const readyFor = (p) => until(p, () => window.krieg.net.pending.size === 0, null, 'the answers');

const GAME_KEYS = ['#move', '#move-form button[type="submit"]', '#btn-draw', '#btn-resign', '#btn-lobby',
  '#say-text', '#say-form button[type="submit"]'];

let code = 0;
try {
  // A player with the longest name there is, seeking and online.
  const longName = 'Abcdefghijklmnopqrstuvwx';
  const l = await LineClient.open(linePort);
  await l.ok('hello', { version: 1 });
  await l.ok('register', { user: longName, password: 'long-name-password' });
  await l.ok('seek', { rules: 'english', color: 'white', time: { base: 300, inc: 0 } });

  const a = await newPhone('a', 375, 667), b = await newPhone('b', 360, 640);
  await fits(a, 'login');
  await reachable(a, 'login', ['#user', '#password', '#btn-login', '#btn-guest']);
  for (const p of [a, b]) {
    await p.tap('#btn-guest');
    await p.waitForSelector('#lobby:visible', { timeout: 10000 });
    await p.tap('#btn-who');
    await until(p, (n) => document.getElementById('who').textContent.includes(n), longName, 'the long name online');
    await until(p, (n) => document.getElementById('seeks').textContent.includes(n), longName, "the long name's seek");
    await fits(p, 'lobby');
    await reachable(p, 'lobby', ['#btn-seek', '#challenge-user', '#btn-challenge', '#message-text']);
  }
  // a seeks white; b takes it by a tap
  await a.selectOption('#color', 'white');
  await a.tap('#btn-seek');
  await until(a, () => /^seeking/.test(document.getElementById('status').textContent), null, 'the seek made');
  const aName = await a.evaluate(() => window.krieg.state.user);
  await b.tap('#btn-refresh');
  await b.tap(`#seeks li:has-text("${aName}") button[data-offer]`);
  for (const p of [a, b]) await p.waitForSelector('#game:visible', { timeout: 10000 });
  await readyFor(a);
  await readyFor(b);

  // The game, as it opens and after a few tries by taps.
  for (const p of [a, b]) {
    await fits(p, 'game');
    await boardFits(p, 'board', 'game', false);
  }
  await tapTry(a, 'e2', 'e4', 'black');
  await tapTry(b, 'e7', 'e5', 'white');
  await tapTry(a, 'g1', 'f3', 'black');
  await tapTry(b, 'b8', 'c6', 'white');
  check(await a.evaluate(() => window.krieg.board.pieces.get('f3')) === 'N', "the knight's try not on a's board");
  for (const p of [a, b]) {
    await boardFits(p, 'board', 'game, after tries', false);
    await reachable(p, 'game', GAME_KEYS);
  }
  // Long words said: wrapped, not widening the page.
  await a.fill('#say-text', `${'x'.repeat(120)} https://example.org/${'y'.repeat(60)}`);
  await a.tap('#say-form button[type="submit"]');
  await until(b, () => /yyyy/.test(document.getElementById('announcements').textContent), null, 'the long words heard');
  for (const p of [a, b]) await fits(p, 'game, long words');

  // A spectator held sideways; then a player's phone turned sideways.
  const c = await newPhone('c', 667, 375);
  await c.tap('#btn-guest');
  await c.waitForSelector('#lobby:visible', { timeout: 10000 });
  await fits(c, 'lobby');
  await c.tap('#btn-live');
  await c.tap('#live button[data-watch]', { timeout: 10000 });
  await c.waitForSelector('#watch:visible', { timeout: 10000 });
  await readyFor(c);
  await fits(c, 'watch');
  await boardFits(c, 'watch-board', 'watch', true);
  await reachable(c, 'watch', ['#btn-unwatch', '#spec-text']);
  await a.setViewportSize({ width: 667, height: 375 });
  await a.evaluate(() => scrollTo(0, 0));
  await fits(a, 'game');
  await reachable(a, 'game', GAME_KEYS);
  await boardFits(a, 'board', 'game', true);
  // The spectator's phone held upright, then sideways again: its board,
  // scrolled just under the header, stays there while the tries'
  // announcements arrive, and the newest line is in sight in its list,
  // which by then scrolls (more lines than it shows).  In this layout the
  // list is on the screen (under the board upright, beside it sideways), so
  // scrollIntoView would not have moved this page; the board's place is
  // kept as a measurement all the same.
  await c.setViewportSize({ width: 375, height: 667 });
  await fits(c, 'watch');
  await boardFits(c, 'watch-board', 'watch', true);
  await c.setViewportSize({ width: 667, height: 375 });
  await boardFits(c, 'watch-board', 'watch', true);
  const watchTop = () => c.evaluate(() => document.querySelector('#watch-board svg').getBoundingClientRect().top);
  const heard = () => c.evaluate(() => document.getElementById('watch-announcements').children.length);
  let moved = false;
  for (const [p, from, to, next] of [[a, 'f1', 'c4', 'black'], [b, 'g8', 'f6', 'white'], [a, 'd2', 'd3', 'black'],
    [b, 'f8', 'c5', 'white'], [a, 'b1', 'c3', 'black'], [b, 'd7', 'd6', 'white'], [a, 'c1', 'g5', 'black'],
    [b, 'c8', 'e6', 'white']]) {
    const was = await heard(), watchBefore = await watchTop();
    await tapTry(p, from, to, next);   // a's tries by taps held sideways, the board scrolled to
    await until(c, (n) => document.getElementById('watch-announcements').children.length > n, was,
      `the spectator's announcement of ${from}-${to}`);
    const watchAfter = await watchTop();
    if (!moved && Math.abs(watchAfter - watchBefore) > 1) {
      moved = true;
      problems.push(`${where(c, 'watch')}: the announcement of ${from}-${to} moved the board from ${Math.round(watchBefore)} to ${Math.round(watchAfter)} px`);
    }
  }
  const list = await c.evaluate(() => {
    const ol = document.getElementById('watch-announcements');
    const o = ol.getBoundingClientRect(), r = ol.lastElementChild.getBoundingClientRect();
    return { scrolls: ol.scrollHeight > ol.clientHeight, seen: r.top >= o.top - 1 && r.bottom <= o.bottom + 1 };
  });
  check(list.scrolls, "the spectator's list of announcements never had more lines than it shows");
  if (!list.seen) problems.push(`${where(c, 'watch')}: the newest announcement is out of sight in its list`);

  // The record: b resigns; both see what really happened.
  await b.tap('#btn-resign');
  for (const [p, size] of [[a, { width: 375, height: 667 }], [b, { width: 640, height: 360 }]]) {
    await p.waitForSelector('#btn-truth:visible', { timeout: 10000 });
    await p.setViewportSize(size);
    await p.tap('#btn-truth');
    await p.waitForSelector('#record:visible', { timeout: 10000 });
    await until(p, () => window.krieg.records.board.pieces.size > 0, null, 'the true board');
    await fits(p, 'record');
    await boardFits(p, 'record-board', 'record', true);
    await reachable(p, 'record', ['#btn-pgn', '#btn-record-back', '#btn-replay-back', '#btn-replay-next']);
  }
  l.close();
  if (errors.length) problems.push(`errors in the pages: ${errors.join('; ')}`);
  if (problems.length) {
    console.error(`FAIL: the web client on a phone's screen:\n  ${problems.join('\n  ')}`);
    code = 1;
  } else {
    console.log(`phone: sign-in, lobby, game, watch and record on 375x667, 360x640, 667x375 and 640x360 screens: no page wider than the screen, the board all in sight with squares of ${MIN} px and more, the buttons and fields in reach, tries made by taps and answered, the board kept in place (${((Date.now() - T0) / 1000).toFixed(1)} s)${shots ? `; screenshots in ${shots}` : ''}`);
  }
} catch (e) {
  console.error(`FAIL: ${e.stack || e}${problems.length ? `\n  and before it:\n  ${problems.join('\n  ')}` : ''}`);
  code = 1;
}
await browser.close();
finish(code);
