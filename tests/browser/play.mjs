// play.mjs — the web client in a real browser (Debian's /usr/bin/chromium,
// headless, driven by playwright-core; nothing is downloaded) against a
// real kriegd, over wss:
//   1. two pages register and play a complete game (Scholar's mate, icc)
//      by drag, by click then click and by typed tries, while a third page
//      watches it; one player's page is reloaded mid-game and resumes its
//      seat; a screenshot of the game in progress is written;
//   2. each page's frames are exactly the lines a line-protocol client in
//      the same seat received (a second connection of the same account, or
//      the same spectator's session watching too), byte for byte;
//   3. the record view in every view, the true board of the umpire's view
//      replayed move by move (the move's line marked; a click on a line and
//      the arrow keys replay too), and the PGN download of the finished game;
//   4. a browser player against a line-protocol player (Fool's mate), and
//      the umpire's chair in a page (offered to umpires only, as pairing
//      is): the true board, both sides' tries, the
//      chair taken again after a lost connection, a pause and a public
//      note that reach the players; a try typed while
//      the last one is unanswered is not cleared by that answer;
//   5. nost: an "if quiet" sequence sent from a page plays on by itself;
//   6. a challenge pushed to a page, declined there (and one declined with a reason);
//   7. crazykrieg: both reserves shown under the board (the player's and a
//      spectator's), a typed drop drawn; an untimed seek listed and taken;
//      a spectator's words to the spectators, never to a player;
//   8. a correspondence seek (days a move) made from the page, another
//      cancelled there; a bot account's seek and its line in the online
//      list marked as a bot's;
//   9. two live games on one page: one played again from Your games, the
//      other's announcements said in the status line;
//  10. a timed game: the possible tries listed, no Abort after both moved, an
//      adjournment offered, accepted and resumed from the page; the
//      connection lost under the page, made again by itself, the game
//      played on; words said to the opponent;
//  11. a password an admin set: the page asks for the player's own first;
//  12. a message left for a page, listed and said there, answered with
//      Reply and deleted; the lobby page reconnected, and live; a followed
//      player's departure and arrival said.
// (Registering with an invite code is the same request with "invite": the
// daemon here registers openly, which ignores the field.)
// Usage: node play.mjs KRIEGD SCREENSHOT.png
import { chromium } from 'playwright-core';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { LineClient } from './line.mjs';
import { findBrowser, signIn, startKriegd } from './daemon.mjs';
import { applyTrue, fenPieces } from '../../client-web/board.js';

const [kriegd, shot] = process.argv.slice(2);

