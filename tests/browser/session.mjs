// session.mjs — the web client's bookkeeping across games and sessions, in
// a real browser (Debian's /usr/bin/chromium, headless, playwright-core)
// against a real kriegd; the other players are line-protocol clients:
//   1. clocks: an untimed game shown after a timed one shows no clock, as
//      a seat watched after a timed one;
//   2. offers routed by game: a draw or adjourn offer, or words, in a game
//      not on screen said in the status line with its game (nothing asked,
//      nothing sent for the game shown), answered later in that game with
//      its buttons; the opponent's offer in the game shown listed and
//      answered with its buttons (never a modal question), the answer sent
//      for that game and a refused answer said; an umpire in the chair
//      never asked;
//   3. gollon's en passant: the victim's pawn taken from behind the landing
//      square, also after a reload;
//   4. the promotion chooser gone once the try is typed instead, the
//      position changes, or another game starts;
//   5. the seek list says rated and the rating range; a refused accept is said;
//   6. a kick's reason stays said after the connection closes;
//   7. a session lost (its token refused at the reconnection) and another
//      account signed in in the same tab: nothing of the first's left, shown
//      or hidden (game, challenges, profile, the umpire's true board), and
//      the new account's game events reach its own game view.
// Every failing check is reported (a scenario stops at its first one), then
// the test fails.  KRIEG_WEB_ROOT=DIR serves the page from DIR instead of the
// copy built into kriegd (to run these tests against another client-web).
// Usage: node session.mjs KRIEGD
import { readFileSync } from 'node:fs';
import { LineClient } from './line.mjs';
import {
  check, findBrowser, heard, launchBrowser, recordSent, signIn, sleep, startKriegd, until,
} from './daemon.mjs';

const [kriegd] = process.argv.slice(2);
const browserPath = findBrowser();
const T0 = Date.now();
const { log, port, linePort, finish } = await startKriegd(kriegd, 'krieg-session-', [
  ['ump', 'umpire-password', '--role', 'umpire'],
  ['boss', 'boss-password', '--role', 'admin'],
], process.env.KRIEG_WEB_ROOT ? ['--set', `web_root=${process.env.KRIEG_WEB_ROOT}`] : []);

const browser = await launchBrowser(browserPath);
const errors = [];
// One context per person.  Every frame a page sends is kept (window.sent),
// every question it asks too (p.asked); a question is answered by
// p.onDialog (yes, unless a scenario says otherwise).
const newPage = async (name) => {
  const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
  await recordSent(ctx);
  const p = await ctx.newPage();
  p.setDefaultTimeout(5000);
  p.name = name;
  p.asked = [];
  p.onDialog = (dlg) => dlg.accept();
  p.on('pageerror', (e) => errors.push(`${name}: ${e}`));
  // (a connection refused while the test holds the page offline is the test's doing)
  p.on('console', (m) => {
    if (m.type() === 'error' && !/WebSocket connection to .* failed/.test(m.text())) errors.push(`${name}: ${m.text()}`);
  });
  p.on('dialog', (dlg) => { p.asked.push(dlg.message()); p.onDialog(dlg); });
  await p.goto(`https://127.0.0.1:${port}/`);
  await p.waitForSelector('#btn-guest:visible', { timeout: 10000 });
  return p;
};
const line = async (user, password, how = 'login') => {
  const l = await LineClient.open(linePort);
  await l.ok('hello', { version: 1 });
  await l.ok(how, { user, password });
  return l;
};
const text = (p, sel) => p.evaluate((s) => document.querySelector(s).textContent.trim(), sel);
const statusIs = async (p, re, what) => {
  try {
    await until(p, (src) => new RegExp(src).test(document.getElementById('status').textContent), re.source, what);
  } catch (e) {
    throw new Error(`${e.message}: the status says "${await text(p, '#status')}"`);
  }
};
const lines = (p, id) => p.evaluate((i) => [...document.querySelectorAll(`#${i} li`)].map((li) => li.textContent), id);
const sent = (p, pred) => p.evaluate(() => window.sent).then((all) => all.filter(pred));
const answered = (p) => until(p, () => window.krieg.net.pending.size === 0, null, 'the answer to a request');
const typeMove = async (p, mv) => {
  await p.fill('#move', mv);
  await p.click('#move-form button[type="submit"]');
  await answered(p);
};
const shown = (p, game) => until(p, (g) => window.krieg.state.game === g && !document.getElementById('game').hidden,
  game, `game ${game} shown`);
// One's own game opened again from Your games.
const play = async (p, game) => {
  if (await p.isVisible('#btn-lobby')) await p.click('#btn-lobby');
  await p.click('#btn-history');
  await p.click(`#history button[data-play="${game}"]`, { timeout: 5000 });
  await shown(p, game);
};
// A line player's seek taken from the page: the game it starts.
const takeSeek = async (p, l, terms) => {
  const { offer } = await l.ok('seek', terms);
  const r = await p.evaluate((o) => window.krieg.net.call('accept', { offer: o }), offer);
  check(r.ok, `accept: ${JSON.stringify(r)}`);
  await shown(p, r.game);
  return r.game;
};
const failures = [];
const scenario = async (name, f) => {
  try { await f(); } catch (e) { failures.push(`${name}: ${e.message}`); }
};

const suffix = String(process.pid % 100000);
const [alice, bob, carl, dave] = ['alice', 'bob', 'carl', 'dave'].map((n) => `${n}${suffix}`);
const a = await newPage('alice'), u = await newPage('ump'), g = await newPage('guest');
await signIn(a, alice, 'alice-password', true);
await signIn(u, 'ump', 'umpire-password', false);
await g.click('#btn-guest');
await g.waitForSelector('#lobby:visible', { timeout: 5000 });
const lb = await line(bob, 'bob-password', 'register'), lc = await line(carl, 'carl-password', 'register');
(await line(dave, 'dave-password', 'register')).close();
const la = await line(alice, 'alice-password');   // alice's other session (her phone, say)
const boss = await line('boss', 'boss-password');
// alice's games: g1 untimed against bob, g2 timed against carl (White in
// both), g3 untimed against carl (Black); bob's against carl: g4 timed, g0 untimed.
const g1 = await takeSeek(a, lb, { rules: 'icc', color: 'black' });
const g2 = await takeSeek(a, lc, { rules: 'icc', color: 'black', time: { base: 300, inc: 0 } });
const lineGame = async (time) => {
  const { offer } = await lb.ok('seek', { rules: 'english', color: 'white', ...(time ? { time } : {}) });
  return (await lc.ok('accept', { offer })).game;
};
const g4 = await lineGame({ base: 600, inc: 0 }), g0 = await lineGame(null);
// Two players registered as line clients, a ten-minute icc game between
// them, White's e4 played: { lw, lb, game }.
const timedPair = async (white, black) => {
  const lw = await line(`${white}${suffix}`, `${white}-password`, 'register');
  const lbk = await line(`${black}${suffix}`, `${black}-password`, 'register');
  const { offer } = await lw.ok('seek', { rules: 'icc', color: 'white', time: { base: 600, inc: 0 } });
  const game = (await lbk.ok('accept', { offer })).game;
  await lw.ok('move', { game, move: 'e2e4' });
  return { lw, lb: lbk, game };
};

await scenario('clocks', async () => {
  await until(a, () => /white \d+:\d\d/.test(document.getElementById('clocks').textContent), null, 'the timed clock shown');
  await play(a, g1);
  await sleep(600);   // the clock's ticker runs every 250 ms
  check(await text(a, '#clocks') === '', `an untimed game shows a clock: "${await text(a, '#clocks')}"`);
});

await scenario('clocks watched', async () => {
  // a seat watched: the timed game, then an untimed one
  const untimed = g0;
  await u.click('#btn-live');
  await u.click(`#live button[data-watch="${g4}"]`, { timeout: 5000 });
  await until(u, () => /white \d+:\d\d/.test(document.getElementById('watch-clocks').textContent), null, 'the timed clock watched');
  await u.click('#btn-unwatch');
  await u.click('#btn-live');
  await u.click(`#live button[data-watch="${untimed}"]`, { timeout: 5000 });
  await until(u, (x) => window.krieg.watch.game === x, untimed, 'the untimed game watched');
  await sleep(600);
  check(await text(u, '#watch-clocks') === '', `an untimed game watched shows a clock: "${await text(u, '#watch-clocks')}"`);
  await u.click('#btn-unwatch');
  await u.waitForSelector('#lobby:visible', { timeout: 5000 });
});
await scenario('a seat taken while a player is away', async () => {
  // fred against erin, timed; erin leaves; then the seat is taken: the
  // page knew nothing of it until erin came back (the reply said nothing).
  const { lw: ld, lb: le, game } = await timedPair('fred', 'erin');
  le.close();
  await ld.waitFor((m) => m.event === 'opponent_away' && m.game === game);
  await u.click('#btn-live');
  await u.click(`#live button[data-watch="${game}"]`, { timeout: 5000 });
  await until(u, (x) => window.krieg.watch.game === x, game, 'the game watched');
  await until(u, () => /^Black is away: back by .* or the game is lost by abandonment$/.test(document.getElementById('watch-away').textContent),
    null, `Black away in the seat view`);
  await u.click('#btn-unwatch');
  await u.waitForSelector('#lobby:visible', { timeout: 5000 });
  // paused by an umpire: the live list says so
  const lu = await line('ump', 'umpire-password');
  await lu.ok('umpire', { game });
  await lu.ok('clock_pause', { game, reason: 'a break' });
  await u.click('#btn-live');
  await until(u, (x) => [...document.querySelectorAll('#live li')].some((li) => li.textContent.startsWith(`Game ${x}:`)
    && li.textContent.includes('to move (paused by the umpire)')), game, 'the paused game in the live list');
  lu.close();
  ld.close();
});
await scenario("the chair of a game whose player is away", async () => {
  // (the director probe) the chair heard no deadline after its reply: it
  // counted down through a pause; a refusal stayed in the status line after
  // a later action succeeded; an adjudicated game kept every umpire button.
  const { lw: lg, lb: lh, game } = await timedPair('gina', 'hank');
  await u.click('#btn-live');
  await u.click(`#live button[data-umpire="${game}"]`, { timeout: 5000 });
  await until(u, (x) => window.krieg.watch.game === x && window.krieg.watch.seat === 'umpire', game, 'the chair taken');
  lh.close();
  await until(u, () => /^Black is away: back by .* or the game is lost by abandonment$/.test(document.getElementById('watch-away').textContent),
    null, 'Black away told to the chair');
  await u.click('#umpire-form button[data-act="add_time"][data-color="white"]');   // no reason written: refused here
  await statusIs(u, /^Write a reason/, 'the missing reason said');
  await u.fill('#umpire-text', 'a break');
  await u.click('#umpire-form button[data-act="clock_pause"]');
  await statusIs(u, /^Pause clocks: done$/, 'the pause said done');
  await until(u, () => document.getElementById('watch-away').textContent === 'Black is away (no deadline: the game waits for them)',
    null, 'no deadline while paused');
  await u.fill('#umpire-text', 'round over');
  await u.click('#umpire-form button[data-act="adjudicate"][data-result="1-0"]');
  await until(u, () => document.getElementById('umpire-form').hidden && / over$/.test(document.getElementById('watch-title').textContent),
    null, "the chair's tools gone with the game");
  check(!/\(paused\)/.test(await text(u, '#watch-clocks')), `the clocks still paused: ${await text(u, '#watch-clocks')}`);
  check(u.asked.length === 1 && /^Adjudicate 1-0\?$/.test(u.asked[0]), `the questions: ${JSON.stringify(u.asked)}`);
  u.asked.length = 0;   // (the adjudication's own question: a later scenario counts those offers make)
  await u.click('#btn-unwatch');
  await u.waitForSelector('#lobby:visible', { timeout: 5000 });
  lg.close();
});
await scenario("a reload after one's own game began over a seat watched", async () => {
  // (a review) the seat watched was kept for a reload after the page had
  // gone to the player's own new game: the reload showed the seat instead
  await g.click('#btn-live');
  await g.click(`#live button[data-watch="${g4}"]`, { timeout: 5000 });
  await until(g, (x) => window.krieg.watch.game === x && !document.getElementById('watch').hidden, g4, 'the seat watched');
  const own = await takeSeek(g, lb, { rules: 'icc', color: 'white' });
  await g.reload();
  await until(g, (x) => window.krieg.state.game === x && !document.getElementById('game').hidden, own, 'the own game after a reload');
  check(await g.isHidden('#watch'), 'the seat watched was shown over the own game after a reload');
  await g.evaluate((x) => window.krieg.net.call('resign', { game: x }), own);
  await until(g, () => window.krieg.state.toMove === null, null, 'the own game over');
  await g.click('#btn-lobby');
  await g.waitForSelector('#lobby:visible', { timeout: 5000 });
});
let g3;

await scenario('offers in a game not shown', async () => {
  g3 = await takeSeek(a, lc, { rules: 'icc', color: 'white' });                              // untimed, alice Black
  await play(a, g1);                                                                          // alice White here
  a.asked.length = 0;
  const before = (await sent(a, () => true)).length;
  await lc.ok('draw', { game: g2, action: 'offer' });                                         // by Black, in g2
  await statusIs(a, new RegExp(`^Game ${g2}: Black offers a draw`), 'the offer in g2 said');
  await lc.ok('adjourn', { game: g2, action: 'offer' });
  await statusIs(a, new RegExp(`^Game ${g2}: Black offers to adjourn`), 'the adjourn offer in g2 said');
  await lc.ok('draw', { game: g3, action: 'offer' });                                         // by White, in g3
  await statusIs(a, new RegExp(`^Game ${g3}: White offers a draw`), 'the offer in g3 said');
  await lc.ok('say', { game: g3, text: 'your move' });
  await statusIs(a, new RegExp(`^Game ${g3}: White says: "your move"`), 'the words in g3 said');
  await a.evaluate(() => window.krieg.net.call('ping'));                                      // a barrier
  check(a.asked.length === 0, `asked about another game's offer: ${JSON.stringify(a.asked)}`);
  const answers = (await a.evaluate(() => window.sent)).slice(before).filter((m) => m.type === 'draw' || m.type === 'adjourn');
  check(answers.length === 0, `answers sent for an offer not seen: ${JSON.stringify(answers)}`);
  check((await lines(a, 'announcements')).every((l) => !/offer/.test(l)), "another game's offer in the game shown");
  // answered in its own game: the offers listed, the buttons to answer them
  await play(a, g2);
  await heard(a, 'announcements', /Black offers a draw/, 'the draw offer listed in g2');
  await a.waitForSelector('#btn-adjourn-accept:visible', { timeout: 3000 });
  await a.click('#btn-draw-accept', { timeout: 3000 });
  const over = await lc.waitFor((m) => m.event === 'game_over' && m.game === g2, 3000);
  check(over.result === '1/2-1/2', `g2 ended ${over.result}`);
});

await scenario("the opponent's offer in the game shown", async () => {
  await play(a, g1);
  a.asked.length = 0;
  const mark = (await a.evaluate(() => window.sent.length));
  await lb.ok('draw', { game: g1, action: 'offer' });
  await heard(a, 'announcements', /Black offers a draw/, "the opponent's offer listed live");
  await a.waitForSelector('#btn-draw-decline:visible', { timeout: 3000 });
  check(/offers a draw/.test(await text(a, '#offer')), `the offer not shown: "${await text(a, '#offer')}"`);
  await a.click('#btn-draw-decline');
  const decline = await lb.waitFor((m) => m.event === 'draw_declined' && m.game === g1, 3000);
  check(decline.by === 'white' && a.asked.length === 0, `the answer: ${JSON.stringify(decline)}, asked ${a.asked}`);
  // (one offer a side a move: a move each before the next)
  await typeMove(a, 'd2d4');
  await lb.ok('move', { game: g1, move: 'd7d5' });
  await until(a, () => window.krieg.state.toMove === 'white', null, "Black's move heard");
  // an answer refused (her other session declined first, its news still on
  // the way to the page) is said
  await lb.ok('draw', { game: g1, action: 'offer' });
  await a.waitForSelector('#btn-draw-accept:visible', { timeout: 3000 });
  await a.evaluate(() => {
    const { net } = window.krieg, f = net.onEvent;
    net.onEvent = (ev) => { if (ev.event === 'draw_declined') net.onEvent = f; else f(ev); };
  });
  await la.ok('draw', { game: g1, action: 'decline' });
  await a.click('#btn-draw-accept');
  await statusIs(a, /^no draw offer to accept$/, 'the refused answer said');
  const answers = (await a.evaluate(() => window.sent)).slice(mark).filter((m) => m.type === 'draw');
  check(answers.length === 2 && answers.every((m) => m.game === g1), `the answers sent: ${JSON.stringify(answers)}`);
  // an offer made from her other session, listed live, asked about nowhere
  a.asked.length = 0;
  a.onDialog = (dlg) => dlg.accept();
  await la.ok('draw', { game: g1, action: 'offer' });
  await until(a, () => [...document.querySelectorAll('#announcements li')].filter((li) => /White offers a draw/.test(li.textContent)).length === 1,
    null, 'her own offer listed');
  check(a.asked.length === 0 && await a.isHidden('#btn-draw-accept'), 'asked to accept her own offer');
  await lb.ok('draw', { game: g1, action: 'decline' });
});

await scenario('an umpire in the chair', async () => {
  if (await u.isVisible('#btn-unwatch')) await u.click('#btn-unwatch');
  await u.click('#btn-live');
  await u.click(`#live button[data-umpire="${g4}"]`, { timeout: 5000 });
  await u.waitForSelector('#umpire-form:visible', { timeout: 5000 });
  await lb.ok('move', { game: g4, move: 'e2e4' });
  await lc.ok('draw', { game: g4, action: 'offer' });
  await lb.ok('ping');   // a barrier: the offer is out to the chair
  await u.evaluate(() => window.krieg.net.call('ping'));
  check(u.asked.length === 0, `the umpire was asked: ${JSON.stringify(u.asked)}`);
  await heard(u, 'watch-announcements', /Black offers a draw/, 'the offer in the chair');
  check((await sent(u, (m) => m.type === 'draw')).length === 0, 'the umpire answered a draw offer');
});

await scenario("gollon's en passant", async () => {
  const ep = await takeSeek(a, lb, { rules: 'gollon', color: 'white' });                     // alice Black
  await lb.ok('move', { game: ep, move: 'e2e4' });
  await typeMove(a, 'a7a6');
  await lb.ok('move', { game: ep, move: 'e4e5' });
  await typeMove(a, 'd7d5');
  await lb.ok('move', { game: ep, move: 'e5d6' });                                            // e.p.
  await heard(a, 'announcements', /en passant/, 'the en passant said');
  const board = () => a.evaluate(() => [...document.querySelectorAll('#board text.piece')].map((t) => t.dataset.on).sort().join(' '));
  check(!/\bd5\b/.test(await board()), `the pawn taken en passant still on d5: ${await board()}`);
  await a.reload();
  await a.waitForSelector('#game:visible', { timeout: 5000 });
  await play(a, ep);
  check(!/\bd5\b/.test(await board()), `after a reload, the pawn taken en passant on d5: ${await board()}`);
  await lb.ok('resign', { game: ep });
});

await scenario('the promotion chooser', async () => {
  await play(a, g1);                                                                          // alice White, to move
  const promo = async (what) => {
    await a.click('#board rect[data-square="a2"]');
    await a.click('#board rect[data-square="a8"]');
    check(await a.isVisible('#promo'), `no promotion chooser (${what})`);
  };
  await promo('typed');
  await typeMove(a, 'e4');
  check(await a.isHidden('#promo'), 'the chooser outlives a typed try');
  await promo('position');
  await lb.ok('move', { game: g1, move: 'e7e5' });
  await until(a, () => document.getElementById('promo').hidden, null, 'the chooser gone once the opponent moved');
  await promo('new game');
  const g5 = await takeSeek(a, lb, { rules: 'icc', color: 'black' });
  check(await a.isHidden('#promo'), 'the chooser outlives its game');
  check((await sent(a, (m) => m.type === 'move' && /^a2a8/.test(m.move || ''))).length === 0, 'a promotion sent');
  await lb.ok('resign', { game: g5 });
});

const { offer: rated } = await lb.ok('seek', { rules: 'icc', color: 'white', rated: true });
await lb.ok('seek', { rules: 'english', color: 'white', rating_min: 1800 });
await g.click('#btn-refresh');
await until(g, () => document.querySelectorAll('#seeks li').length >= 2, null, 'the seeks listed');

await scenario('the seek list', async () => {
  const list = await lines(g, 'seeks');
  check(list.some((l) => /icc untimed white, rated /.test(l)) && list.some((l) => /english untimed white, ratings 1800–4000 /.test(l)),
    `the seek list: ${JSON.stringify(list)}`);
});

await scenario('a refused accept', async () => {
  await g.click(`#seeks button[data-offer="${rated}"]`);
  await answered(g);
  const reply = await g.evaluate(() => window.krieg.net.frames.map((f) => JSON.parse(f)).filter((m) => m.ok === false).at(-1));
  check(reply && await text(g, '#status') === reply.error.message,
    `a refused accept: status "${await text(g, '#status')}", reply ${JSON.stringify(reply)}`);
});

await scenario('a kick', async () => {
  const who = await g.evaluate(() => window.krieg.state.user);
  await boss.ok('kick', { user: who, reason: 'cool down' });
  await until(g, () => window.krieg.net.ws.readyState === WebSocket.CLOSED, null, 'the connection closed');
  await sleep(300);
  check(/cool down/.test(await text(g, '#status')), `the kick's reason: "${await text(g, '#status')}"`);
});

// The page's connection lost, the account's password changed meanwhile
// (its token refused at the reconnection): the page asks for a sign-in.
const loseSession = async (p, l, user, old) => {
  const ctx = p.context();
  await ctx.setOffline(true);
  await p.evaluate(() => window.krieg.net.ws.close());
  await l.ok('passwd', { old, new: `${old}-2` });
  await ctx.setOffline(false);
  await until(p, () => !document.getElementById('login').hidden, null, 'the sign-in asked again', 20000);
};

await scenario('another account in the same tab', async () => {
  // alice: a game shown, a challenge to her listed, a profile looked up
  await play(a, g1);
  await a.click('#btn-lobby');
  await lc.ok('challenge', { user: alice, rules: 'nost', time: { days: 5 } });
  await until(a, () => document.querySelectorAll('#challenges li').length > 0, null, 'the challenge listed');
  await a.click('#btn-who');
  await a.click(`#who button[data-profile="${carl}"]`, { timeout: 5000 });
  await until(a, () => !document.getElementById('profile').hidden, null, 'the profile shown');
  await play(a, g1);
  await loseSession(a, la, alice, 'alice-password');
  await signIn(a, dave, 'dave-password', false);
  const left = await a.evaluate(() => ({
    title: document.getElementById('game-title').textContent,
    announcements: document.querySelectorAll('#announcements li').length,
    pieces: document.querySelectorAll('#board text.piece').length,
    challenges: document.getElementById('challenges').textContent,
    profile: document.getElementById('profile').textContent,
    game: window.krieg.state.game,
  }));
  check(!left.title && !left.announcements && !left.pieces && !left.challenges && !left.profile && left.game === null,
    `alice's left for dave: ${JSON.stringify(left)}`);
});

await scenario("another account in the umpire's tab", async () => {
  // ump in the chair of g4 (bob against carl); bob signs in in that tab
  const lu = await line('ump', 'umpire-password');
  await until(u, (x) => window.krieg.watch.game === x && window.krieg.watch.board.pieces.size === 32, g4, 'the true board');
  await loseSession(u, lu, 'ump', 'umpire-password');
  await signIn(u, bob, 'bob-password', false).catch(() => {});   // bob's games may open instead of the lobby
  await until(u, (who) => window.krieg.state.user === who, bob, 'bob signed in');
  const hidden = await u.evaluate(() => ({
    pieces: document.querySelectorAll('#watch-board text.piece').length,
    announcements: document.querySelectorAll('#watch-announcements li').length,
    tries: document.getElementById('tries-white').textContent,
  }));
  check(!hidden.pieces && !hidden.announcements && !hidden.tries, `the umpire's chair left for bob: ${JSON.stringify(hidden)}`);
  await play(u, g4);
  await lc.ok('move', { game: g4, move: 'e7e5' });
  await until(u, () => document.querySelector('#announcements li[data-event="moved"]') !== null, null,
    "carl's move in bob's own game view");
  check(await u.evaluate(() => document.querySelectorAll('#watch-announcements li').length) === 0, 'the move went to the chair');
  lu.close();
});

if (errors.length) failures.push(`errors in the pages: ${errors.join('; ')}`);
for (const l of [lb, lc, la, boss]) l.close();
await browser.close();
if (failures.length) {
  console.error(`FAIL: session.mjs\n  ${failures.join('\n  ')}\n--- kriegd log (tail):\n${readFileSync(log, 'utf8').split('\n').slice(-30).join('\n')}`);
  finish(1);
}
console.log(`browser sessions: no clock for an untimed game, who is away told to a seat taken later, offers and words routed by game and answered in it, an umpire never asked, gollon's en passant, the promotion chooser, rated seeks and a refused accept, a kick's reason, another account after a lost session (${((Date.now() - T0) / 1000).toFixed(1)} s)`);
finish(0);