// The replay's move rule (record.js), on positions no game below reaches:
// en passant, castling long, a promotion and a drop.
{
  const after = (fen, moves) => {
    const p = fenPieces(fen, null);
    moves.forEach(([uci, by]) => applyTrue(p, uci, by));
    return Object.fromEntries(p);
  };
  const same = (got, want, what) => {
    if (JSON.stringify(Object.entries(got).sort()) !== JSON.stringify(Object.entries(want).sort())) {
      console.error(`FAIL: the replay, ${what}: ${JSON.stringify(got)}`);
      process.exit(1);
    }
  };
  same(after('4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 1', [['d5c6', 'white']]), { e8: 'k', c6: 'P', e1: 'K' }, 'en passant');
  same(after('r3k3/8/8/8/8/8/8/4K3 b q - 0 1', [['e8c8', 'black']]), { c8: 'k', d8: 'r', e1: 'K' }, 'castling long');
  same(after('4k3/P7/8/8/8/8/8/4K3 w - - 0 1', [['a7a8n', 'white']]), { a8: 'N', e8: 'k', e1: 'K' }, 'a promotion');
  same(after('4k3/8/8/8/8/8/8/4K3 b - - 0 1', [['N@f3', 'black']]), { f3: 'n', e8: 'k', e1: 'K' }, 'a drop');
}
const browserPath = findBrowser();
const T0 = Date.now();
const { d, dir, log, port, linePort } = await startKriegd(kriegd, 'krieg-browser-', [
  ['ump', 'umpire-password', '--role', 'umpire'],   // the umpire's account
  ['robo', 'robo-password', '--bot'],                // an account flagged as a bot, whose seek the lobby marks
  ['newbie', 'admin-set-password', '--must-change'], // one whose password an admin set: its own at its first login
], ['--set', 'motd=Club night on Thursdays']);
let browser = null;
// Who is in the test, for a failure's report: each page's status line,
// turn, announcements, requests unanswered and last frames, and each line
// client's last lines.
const pages = {}, lineClients = {};
const seen = async () => {
  let out = '';
  for (const [who, p] of Object.entries(pages)) {
    const text = async (sel) => (await p.textContent(sel, { timeout: 1000 }).catch(() => '?')).trim();
    const net = await p.evaluate(() => ({ unanswered: [...window.krieg.net.pending.keys()],
      sent: window.krieg.net.nextId - 1, last: window.krieg.net.frames.slice(-6) })).catch((e) => ({ error: String(e) }));
    out += `--- page ${who}: status "${await text('#status')}", turn "${await text('#turn')}"\n`
      + `    announcements: ${await text('#announcements')}\n`
      + `    requests sent ${net.sent}, unanswered ${JSON.stringify(net.unanswered)}; last frames:\n    ${(net.last || [net.error]).join('\n    ')}\n`;
  }
  for (const [who, l] of Object.entries(lineClients))
    out += `--- line client ${who}, last lines:\n${l.lines.slice(-8).join('\n')}\n`;
  // Does kriegd still answer?  If not, what are its threads doing: the
  // state of each (R: running, S: sleeping), and under ASan a stack of
  // its loop (a SIGSEGV makes ASan print one into the log).
  const answers = await Promise.race([
    LineClient.open(linePort).then(async (l) => { await l.ok('hello', { version: 1 }); l.close(); return true; }),
    new Promise((r) => setTimeout(() => r(false), 3000))]).catch(() => false);
  out += `--- kriegd ${answers ? 'answers a new connection' : 'does NOT answer a new connection in 3 s'}; threads:`;
  try {
    for (const t of readdirSync(`/proc/${d.pid}/task`))
      out += ` ${t}:${readFileSync(`/proc/${d.pid}/task/${t}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[0]}`;
  } catch (e) { out += ` (${e.code})`; }
  if (!answers) {
    d.kill('SIGSEGV');
    await new Promise((r) => setTimeout(r, 2000));
  }
  return `${out}\n`;
};
const fail = async (msg) => {
  console.error(`FAIL: ${msg}\n${await seen()}--- kriegd log:\n${readFileSync(log, 'utf8')}`);
  if (browser) await browser.close();
  d.kill();
  process.exit(1);
};
const check = (cond, msg) => { if (!cond) throw new Error(msg); };
if (!port) await fail('kriegd did not open its web door');

browser = await chromium.launch({
  executablePath: browserPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
// One context per person: sessionStorage and downloads of their own.
const errors = [];
const newPage = async () => {
  const ctx = await browser.newContext({ ignoreHTTPSErrors: true, acceptDownloads: true });
  const p = await ctx.newPage();
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // confirmations: yes; a question (a new password): this answer
  p.on('dialog', (dlg) => dlg.accept(dlg.type() === 'prompt' ? 'newbie-own-password' : undefined));
  await p.goto(`https://127.0.0.1:${port}/`);
  await p.waitForSelector('#btn-guest:visible', { timeout: 10000 });
  return p;
};
// Poll fn(arg) in the page until true (page.waitForFunction evaluates a
// string inside the page, which the page's CSP rightly forbids).
const until = async (p, fn, arg, what, ms = 10000) => {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await p.evaluate(fn, arg)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};
const frames = (p) => p.evaluate(() => window.krieg.net.frames);
// Wait until the page's announcements hold a line matching re.
const heard = async (p, list, re) => {
  try {
    await until(p, ([id, src]) =>
      [...document.querySelectorAll(`#${id} li`)].some((li) => new RegExp(src, 'i').test(li.textContent)),
    [list, re.source], `${re} in #${list}`);
  } catch (e) {
    throw new Error(`${e.message}; it holds:\n${await p.textContent(`#${list}`)}\nstatus: ${await p.textContent('#status')}`);
  }
};
const toMove = (p, color) => until(p, (c) => window.krieg.state.toMove === c, color, `${color} to move`);
const square = async (p, sq) => {
  const b = await p.locator(`#board rect[data-square="${sq}"]`).boundingBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
};
// A try is made by a page's handler at once (net.call); it is answered
// once the page has read the reply, and with it the try's own events
// (sent before the reply: PROTOCOL.md).  Until then the page's turn still
// says what it said before the try: a test going on by it could act early.
const answered = (p) => until(p, () => window.krieg.net.pending.size === 0, null, 'the answer to a try');
const clickMove = async (p, from, to) => {
  await p.click(`#board rect[data-square="${from}"]`);
  await p.click(`#board rect[data-square="${to}"]`);
  await answered(p);
};
const dragMove = async (p, from, to) => {
  const a = await square(p, from), b = await square(p, to);
  await p.mouse.move(a.x, a.y);
  await p.mouse.down();
  await p.mouse.move(b.x, b.y, { steps: 8 });
  await p.mouse.up();
  await answered(p);
};
const typeMove = async (p, mv) => {
  await p.fill('#move', mv);
  await p.click('#move-form button[type="submit"]');
  await answered(p);
};
// The lines of one game (by id) among a connection's messages, as received.
const gameLines = (lines, game, skip = ['game_state', 'game_events']) => lines.filter((l) => {
  const m = JSON.parse(l);
  return m.event && m.game === game && !skip.includes(m.event);
});
const sameLines = (what, got, want) => {
  check(want.length > 0, `${what}: the line client received nothing`);
  check(got.length === want.length && got.every((l, i) => l === want[i]),
    `${what}: the page's frames differ from the line client's lines\n--- page:\n${got.join('\n')}\n--- line:\n${want.join('\n')}`);
};

try {
  const suffix = String(process.pid % 100000);
  const wName = `alice${suffix}`, bName = `bob${suffix}`;
  const a = await newPage(), b = await newPage(), c = await newPage();
  Object.assign(pages, { a, b, c });
  await signIn(a, wName, 'alice-password', true);
  check(await a.textContent('#motd') === 'Club night on Thursdays' && await a.isVisible('#motd'),
    'the message of the day is not shown');
  await signIn(b, bName, 'bob-password', true);
  await c.click('#btn-guest');
  await c.waitForSelector('#lobby:visible', { timeout: 10000 });

  // The line clients in the same seats: a second connection of each
  // player's account, and the spectator's own session (its token).
  const la = await LineClient.open(linePort), lb = await LineClient.open(linePort);
  Object.assign(lineClients, { la, lb });
  await la.ok('hello', { version: 1 });
  await lb.ok('hello', { version: 1 });
  await la.ok('login', { user: wName, password: 'alice-password' });
  await lb.ok('login', { user: bName, password: 'bob-password' });

  // ---- 1. a complete game, watched ----
  await a.selectOption('#rules', 'icc');
  await a.selectOption('#color', 'white');
  await a.click('#btn-seek');
  await b.waitForTimeout(200);
  await b.click('#btn-refresh');
  await b.click('#seeks button[data-offer]', { timeout: 10000 });
  await a.waitForSelector('#game:visible', { timeout: 10000 });
  await b.waitForSelector('#game:visible', { timeout: 10000 });
  const game = await a.evaluate(() => window.krieg.state.game);
  check(await a.evaluate(() => window.krieg.state.color) === 'white', 'alice does not play white');

  await c.click('#btn-live');
  await c.click(`#live button[data-watch="${game}"]`, { timeout: 10000 });
  await c.waitForSelector('#watch:visible', { timeout: 10000 });
  check(!(await c.isVisible('#umpire-form')) && !(await c.isVisible('#tries')), "a spectator's page shows the umpire's tools");
  const lc = await LineClient.open(linePort);
  lineClients.lc = lc;
  await lc.ok('hello', { version: 1 });
  await lc.ok('resume', { token: await c.evaluate(() => sessionStorage.getItem('krieg.token')) });
  await lc.ok('watch', { game });

  await dragMove(a, 'e2', 'e4');                       // 1. e4, by drag
  await toMove(b, 'black');
  // whose move it is, in the tab's title too
  check(await b.title() === '(your move) krieg — Kriegspiel' && await a.title() === 'krieg — Kriegspiel',
    `the titles: "${await a.title()}", "${await b.title()}"`);
  check(await a.evaluate(() => window.krieg.board.pieces.get('e4')) === 'P', 'the drag did not play e4');
  // coordinates on the board, as each player sits: White's files a..h, Black's h..a
  const coords = (p) => p.evaluate(() => {
    const ts = [...document.querySelectorAll('#board text.coord')];
    const along = (re, key) => ts.filter((t) => re.test(t.textContent)).sort((u, v) => key(u) - key(v))
      .map((t) => t.textContent).join('');
    return along(/[a-h]/, (t) => +t.getAttribute('x')) + ' ' + along(/[1-8]/, (t) => -t.getAttribute('y'));
  });
  check(await coords(a) === 'abcdefgh 12345678' && await coords(b) === 'hgfedcba 87654321',
    `the coordinates: "${await coords(a)}", "${await coords(b)}"`);
  await clickMove(b, 'e7', 'e5');                      // 1... e5, click then click
  await toMove(a, 'white');
  await typeMove(a, 'Bc4');                            // 2. Bc4, typed
  await toMove(b, 'black');
  // A reload mid-game resumes the seat (the token in sessionStorage).
  const bBefore = await frames(b);
  await b.reload();
  await b.waitForSelector('#game:visible', { timeout: 10000 });
  check(await b.evaluate(() => window.krieg.board.pieces.get('e5')) === 'p', "after a reload black's board lost e5");
  check((await b.textContent('#game-title')).endsWith('you play black, 1 watching'),   // c's seat
    `the game's title after a reload: ${await b.textContent('#game-title')}`);
  // the status keeps the game (the browser probe: "signed in as bob" alone)
  await until(b, () => /^signed in as .*, playing game \d+$/.test(document.getElementById('status').textContent), null,
    'the status after a reload names the game');
  await typeMove(b, 'Nc6');
  await toMove(a, 'white');
  await clickMove(a, 'd1', 'h5');                      // 3. Qh5, by clicks
  await toMove(b, 'black');
  await a.screenshot({ path: shot, fullPage: true });
  await dragMove(b, 'g8', 'f6');                       // 3... Nf6, by drag
  await toMove(a, 'white');
  await typeMove(a, 'Qxf7');                           // 4. Qxf7#
  for (const [p, list] of [[a, 'announcements'], [b, 'announcements'], [c, 'watch-announcements']])
    await heard(p, list, /^4\. .*checkmate/i);
  // Announcements are numbered by the move they belong to.
  await heard(a, 'announcements', /^1\.\.\. Black has moved$/);
  await heard(c, 'watch-announcements', /^3\.\.\. Black has moved$/);
  const over = await lc.waitFor((m) => m.event === 'game_over' && m.game === game);
  check(over.result === '1-0', `the game ended ${over.result}`);
  await la.waitFor((m) => m.event === 'game_over' && m.game === game);
  await lb.waitFor((m) => m.event === 'game_over' && m.game === game);
  // The end shows each player the true position (the endings probe): White
  // sees Black's knight on f6, Black White's queen on f7, never seen before.
  await until(a, () => window.krieg.board.pieces.get('f6') === 'n', null, "Black's knight on White's board at the end");
  await until(b, () => window.krieg.board.pieces.get('f7') === 'Q', null, "White's queen on Black's board at the end");

  // ---- 2. the same lines on both transports ----
  sameLines('white', gameLines(await frames(a), game), gameLines(la.lines, game));
  sameLines('black', gameLines(bBefore.concat(await frames(b)), game), gameLines(lb.lines, game));
  // The spectator: every line after the watch reply.
  const cAfter = (await frames(c)).map((l) => JSON.parse(l));
  const watchReply = cAfter.findIndex((m) => m.ok === true && m.seat === 'spectator');
  sameLines('spectator', gameLines((await frames(c)).slice(watchReply + 1), game), gameLines(lc.lines, game));
  check(!gameLines(await frames(c), game).some((l) => /"event":"move"|"move":"/.test(l)),
    'the spectator received a move');

  // ---- 3. the record and the PGN ----
  // From the finished game's own page: what really happened, the umpire's view.
  await a.click('#btn-truth');
  await a.waitForSelector('#record:visible', { timeout: 10000 });
  check((await a.textContent('#record-title')).startsWith(`Game ${game}: `) &&
    (await a.textContent('#record-title')).includes("umpire's view"), await a.textContent('#record-title'));
  await a.click('#btn-record-back');
  await a.click('#btn-history');
  await a.click(`#history button[data-record="${game}"][data-view="umpire"]`, { timeout: 10000 });
  await a.waitForSelector('#record:visible', { timeout: 10000 });
  const recText = await a.textContent('#record-events');
  check(/e4/.test(recText) && /e5/.test(recText), "the umpire's record does not name both sides' moves");
  // The true board replayed: the end (Qxf7#) shown first, then move by move.
  const trueBoard = () => a.evaluate(() => Object.fromEntries(window.krieg.records.board.pieces));
  let tb = await trueBoard();
  check(tb.f7 === 'Q' && tb.c4 === 'B' && tb.f6 === 'n' && tb.c6 === 'n' && tb.e5 === 'p' && !tb.d1 && !tb.h5,
    `the true board at the end: ${JSON.stringify(tb)}`);
  check(await a.textContent('#replay-at') === 'move 7 of 7: white played Qxf7#', await a.textContent('#replay-at'));
  await a.click('#btn-replay-start');
  tb = await trueBoard();
  check(tb.e2 === 'P' && tb.f7 === 'p' && tb.d1 === 'Q' && Object.keys(tb).length === 32, 'the replay from the start');
  await a.click('#btn-replay-next');
  await a.click('#btn-replay-next');
  tb = await trueBoard();
  check(tb.e4 === 'P' && tb.e5 === 'p' && !tb.e2 && !tb.e7 && await a.textContent('#replay-at') === 'move 2 of 7: black played e5',
    `after two moves on: ${JSON.stringify(tb)}`);
  // the record's line of that move marked; a click on a line, and the arrow keys, replay to it
  const current = () => a.evaluate(() => [...document.querySelectorAll('#record-events li.current')].map((li) => li.textContent));
  check(JSON.stringify(await current()) === '["1... Black played e5"]', `the marked line: ${await current()}`);
  await a.click('#record-events li:has-text("White played Bc4")');
  check(await a.textContent('#replay-at') === 'move 3 of 7: white played Bc4' && (await trueBoard()).c4 === 'B',
    `a click on Bc4's line: ${await a.textContent('#replay-at')}`);
  await a.keyboard.press('ArrowLeft');
  check(await a.textContent('#replay-at') === 'move 2 of 7: black played e5', 'the left arrow');
  await a.keyboard.press('End');
  check(await a.textContent('#replay-at') === 'move 7 of 7: white played Qxf7#', 'the End key');
  const dl = a.waitForEvent('download', { timeout: 10000 });
  await a.click('#btn-pgn');
  const pgnPath = await (await dl).path();
  const pgn = readFileSync(pgnPath, 'utf8');
  check(/\[Result "1-0"\]/.test(pgn) && /Qxf7/.test(pgn), `the PGN download:\n${pgn}`);
  await a.click('#btn-record-back');
  // A rematch from Your games: the challenge reaches the opponent (here its
  // line connection), naming the game; withdrawn again.
  await a.click(`#history button[data-rematch="${game}"]`, { timeout: 10000 });
  const again = await lb.waitFor((m) => m.event === 'challenge' && m.rematch === game);
  check(again.color === 'black', `the rematch from the list: ${JSON.stringify(again)}`);
  await a.evaluate((o) => window.krieg.net.call('cancel', { offer: o }), again.offer);

  // ---- 4. a browser player against a line player, an umpire watching ----
  const lp = await LineClient.open(linePort);
  lineClients.lp = lp;
  await lp.ok('hello', { version: 1 });
  lp.user = (await lp.ok('guest')).user;
  await lp.ok('seek', { rules: 'english', color: 'black', time: { base: 300, inc: 0 } });
  await a.click('#btn-refresh');
  await a.click('#seeks button[data-offer]', { timeout: 10000 });
  await a.waitForSelector('#game:visible', { timeout: 10000 });
  const g2 = await a.evaluate(() => window.krieg.state.game);
  check(g2 !== game, 'no second game');
  // a guest's page lists the game to watch, not to umpire; the umpire's
  // does; the list says whose move it is, and who watches (a line client)
  await lc.ok('watch', { game: g2 });
  const gp = await newPage();
  await gp.click('#btn-guest');
  await gp.click('#btn-live', { timeout: 10000 });
  await gp.waitForSelector(`#live button[data-watch="${g2}"]`, { timeout: 10000 });
  check(!(await gp.isVisible(`#live button[data-umpire="${g2}"]`)) && !(await gp.isVisible('#pair-form')),
    "a player's page offers the umpire's chair or pairing");
  const liveText = await gp.textContent('#live');
  check(/move 1, white to move, 1 watching/.test(liveText), `the live list: ${liveText}`);
  await lc.ok('unwatch', { game: g2 });
  await gp.context().close();
  const u = await newPage();
  pages.u = u;
  await signIn(u, 'ump', 'umpire-password', false);
  await u.click('#btn-live');
  await u.click(`#live button[data-umpire="${g2}"]`, { timeout: 10000 });
  await u.waitForSelector('#umpire-form:visible', { timeout: 10000 });

  // The next try typed before the answer to the last one arrives (kriegd
  // held stopped meanwhile) is not cleared by that answer.
  process.kill(d.pid, 'SIGSTOP');
  try {
    await a.fill('#move', 'f3');                       // 1. f3
    await a.click('#move-form button[type="submit"]');
    await a.fill('#move', 'g4');
  } finally {
    process.kill(d.pid, 'SIGCONT');
  }
  await lp.waitFor((m) => m.event === 'moved' && m.game === g2 && m.by === 'white');
  await answered(a);
  check(await a.inputValue('#move') === 'g4', `the answer to f3 cleared the next try (now "${await a.inputValue('#move')}")`);
  await lp.ok('move', { game: g2, move: 'e5' });       // 1... e5, from the line
  await toMove(a, 'white');
  await typeMove(a, 'g4');                             // 2. g4
  await lp.waitFor((m) => m.event === 'moved' && m.game === g2 && m.ply === 3);
  // The chair: the true board and both sides' tries.
  await until(u, () => window.krieg.watch.board.pieces.get('g4') === 'P'
    && window.krieg.watch.board.pieces.get('e5') === 'p', null, "the umpire's true board");
  check((await u.textContent('#tries-white')).includes('g4') && (await u.textContent('#tries-black')).includes('e5'),
    "the chair does not list both sides' moves");
  // The game's PGN so far, from the chair (a director's export mid-round).
  const udl = u.waitForEvent('download', { timeout: 10000 });
  await u.click('#btn-umpire-pgn');
  const upgn = readFileSync(await (await udl).path(), 'utf8');
  check(/\[Result "\*"\]/.test(upgn) && /g4/.test(upgn) && /e5/.test(upgn), `the chair's PGN download:\n${upgn}`);
  // The chair's connection lost: the page reconnects and takes the chair again (its catch-up redrawn).
  await u.evaluate(() => window.krieg.net.ws.close());
  await until(u, () => document.getElementById('status').textContent.startsWith('reconnected as ump'), null,
    'the chair reconnected', 15000);
  check(await u.evaluate(() => window.krieg.watch.seat) === 'umpire'
    && await u.evaluate(() => window.krieg.watch.game) === g2
    && await u.evaluate(() => window.krieg.watch.board.pieces.get('g4')) === 'P',
  'the chair taken again after the reconnection');
  // An umpire's pause and a public note reach the browser player.
  await u.fill('#umpire-text', 'a short break');
  await u.click('#umpire-form button[data-act="clock_pause"]');
  await heard(a, 'announcements', /umpire paused the clocks: a short break/);
  await u.fill('#umpire-text', 'play on');
  await u.click('#umpire-form button[data-act="clock_unpause"]');
  await heard(a, 'announcements', /umpire restarted the clocks: play on/);
  await u.fill('#umpire-text', 'good luck');
  await u.click('#umpire-form button[data-act="note"][data-public="true"]');
  await heard(a, 'announcements', /umpire says: good luck/);
  await lp.waitFor((m) => m.event === 'umpire_note' && m.game === g2);
  await u.screenshot({ path: shot.replace(/\.png$/, '-umpire.png'), fullPage: true });
  await lp.ok('move', { game: g2, move: 'Qh4' });      // 2... Qh4#
  await heard(a, 'announcements', /checkmate/i);
  await heard(u, 'watch-announcements', /checkmate/i);
  await la.waitFor((m) => m.event === 'game_over' && m.game === g2);
  sameLines('white against a line player', gameLines(await frames(a), g2), gameLines(la.lines, g2));

  // ---- 5. nost: an "if quiet" sequence from the page ----
  await b.click('#btn-lobby');
  await lp.ok('seek', { rules: 'nost', color: 'black', time: { base: 300, inc: 0 } });
  await b.click('#btn-refresh');
  await b.click('#seeks button[data-offer]', { timeout: 10000 });
  await until(b, (g) => window.krieg.state.game !== null && window.krieg.state.game !== g && window.krieg.state.rules === 'nost',
    g2, 'the nost game');
  const g3 = await b.evaluate(() => window.krieg.state.game);
  // no "any?" in nost: the button is not offered (rules probe: it was, in every rule set)
  check(await b.evaluate(() => document.getElementById('btn-any').hidden), 'the Any? button in a nost game');
  await b.fill('#move', 'f3, g4');
  await b.click('#btn-quiet');                         // f3 now, g4 if quiet
  await lp.waitFor((m) => m.event === 'moved' && m.game === g3 && m.ply === 1);
  await lp.ok('move', { game: g3, move: 'e5' });
  await lp.waitFor((m) => m.event === 'moved' && m.game === g3 && m.ply === 3);   // g4, played for b
  await until(b, () => window.krieg.board.pieces.get('g4') === 'P', null, "g4 on the page's board");
  await lp.ok('move', { game: g3, move: 'Qh4' });
  await heard(b, 'announcements', /^2\.\.\. .*checkmate/);
  await lb.waitFor((m) => m.event === 'game_over' && m.game === g3);
  sameLines('white in nost', gameLines(await frames(b), g3), gameLines(lb.lines, g3));

  // ---- 7. crazykrieg: the reserves shown, a typed drop drawn ----
  // (an untimed seek: the seek list once stopped at one, reading its absent clock)
  await b.click('#btn-lobby');
  await lp.ok('seek', { rules: 'crazykrieg', color: 'black' });
  await b.click('#btn-refresh');
  await until(b, () => /crazykrieg untimed/.test(document.getElementById('seeks').textContent), null,
    'the untimed seek listed');
  await b.click('#seeks button[data-offer]', { timeout: 10000 });
  await until(b, () => window.krieg.state.rules === 'crazykrieg', null, 'the crazykrieg game');
  const g4 = await b.evaluate(() => window.krieg.state.game);
  check(await b.evaluate(() => !document.getElementById('btn-any').hidden), 'no Any? button in a crazykrieg game');
  const hands = () => b.textContent('#hands');
  await c.click('#btn-unwatch');                      // the spectator's page follows this game
  await c.click('#btn-live');
  await c.click(`#live button[data-watch="${g4}"]`, { timeout: 10000 });
  await c.waitForSelector('#watch-hands:visible', { timeout: 10000 });
  await typeMove(b, 'e4');
  await lp.ok('move', { game: g4, move: 'd5' });
  await toMove(b, 'white');
  // "Any?" answered yes: another try is refused until a pawn capture is
  // tried; the refusal said, and gone once the game moves on (the third
  // browser probe: it stayed to the end of the game)
  await b.click('#btn-any');
  await heard(b, 'announcements', /Yes/);
  await typeMove(b, 'Nf3');
  const mustTry = await b.textContent('#status');
  check(/pawn capture/.test(mustTry), `the refused try not said: ${mustTry}`);
  await typeMove(b, 'exd5');
  await until(b, () => /^signed in as .*, playing game \d+$/.test(document.getElementById('status').textContent), null,
    'the refusal gone once the game moved on');
  check(await hands() === 'In hand: White P | Black –', `after exd5: ${await hands()}`);
  await lp.ok('move', { game: g4, move: 'Qxd5' });
  await toMove(b, 'white');
  check(await hands() === 'In hand: White P | Black P', `after Qxd5: ${await hands()}`);
  await typeMove(b, 'P@e4');
  await toMove(b, 'black');
  check(await b.evaluate(() => window.krieg.board.pieces.get('e4')) === 'P', 'the drop P@e4 is not on the board');
  check(await hands() === 'In hand: White – | Black P', `after P@e4: ${await hands()}`);
  await until(c, () => document.getElementById('watch-hands').textContent === 'In hand: White – | Black P', null,
    "the spectator's reserves after P@e4");
  // the spectator's words reach the spectators' channel, never a player
  await c.fill('#spec-text', 'nice drop');
  await c.click('#spec-form button[type="submit"]');
  await heard(c, 'watch-announcements', /\(spectator\) says: "nice drop"/);
  check(!(await frames(b)).some((l) => l.includes('nice drop')), "the spectators' words reached a player");
  await lp.ok('resign', { game: g4 });
  await heard(b, 'announcements', /Black resigns/);
  // what only a game going on takes is gone (the third browser probe: Any? stayed)
  for (const id of ['btn-any', 'btn-possible', 'btn-draw', 'btn-resign', 'btn-abort', 'move-form']) {
    check(!(await b.isVisible(`#${id}`)), `#${id} shown after the game ended`);
  }
  // A rematch from the finished game's page: a challenge to the line
  // player, who asks too, and the new game opens with the colours swapped.
  await b.click('#btn-rematch', { timeout: 10000 });
  const ask = await lp.waitFor((m) => m.event === 'challenge' && m.rematch === g4);
  check(ask.color === 'black' && ask.rules === 'crazykrieg', `the rematch challenge: ${JSON.stringify(ask)}`);
  await until(b, () => /^rematch offered \(offer \d+\)$/.test(document.getElementById('status').textContent), null,
    'the rematch answered');
  const gR = (await lp.ok('rematch', { game: g4 })).game;
  await until(b, (g) => window.krieg.state.game === g && window.krieg.state.color === 'black', gR,
    'the rematch game, Black');
  check(!(await b.isVisible('#btn-rematch')), 'Rematch is offered in a game being played');
  // the new game's heading has the focus, not a square of the board it took
  // over (the keyboard probe)
  check(await b.evaluate(() => document.activeElement?.id === 'game-title'),
    `the rematch game opened, the focus is on ${await b.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))}`);
  await lp.ok('abort', { game: gR });
  await heard(b, 'announcements', /abort/i);

  // ---- 6. a challenge arrives pushed, and is declined ----
  await a.click('#btn-lobby');
  await b.click('#btn-lobby');
  await a.fill('#challenge-user', bName);
  await a.click('#btn-challenge');
  await b.click('#challenges button[data-decline]', { timeout: 10000 });
  await until(a, () => /declined your challenge/.test(document.getElementById('status').textContent), null,
    'the decline on the challenger\'s page');
  // declined with a reason (from a line client): the decliner's words, as kriegd keeps them
  await a.fill('#challenge-user', lp.user);
  await a.click('#btn-challenge');
  const toLine = await lp.waitFor((m) => m.event === 'challenge' && m.user === wName);
  await lp.ok('decline', { offer: toLine.offer, reason: '  not   <b>tonight</b> ' });
  await until(a, () => /declined your challenge: "not <b>tonight<\/b>"$/.test(document.getElementById('status').textContent) &&
    document.querySelector('#status .said')?.textContent === 'not <b>tonight</b>', null,
    'the decline\'s reason on the challenger\'s page');

  // ---- 6b. the club: a rated game in the standings, a player's profile ----
  const lw = await LineClient.open(linePort), ll = await LineClient.open(linePort);
  Object.assign(lineClients, { lw, ll });
  // registered: rated games are for registered accounts (a guest's are refused)
  for (const [l, name] of [[lw, 'clubwhite'], [ll, 'clubblack']]) {
    await l.ok('hello', { version: 1 });
    l.user = (await l.ok('register', { user: name, password: 'a long club password' })).user;
  }
  const rated = (await lw.ok('seek', { rules: 'nost', color: 'white', rated: true })).offer;
  const gr = (await ll.ok('accept', { offer: rated })).game;
  // both sides move: a rated game resigned before that is aborted, unrated
  await lw.ok('move', { game: gr, move: 'e4' });
  await ll.ok('move', { game: gr, move: 'e5' });
  await ll.ok('resign', { game: gr });
  await lw.waitFor((m) => m.event === 'game_over' && m.game === gr);
  await a.selectOption('#standings-rules', 'icc');     // nost is rated in icc's pool
  await a.click('#btn-standings');
  await until(a, () => document.querySelectorAll('#standings li').length === 2, null, 'two rows of standings');
  const table = await a.textContent('#standings');
  check(table.indexOf(lw.user) < table.indexOf(ll.user) && /\? \(1 game\)/.test(table), `the standings: ${table}`);
  await a.click(`#standings button[data-profile="${lw.user}"]`);
  await until(a, () => !document.getElementById('profile').hidden, null, 'the profile shown');
  const prof = await a.textContent('#profile');
  // their finished games under the profile, each to read back in any view
  await until(a, (g) => document.querySelector(`#profile-games button[data-record="${g}"][data-view="umpire"]`) !== null,
    gr, "the player's finished game under the profile");
  check(!(await a.$(`#profile-games button[data-rematch="${gr}"]`)), 'a rematch offered of a game not one\'s own');
  await a.click(`#profile-games button[data-record="${gr}"][data-view="umpire"]`);
  await a.waitForSelector('#record:visible', { timeout: 10000 });
  await a.click('#btn-record-back');
  await a.waitForSelector('#lobby:visible', { timeout: 10000 });
  // a follows lw: the game the director makes next opens on a's page.
  await a.click('#btn-who');
  await a.click(`#who button[data-follow="${lw.user}"]`, { timeout: 10000 });
  check(/ump \(umpire\), 0 games/.test(await a.textContent('#who')), 'the umpire is not marked in the online list');
  await until(a, () => /^following /.test(document.getElementById('status').textContent), null, 'the follow answered');
  // A tournament director pairs the two from the page; a player is not
  // shown the form, nor the chair of a live game (the server refuses both
  // to a player: test_umpire, test_watch).
  check(!(await a.isVisible('#pair-form')), "a player's page offers pairing");
  await u.click('#btn-unwatch');
  await u.waitForSelector('#lobby:visible', { timeout: 10000 });
  await u.waitForSelector('#pair-form:visible', { timeout: 10000 });
  await u.fill('#pair-white', ll.user);
  await u.fill('#pair-black', lw.user);
  await u.fill('#pair-tournament', 'Club Open');
  await u.fill('#pair-round', '3');
  await u.click('#btn-pair');
  const paired = await ll.waitFor((m) => m.event === 'game_start' && m.white === ll.user && m.black === lw.user);
  check(paired.tournament === 'Club Open' && paired.round === '3', `the pairing's tournament and round: ${JSON.stringify(paired)}`);
  await until(u, (g) => document.getElementById('status').textContent === `paired: game ${g}`, paired.game,
    "the director's answer");
  // (the director probe) the live list names the tournament and round, and
  // the page speaks to every board of a round at once
  await u.click('#btn-live');
  await until(u, (g) => [...document.querySelectorAll('#live li')].some((li) => li.textContent.startsWith(`Game ${g}: `)
    && li.textContent.includes('(icc, Club Open, round 3)')), paired.game, 'the round in the live list');
  check(!(await a.isVisible('#tnote-form')), "a player's page offers the tournament's note");
  await u.fill('#tnote-tournament', 'Club Open');
  await u.fill('#tnote-round', '3');
  await u.fill('#tnote-text', 'round 3 ends at ten');
  await u.click('#btn-tnote');
  await until(u, (g) => document.getElementById('status').textContent === `note sent to game ${g}`, paired.game,
    "the tournament's note answered");
  await ll.waitFor((m) => m.event === 'umpire_note' && m.game === paired.game && m.text === 'round 3 ends at ten');
  // the tournament's table: both players, the game still being played
  await u.fill('#tournament-name', 'Club Open');
  await u.click('#btn-tournament');
  await until(u, () => document.querySelectorAll('#tournament li').length === 2, null, "the tournament's table");
  const tab = await u.textContent('#tournament');
  check(tab.includes(`${ll.user} 0 (Buchholz 0, Sonneborn-Berger 0) (+0 =0 -0, 1 playing)`)
    && tab.includes(`${lw.user} 0 (Buchholz 0, Sonneborn-Berger 0) (+0 =0 -0, 1 playing)`),
    `the tournament's table: ${tab}`);
  // equal on points and both tie-breaks: one rank, numbered so (the TD probe)
  const ranks = await u.evaluate(() => [...document.querySelectorAll('#tournament li')].map((li) => li.value));
  check(ranks.join() === '1,1', `the tournament's ranks: ${ranks}`);
  const told = await lw.waitFor((m) => m.event === 'notice' && m.game === paired.game);
  check(told.from === 'ump' && told.text === `you are paired: game ${paired.game}, Black against ${ll.user}`,
    `the paired player's notice: ${JSON.stringify(told)}`);
  await until(a, (g) => window.krieg.watch.game === g && !document.getElementById('watch').hidden, paired.game,
    "the followed player's game open on the follower's page");
  const wtitle = await a.textContent('#watch-title');
  check(wtitle.includes('(icc, Club Open, round 3)'), `the watched game's title: ${wtitle}`);
  await a.click('#btn-unwatch');
  await a.waitForSelector('#lobby:visible', { timeout: 10000 });
  // and unfollowed from the online list
  await a.click('#btn-who');
  await a.click(`#who button[data-unfollow="${lw.user}"]`, { timeout: 10000 });
  await until(a, (who) => document.getElementById('status').textContent === `no longer following ${who}`, lw.user,
    'the unfollow answered');
  check((await a.evaluate(() => window.krieg.net.call('follow'))).following.length === 0, 'still following');
  check(prof.startsWith(`${lw.user}: player, since `) && /online; 1 won, 0 lost, 0 drawn, 0 aborted; rated icc 1\d\d\d\?$/.test(prof),
    `the profile: ${prof}`);

  // ---- 8. a correspondence seek from the page: days a move ----
  // a bad value left in a field of another time control holds nothing back
  // (the correspondence probe: the seek did nothing, silently)
  await a.selectOption('#tc', 'clock');
  await a.fill('#inc', '1.2');
  await a.selectOption('#tc', 'days');
  check(await a.isVisible('#days') && !(await a.isVisible('#base')), 'the days field is not the one shown');
  await a.fill('#days', '3');
  await a.click('#btn-seek');
  await until(a, () => /^seeking \(offer \d+\)$/.test(document.getElementById('status').textContent), null,
    'the seek answered');
  const offers = (await lp.ok('seeks')).offers;
  check(offers.some((o) => o.user === wName && o.time && o.time.days === 3), `no 3-day seek: ${JSON.stringify(offers)}`);
  await until(a, () => /3 days a move/.test(document.getElementById('seeks').textContent), null,
    "the page's own seek listed");
  // one's own seek withdrawn from the page (a correspondence seek outlives the page)
  await a.fill('#days', '5');
  await a.click('#btn-seek');
  await until(a, () => /^seeking \(offer \d+\)$/.test(document.getElementById('status').textContent)
    && /5 days a move/.test(document.getElementById('seeks').textContent), null, 'the second seek listed');
  const five = (await lp.ok('seeks')).offers.find((o) => o.user === wName && o.time && o.time.days === 5).offer;
  await a.click(`#seeks button[data-cancel="${five}"]`);
  await until(a, (o) => document.getElementById('status').textContent === `offer ${o} cancelled`
    && !/5 days a move/.test(document.getElementById('seeks').textContent), five, 'the seek cancelled from the page');
  check(!(await lp.ok('seeks')).offers.some((o) => o.offer === five), 'the cancelled seek still listed');
  // A bot account's seek is marked as a bot's.
  const lr = await LineClient.open(linePort);
  lineClients.lr = lr;
  await lr.ok('hello', { version: 1 });
  await lr.ok('login', { user: 'robo', password: 'robo-password' });
  const roboSeek = (await lr.ok('seek', { rules: 'icc', color: 'black' })).offer;
  await a.click('#btn-refresh');
  await until(a, () => /robo \(a bot\): icc untimed/.test(document.getElementById('seeks').textContent), null,
    "the bot's seek marked");
  // who is online, the bot marked; "Challenge" fills in its name
  await a.click('#btn-who');
  await until(a, () => /robo \(a bot\), 0 games/.test(document.getElementById('who').textContent), null,
    'the bot in the online list');
  await a.click('#who button[data-who="robo"]');
  check(await a.inputValue('#challenge-user') === 'robo', 'Challenge did not fill in the name');
  // The seek list beyond one page (the lobby pages at 12000 bytes): ten
  // more players with sixteen seeks each, every one listed on the page.
  const crowd = [];
  for (let i = 0; i < 10; i++) {
    const l = await LineClient.open(linePort);
    lineClients[`crowd${i}`] = l;
    crowd.push(l);
    await l.ok('hello', { version: 1 });
    await l.ok('guest');
    for (let k = 0; k < 16; k++) await l.ok('seek', { rules: 'english', color: 'white' });
  }
  const firstPage = await lp.ok('seeks');
  check(firstPage.next !== undefined, `${firstPage.total} seeks fit one page: the paging is not exercised`);
  await a.click('#btn-refresh');
  await until(a, (n) => document.querySelectorAll('#seeks li').length === n, firstPage.total,
    `all ${firstPage.total} seeks listed`);
  crowd.forEach((l, i) => { l.close(); delete lineClients[`crowd${i}`]; });   // their seeks go with them

  // ---- 9. two live games on one page: "Play" from Your games, the other's news in the status ----
  const corr = offers.find((o) => o.user === wName && o.time && o.time.days === 3).offer;
  const g5 = (await lp.ok('accept', { offer: corr })).game;
  await until(a, (g) => window.krieg.state.game === g, g5, 'the correspondence game shown');
  // its clock says when the move runs out, and an absent opponent is no
  // "the game waits for them" (the correspondence probe)
  await until(a, () => /runs out \d{4}-\d\d-\d\d \d\d:\d\d/.test(document.getElementById('clocks').textContent), null,
    'the correspondence clock dated');
  await a.click('#btn-lobby');
  await a.click('#btn-refresh');
  await a.click(`#seeks button[data-offer="${roboSeek}"]`, { timeout: 10000 });
  await until(a, (g) => window.krieg.state.game !== g && window.krieg.state.game !== null, g5, "robo's game shown");
  const g6 = await a.evaluate(() => window.krieg.state.game);
  await typeMove(a, 'e4');                             // in g6
  // one's games mark the bot too
  await a.click('#btn-lobby');
  await a.click('#btn-history');
  await until(a, (g) => [...document.querySelectorAll('#history li')].some((li) => li.textContent.startsWith(`Game ${g}: `)
    && / – robo \(a bot\) \(icc\) in progress/.test(li.textContent)), g6, 'the bot marked in Your games');
  await a.click(`#history button[data-play="${g6}"]`, { timeout: 10000 });
  await until(a, (g) => window.krieg.state.game === g, g6, "robo's game shown again");
  // a spectator is told of the bot too: the live list and the seat's title
  // (only a player's view said it); and a reload keeps the seat watched
  // (it landed in the lobby: the browser probe)
  if (await c.isVisible('#btn-unwatch')) await c.click('#btn-unwatch');
  await c.click('#btn-live');
  await until(c, (g) => [...document.querySelectorAll('#live li')].some((li) => li.textContent.startsWith(`Game ${g}: `)
    && / – robo \(a bot\) \(icc\)/.test(li.textContent)), g6, 'the bot marked in the live list');
  await c.click(`#live button[data-watch="${g6}"]`, { timeout: 10000 });
  await until(c, (g) => window.krieg.watch.game === g, g6, 'the bot\'s game watched');
  check(/ – robo \(a bot\) \(icc\), watching$/.test(await c.textContent('#watch-title')),
    `the bot not marked in the seat's title: ${await c.textContent('#watch-title')}`);
  await c.reload();
  await until(c, (g) => window.krieg.watch.game === g && !document.getElementById('watch').hidden
    && /robo \(a bot\)/.test(document.getElementById('watch-title').textContent), g6, 'the seat taken again after a reload');
  await c.click('#btn-unwatch');
  // the seat left, and its step back in the tab's history taken, before the
  // reload (a traversal still under way aborts a reload: CI)
  await until(c, () => !document.getElementById('lobby').hidden && !history.state?.krieg, null, 'the seat left');
  await c.reload();
  await until(c, () => !document.getElementById('lobby').hidden && /^signed in as /.test(document.getElementById('status').textContent),
    null, 'a reload after the seat was left: the lobby');
  check(await c.evaluate(() => window.krieg.watch.game) === null, 'a seat left was taken again at a reload');
  await a.click('#btn-lobby');
  await a.click('#btn-history');
  await a.click(`#history button[data-play="${g5}"]`, { timeout: 10000 });
  await until(a, (g) => window.krieg.state.game === g, g5, 'the correspondence game played again');
  await lr.ok('move', { game: g6, move: 'e5' });
  await until(a, (g) => document.getElementById('status').textContent.startsWith(`Game ${g}: `), g6,
    "the other game's news in the status line");
  check(await a.evaluate(() => window.krieg.state.game) === g5, "the other game's news took the page there");
  await typeMove(a, 'd4');                             // in g5
  await lp.waitFor((m) => m.event === 'moved' && m.game === g5 && m.by === 'white');

  // ---- 10. a timed game: no Abort after both moved; adjourned and resumed from the page ----
  // (b is in the lobby since 6)
  const adjSeek = (await lp.ok('seek', { rules: 'icc', color: 'black', time: { base: 300, inc: 0 } })).offer;
  await b.click('#btn-refresh');
  await b.click(`#seeks button[data-offer="${adjSeek}"]`, { timeout: 10000 });
  await until(b, (g) => window.krieg.state.game !== g && window.krieg.state.rules === 'icc', g3, 'the timed game');
  const g7 = await b.evaluate(() => window.krieg.state.game);
  await typeMove(b, 'e4');
  await lp.ok('move', { game: g7, move: 'e5' });
  await toMove(b, 'white');
  await b.click('#btn-possible');
  // in SAN as the announcements write moves, not coordinates (the newcomer probe)
  await until(b, () => /^You may try: .*\bNf3\b.*\bd4\b/.test(document.getElementById('possible').textContent), null,
    'the possible tries shown in SAN, the pieces\' before the pawns\'');
  check(!/\b[a-h][1-8][a-h][1-8]\b/.test(await b.textContent('#possible')), 'a possible try in coordinates');
  // both sides have moved: no Abort offered, which the server would refuse
  // (the correspondence probe pressed it and was told so)
  check(!(await b.isVisible('#btn-abort')), 'Abort offered after both sides moved');
  await b.click('#btn-adjourn');
  await lp.waitFor((m) => m.event === 'adjourn_offer' && m.game === g7);
  await lp.ok('adjourn', { game: g7, action: 'accept' });
  await b.waitForSelector('#btn-unadjourn:visible', { timeout: 10000 });
  await until(b, () => /\(paused\)/.test(document.getElementById('clocks').textContent), null,
    'the adjourned clocks shown stopped');
  await b.click('#btn-unadjourn');
  await lp.waitFor((m) => m.event === 'unadjourned' && m.game === g7);
  await b.waitForSelector('#btn-adjourn:visible', { timeout: 10000 });
  // a challenge arriving while the game is shown is said once, and not again
  // when a reconnection's login pushes it again (a review)
  const standing = (await lp.ok('challenge', { user: bName, rules: 'icc', color: 'white' })).offer;
  const saidOf = () => b.evaluate(() => [...document.querySelectorAll('#log li')]
    .filter((li) => /challenges you/.test(li.textContent)).length);
  await until(b, () => [...document.querySelectorAll('#log li')].some((li) => /challenges you/.test(li.textContent)),
    null, 'the challenge during the game said');
  const saidBefore = await saidOf();
  // the connection lost under the page mid-game: it reconnects by itself, resumes, and plays on
  await b.evaluate(() => window.krieg.net.ws.close());
  await until(b, () => document.getElementById('status').textContent.startsWith('connection lost'), null,
    'the lost connection said');
  await until(b, () => document.getElementById('status').textContent.startsWith('reconnected as '), null,
    'the page reconnected', 15000);
  check(await b.evaluate(() => !document.getElementById('game').hidden && window.krieg.state.game) === g7,
    'the game shown again after the reconnection');
  check(await b.evaluate((o) => document.querySelector(`#challenges button[data-accept="${o}"]`) !== null, standing),
    'the standing challenge listed again after the reconnection');
  check(await saidOf() === saidBefore, 'the standing challenge said again after the reconnection');
  await lp.ok('cancel', { offer: standing });
  await typeMove(b, 'd4');
  await lp.waitFor((m) => m.event === 'moved' && m.game === g7 && m.ply === 3);
  // words to the opponent, from the page
  await b.fill('#say-text', 'well played');
  await b.click('#say-form button[type="submit"]');
  const chat = await lp.waitFor((m) => m.event === 'chat' && m.game === g7);
  check(chat.text === 'well played' && chat.color === 'white', `the chat: ${JSON.stringify(chat)}`);
  await heard(b, 'announcements', /White says: "well played"/);
  // the opponent muted from the page: their words stop reaching it
  await b.click('#btn-mute');
  await until(b, (who) => document.getElementById('status').textContent === `muted ${who}`, lp.user, 'the mute answered');
  await lp.ok('say', { game: g7, text: 'MUTED-WORDS' });
  await lp.ok('say', { game: g7, text: 'and more' });
  // a barrier: b's answer comes after anything sent to b before it
  const listed = await b.evaluate(() => window.krieg.net.call('mutes'));
  check(listed.muted.length === 1 && listed.muted[0] === lp.user, `the mutes listed: ${JSON.stringify(listed)}`);
  check(!(await frames(b)).some((l) => l.includes('MUTED-WORDS')), 'a muted opponent\'s words reached the page');
  await lp.ok('resign', { game: g7 });

  // ---- 11. a password an admin set: the page asks for one's own, then signs in ----
  const n = await newPage();
  pages.n = n;
  await signIn(n, 'newbie', 'admin-set-password', false);
  await until(n, () => document.getElementById('status').textContent === 'signed in as newbie', null, 'newbie signed in');
  const ln = await LineClient.open(linePort);
  await ln.ok('hello', { version: 1 });
  await ln.ok('login', { user: 'newbie', password: 'newbie-own-password' });   // the one chosen
  ln.close();

  // ---- 12. messages: one left for a page in the lobby, answered and deleted from it ----
  const lu = await LineClient.open(linePort);
  lineClients.lu = lu;
  await lu.ok('hello', { version: 1 });
  await lu.ok('login', { user: 'ump', password: 'umpire-password' });
  await until(n, () => !document.getElementById('lobby').hidden, null, 'newbie in the lobby');
  await lu.ok('message', { user: 'newbie', text: 'welcome to the club' });
  await until(n, () => /^ump, \d{4}-\d\d-\d\d \d\d:\d\d: "welcome to the club" /.test(document.querySelector('#messages li')?.textContent || ''),
    null, 'the message listed');
  await until(n, () => document.getElementById('status').textContent === 'a message from ump: "welcome to the club"',
    null, 'the message said');
  await n.click('#messages button[data-reply]');
  check(await n.inputValue('#message-user') === 'ump', 'Reply fills in the sender');
  await n.fill('#message-text', 'thank you');
  await n.click('#btn-message');
  const reply = await lu.waitFor((m) => m.event === 'message');
  check(reply.from === 'newbie' && reply.text === 'thank you', `the reply: ${JSON.stringify(reply)}`);
  await n.click('#messages button[data-delete-message]');
  await until(n, () => document.querySelectorAll('#messages li').length === 0, null, 'the message deleted');
  check(await n.evaluate(() => getComputedStyle(document.getElementById('messages'), '::before').content) === '"No messages."',
    'an empty mailbox not said');
  check((await lu.ok('messages')).total === 1, 'the reply kept for its reader');
  // the lobby after a lost connection: shown again, and live; a list asked
  // for while the connection is down is refused in words, not thrown
  await n.evaluate(() => { window.krieg.net.ws.close(); document.getElementById('btn-who').click(); });
  await until(n, () => document.getElementById('status').textContent.startsWith('reconnected as newbie'), null,
    'the lobby page reconnected', 15000);
  await lu.ok('message', { user: 'newbie', text: 'still there?' });
  await until(n, () => /"still there\?"/.test(document.querySelector('#messages li')?.textContent || ''),
    null, 'a message after the reconnection listed');
  lu.close();
  delete lineClients.lu;
  // newbie follows a friend from the online list: the friend's going and coming are said
  const friend = async (how) => {
    const l = await LineClient.open(linePort);
    await l.ok('hello', { version: 1 });
    await l.ok(how, { user: 'friend1', password: 'friend-password' });
    return l;
  };
  let lf = await friend('register');
  await n.click('#btn-who');
  await n.click('#who button[data-follow="friend1"]', { timeout: 10000 });
  await until(n, () => /^following friend1/.test(document.getElementById('status').textContent), null, 'friend1 followed');
  lf.close();
  await until(n, () => document.getElementById('status').textContent === 'friend1 has departed', null, 'the departure said');
  lf = await friend('login');
  await until(n, () => document.getElementById('status').textContent === 'friend1 has arrived', null, 'the arrival said');
  // the follow outlives the page's lost connection: asked again at the reconnection
  await n.evaluate(() => window.krieg.net.ws.close());
  await until(n, () => document.getElementById('status').textContent.startsWith('reconnected as newbie'), null,
    'the follower reconnected', 15000);
  lf.close();
  await until(n, () => document.getElementById('status').textContent === 'friend1 has departed', null,
    'the departure said after the reconnection');
  // and a reload of the page
  lf = await friend('login');
  await until(n, () => document.getElementById('status').textContent === 'friend1 has arrived', null,
    'the arrival said after the reconnection');
  await n.reload();
  await until(n, () => document.getElementById('status').textContent === 'signed in as newbie', null, 'newbie reloaded');
  lf.close();
  await until(n, () => document.getElementById('status').textContent === 'friend1 has departed', null,
    'the departure said after a reload');

  // The clock's words, as krieg shows them (a correspondence clock read "4320:00").
  const clocks = await a.evaluate(async () => {
    const { fmtClock } = await import('/words.js');
    return [299001, 3723000, 3 * 86400000, 60 * 86400000 - 61000].map(fmtClock);
  });
  check(clocks.join(' ') === '5:00 1:02:03 3d 00:00 59d 23:58', `fmtClock: ${clocks.join(' ')}`);
  // Regressions (the time probe): time controls as krieg writes them (100 s
  // was "1.6666666666666667+0"); an away deadline counted from the server's
  // `left`, not its `until` against this computer's clock (2 minutes fast:
  // "in 0:00" of a minute's grace).
  const times = await a.evaluate(async () => {
    const { timeText, awayDeadline } = await import('/words.js');
    return [{ base: 100, inc: 0 }, { base: 20, inc: 0 }, { base: 300, inc: 2 }, { base: 30, inc: 0.5 }, { base: 90.5, inc: 2 }]
      .map(timeText).concat([awayDeadline({ until: 1, left: 60000 }, 1000), awayDeadline({ until: 5 }, 1000)]);
  });
  check(times.join(' ') === '1:40+0 0:20+0 5+2 0.5+0.5 1:30.5+2 61000 5', `timeText, awayDeadline: ${times.join(' ')}`);

  if (errors.length) throw new Error(`errors in the pages: ${errors.join('; ')}`);
  for (const l of [la, lb, lc, lp, lr]) l.close();
  console.log(`browser: a watched game by drag, clicks and typing, a reload resumed, the same lines as on the line transport, record and PGN, the true board replayed, a game against a line player with an umpire in the chair, nost if-quiet, crazykrieg's reserves and a drop, a pushed challenge, a rematch, standings and a profile with the player's games, a pairing by a director, a followed player's game, untimed and correspondence seeks, a seek list of several pages, the move in the tab's title, two games on one page, an adjournment, a lost connection made again, a muted opponent, a password to replace, a message left, answered and deleted, a followed player's coming and going, the message of the day (${((Date.now() - T0) / 1000).toFixed(1)} s); screenshot ${shot}`);
} catch (e) {
  await fail(e.stack || String(e));
}
await browser.close();
d.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });
