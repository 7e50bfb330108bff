// deadpath.mjs — the web client notices a dead path (a phone's network
// gone, a NAT that forgot the connection: no FIN, no RST), in a real
// browser (Debian's /usr/bin/chromium, headless, playwright-core) against a
// real kriegd, and takes its own freeze (a laptop's sleep, a phone's
// suspended tab: no timer, no handler runs; see stopPage) for no silence
// of the server's.  The page reaches kriegd's web door through a TCP relay
// run here.  Mid-game, the game quiet, the relay holds what kriegd sends:
// the page pings (net.js QUIET_MS), is stopped for longer than DEAD_MS,
// and the answer comes just after the thaw (the network back a moment
// after the wake): the page must keep its connection (the same socket, no
// drop said, no reconnection) and play on.  Then the relay freezes every
// connection it holds (nothing forwarded either way, nothing closed),
// while new connections are forwarded as before.  The page, its game live
// and the server silent, pings, is stopped again past DEAD_MS, and must
// take the connection for lost DEAD_MS after its thaw (not at once: its
// freeze is not the server's silence), say so in the status line,
// reconnect through the relay, resume its session, and play on: a try
// answered, the opponent told of it.  A client that waits for the socket's
// close waits for ever.  KRIEG_WEB_ROOT=DIR serves the page from DIR
// instead of the copy built into kriegd (to run this against another
// client-web).
// Usage: node deadpath.mjs KRIEGD
import net from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { LineClient } from './line.mjs';
import { check, findBrowser, launchBrowser, signIn, sleep, startKriegd, until } from './daemon.mjs';

const QUIET_MS = 15000, DEAD_MS = 10000;   // net.js's
const STOP_MS = DEAD_MS + 1000;   // the page's freeze: longer than DEAD_MS

const [kriegd] = process.argv.slice(2);
const browserPath = findBrowser();
const T0 = Date.now();
const { log, port, linePort, finish } = await startKriegd(kriegd, 'krieg-deadpath-', [],
  process.env.KRIEG_WEB_ROOT ? ['--set', `web_root=${process.env.KRIEG_WEB_ROOT}`] : []);

// The relay: each connection accepted is joined to a new one to kriegd's
// web door.  freeze() turns every connection held now into a dead path:
// what arrives from either end is dropped, and neither end is closed (a
// close from kriegd's side is not passed on either).  Connections made
// after it are forwarded normally.  hold() keeps what kriegd sends on the
// connections made so far (the page's go through), release() delivers it.
const links = [];
let refusing = false;   // new connections closed at once (the network down)
const relay = net.createServer((down) => {
  if (refusing) { down.destroy(); return; }
  const up = net.connect(port, '127.0.0.1');
  const link = { down, up, frozen: false, held: null, bytes: 0 };
  links.push(link);
  const pass = (from, to) => {
    from.on('data', (d) => {
      if (link.frozen) return;
      if (link.held && from === up) { link.held.push(d); return; }
      link.bytes += d.length;
      to.write(d);
    });
    from.on('end', () => { if (!link.frozen) to.end(); });
    from.on('close', () => { if (!link.frozen) to.destroy(); });
    from.on('error', () => {});
  };
  pass(down, up);
  pass(up, down);
});
await new Promise((r) => relay.listen(0, '127.0.0.1', r));
const relayPort = relay.address().port;
const freeze = () => links.forEach((l) => { l.frozen = true; });
const hold = () => links.forEach((l) => { l.held = []; });
const release = () => links.forEach((l) => {
  const q = l.held ?? [];
  l.held = null;
  for (const d of q) { l.bytes += d.length; l.down.write(d); }
});

// The page's freeze: every renderer process of the browser run here (a
// descendant of this process, --type=renderer) stopped (SIGSTOP) for ms,
// then continued, as a laptop's sleep or a phone's suspended tab stops it:
// no timer and no message handler runs meanwhile, no Page Lifecycle event
// fires, and performance.now() goes on counting.  (Page.setWebLifecycleState
// is no stand-in: under playwright's focus emulation the page stays visible
// and is not frozen, and a page frozen by it anyway (that emulation turned
// off) has its WebSocket closed by Chromium when it is resumed.)
function renderers() {
  const procs = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = +stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      procs.set(+d, { ppid, cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8') });
    } catch { /* gone meanwhile */ }
  }
  const ours = new Set([process.pid]);
  for (let more = true; more;) {
    more = false;
    for (const [pid, { ppid }] of procs) if (!ours.has(pid) && ours.has(ppid)) { ours.add(pid); more = true; }
  }
  return [...ours].filter((pid) => procs.get(pid)?.cmd.includes('--type=renderer'));
}
async function stopPage(ms) {
  const pids = renderers();
  check(pids.length > 0, 'no renderer process of the browser found to stop');
  pids.forEach((pid) => process.kill(pid, 'SIGSTOP'));
  try {
    await sleep(ms);
  } finally {
    for (const pid of pids) try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
  }
}

const browser = await launchBrowser(browserPath);
const errors = [];
const failures = [];
const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
const p = await ctx.newPage();
p.setDefaultTimeout(5000);
p.name = 'alice';
p.on('pageerror', (e) => errors.push(`alice: ${e}`));
await p.goto(`https://127.0.0.1:${relayPort}/`);
await p.waitForSelector('#btn-guest:visible', { timeout: 10000 });

const statusText = () => p.evaluate(() => document.getElementById('status').textContent);
const statusIs = async (re, what, ms) => {
  try {
    await until(p, (src) => new RegExp(src).test(document.getElementById('status').textContent), re.source, what, ms);
  } catch (e) {
    throw new Error(`${e.message}: the status says "${await statusText()}"`);
  }
};
const answered = () => until(p, () => window.krieg.net.pending.size === 0, null, 'the answer to a request');
const pinged = (what) => until(p, () => window.krieg.net.probeAt !== null, null, what, QUIET_MS + 5000);
// The longest the page went without running (window.gap, a 100 ms timer's
// longest wait; reset to 0 before a stop), and every text of its status
// line (window.said): a stop that did not take, or a drop, is seen.
const watchPage = () => p.evaluate(() => {
  window.gap = 0;
  let last = performance.now();
  setInterval(() => { const t = performance.now(); window.gap = Math.max(window.gap, t - last); last = t; }, 100);
  window.said = [];
  const st = document.getElementById('status');
  new MutationObserver(() => window.said.push(st.textContent)).observe(st, { childList: true, characterData: true, subtree: true });
});
const stopped = async (what) => {
  const gap = await p.evaluate(() => window.gap);
  check(gap >= STOP_MS - 1000, `${what}: the page ran during its stop (its longest wait ${Math.round(gap)} ms)`);
};
const typeMove = async (mv) => {
  await p.fill('#move', mv);
  await p.click('#move-form button[type="submit"]');
  await answered();
};

const suffix = String(process.pid % 100000);
const [alice, bob] = ['alice', 'bob'].map((n) => `${n}${suffix}`);
try {
  await signIn(p, alice, 'alice-password', true);
  const lb = await LineClient.open(linePort);
  await lb.ok('hello', { version: 1 });
  await lb.ok('register', { user: bob, password: 'bob-password' });
  // bob's seek, taken by alice: an untimed game, alice White
  const { offer } = await lb.ok('seek', { rules: 'icc', color: 'black' });
  const r = await p.evaluate((o) => window.krieg.net.call('accept', { offer: o }), offer);
  check(r.ok, `accept: ${JSON.stringify(r)}`);
  const game = r.game;
  await until(p, (g) => window.krieg.state.game === g && !document.getElementById('game').hidden, game, `game ${game} shown`);
  await typeMove('e2e4');
  await lb.waitFor((m) => m.event === 'moved' && m.game === game);
  await lb.ok('move', { game, move: 'e7e5' });
  await until(p, () => window.krieg.state.toMove === 'white', null, "bob's move heard: alice to move");
  const made = links.length;
  check(made >= 1, 'the page reached kriegd through the relay');
  await watchPage();
  const whiteMoves = () => lb.lines.map((l) => JSON.parse(l))
    .filter((m) => m.event === 'moved' && m.game === game && m.by === 'white').length;
  const bobHears = async (n, what) => {
    for (const end = Date.now() + 10000; whiteMoves() < n && Date.now() < end;) await sleep(50);
    check(whiteMoves() === n, `bob was not told of alice's try ${what}`);
  };

  // The page frozen, the path healthy: the quiet game's ping goes out, its
  // answer held by the relay; the page stopped past DEAD_MS; the answer let
  // through just after the thaw, behind the page's first (overdue) tick.
  // (An answer already waiting in the socket at the thaw is delivered
  // before that tick by Chromium, and shows nothing.)
  await p.evaluate(() => { window.ws0 = window.krieg.net.ws; window.said = []; });
  hold();
  const quietAt = Date.now();
  await pinged('the ping of a quiet live game');
  const pingedAfter = (Date.now() - quietAt) / 1000;
  await p.evaluate(() => { window.gap = 0; });
  await stopPage(STOP_MS);
  await sleep(500);
  release();
  await sleep(2500);
  await stopped('the healthy path');
  const kept = await p.evaluate(() => window.krieg.net.ws === window.ws0 && window.ws0.readyState === WebSocket.OPEN);
  const said = await p.evaluate(() => window.said);
  check(kept && links.length === made && !said.some((t) => /lost|reconnect/.test(t)),
    `the page dropped a healthy connection at its thaw (its own ${STOP_MS / 1000} s freeze taken for the ` +
    `server's silence): ${kept ? 'the same socket' : 'its socket closed'}, ${links.length - made} new ` +
    `connection(s), the status said ${JSON.stringify(said)}`);
  check(await p.evaluate(() => window.krieg.net.probeAt === null), 'the answer to the ping, let through, was not heard');
  await typeMove('d2d4');
  await bobHears(2, 'after the thaw');
  await lb.ok('move', { game, move: 'd7d5' });
  await until(p, () => window.krieg.state.toMove === 'white', null, "bob's move after the thaw heard: alice to move");
  const st0 = await statusText();
  check(!/lost|not connected|reconnect/.test(st0), `the status after the thaw: "${st0}"`);

  // The path dies: alice's connection stays open at both ends, silent.  The
  // page pings after QUIET_MS; stopped then, past DEAD_MS, it must give the
  // path up DEAD_MS after its thaw.
  freeze();
  const frozeAt = Date.now();
  try {
    await pinged('the ping of a page whose server went silent');
  } catch (e) {
    throw new Error(`the page did not ping a silent server within ${(QUIET_MS + 5000) / 1000} s (${e.message})`);
  }
  const deadPingedAfter = (Date.now() - frozeAt) / 1000;
  await p.evaluate(() => { window.gap = 0; });
  await stopPage(STOP_MS);
  const thawedAt = Date.now();
  try {
    await statusIs(/connection lost.*no answer from the server/, 'the dead path noticed', DEAD_MS + 5000);
  } catch (e) {
    throw new Error(`the page did not give up a dead path within ${(DEAD_MS + 5000) / 1000} s of its thaw (${e.message})`);
  }
  const noticed = (Date.now() - thawedAt) / 1000;
  await stopped('the dead path');
  check(noticed >= (DEAD_MS - 2000) / 1000, `the page gave up its connection ${noticed.toFixed(1)} s after its thaw, ` +
    `its ping not given DEAD_MS of its own time: its ${STOP_MS / 1000} s freeze taken for the server's silence`);
  await statusIs(/reconnected as /, 'the reconnection', 15000);
  check(links.length > made, 'the reconnection went through the relay');
  check(links.slice(0, made).every((l) => l.frozen), 'the frozen connections stayed frozen');
  await until(p, (g) => window.krieg.state.game === g && !document.getElementById('game').hidden, game,
    `game ${game} shown again`);

  // The game goes on: alice's try answered, bob told of it.
  await typeMove('g1f3');
  const st = await statusText();
  check(!/lost|not connected/.test(st), `the try after the reconnection: "${st}"`);
  await bobHears(3, 'after the reconnection');

  // Regression (the phone probe): a try whose answer the connection's loss
  // gave was never said played or not after the reconnection, and a played
  // one stayed in the field, ready to be sent again.  Played: kriegd's
  // answer held by the relay, then the connection cut.  Not played: the
  // try itself dropped by the relay, then the connection cut.
  const cut = () => { const l = links.at(-1); l.frozen = true; l.down.destroy(); l.up.destroy(); };
  const submitMove = async (mv) => { await p.fill('#move', mv); await p.click('#move-form button[type="submit"]'); };
  for (const [mv, reply, played] of [['f1c4', 'b8c6', true], ['d1e2', 'g8f6', false]]) {
    await lb.ok('move', { game, move: reply });
    await until(p, () => window.krieg.state.toMove === 'white', null, `bob's ${reply} heard: alice to move`);
    const heard = whiteMoves();
    if (played) hold(); else links.at(-1).frozen = true;
    await submitMove(mv);
    if (played) await bobHears(heard + 1, `the try ${mv} whose answer was held`);
    else await sleep(500);
    cut();
    const words = played ? `your try ${mv}, sent as the connection dropped, was played`
      : `your try ${mv}, sent as the connection dropped, was not played: it is still your move`;
    await statusIs(new RegExp(`^reconnected as ${alice}; ${words}$`), `the lost try ${mv} said`, 15000);
    const field = await p.evaluate(() => document.getElementById('move').value);
    check(played ? field === '' : field === mv, `the move field after the lost try ${mv}: "${field}"`);
    check(whiteMoves() === heard + (played ? 1 : 0), `bob heard ${whiteMoves() - heard} moves of the lost try ${mv}`);
    links.forEach((l) => { l.held = null; });
  }
  await typeMove('d1e2');   // the try not played, sent again: played now
  await bobHears(5, 'the try sent again');

  // Regression (the phone probe): the network back, the page waited out its
  // growing pause (up to 30 s) before trying again.  The browser's `online`
  // cuts the wait short.
  refusing = true;
  cut();
  await statusIs(/reconnecting in 8 s/, 'the pause grown to 8 s', 20000);
  refusing = false;
  const backAt = Date.now();
  await p.evaluate(() => window.dispatchEvent(new Event('online')));
  await statusIs(/^reconnected as /, 'the reconnection at `online`', 5000);
  check(Date.now() - backAt < 4000, `reconnected ${Date.now() - backAt} ms after \`online\`, not at once`);
  // Regression: the path lost again while `resume` waited for its answer
  // (the request answered `disconnected` by the page itself) signed the
  // player out and forgot the session.  It is kept, and tried again.
  const token = await p.evaluate(() => sessionStorage.getItem('krieg.token'));
  await p.evaluate(() => {
    const net = window.krieg.net, call = net.call.bind(net);
    let once = true;
    net.call = (type, fields) => {
      if (type === 'resume' && once) {
        once = false;
        net.ws.close();   // gone before the answer: the page answers it itself
        return Promise.resolve({ ok: false, error: { code: 'disconnected', message: 'the connection was lost' } });
      }
      return call(type, fields);
    };
    net.ws.close();
  });
  await statusIs(/reconnected as /, 'the reconnection after a resume lost on its way', 20000);
  check(await p.evaluate(() => sessionStorage.getItem('krieg.token')) !== null, 'the session token was forgotten');
  check(await p.evaluate(() => window.krieg.state.user) === alice && token !== null,
    'not signed in again as alice after a resume lost on its way');
  await until(p, (g) => window.krieg.state.game === g && !document.getElementById('game').hidden, game,
    `game ${game} shown after the resume lost on its way`);
  console.log(`browser dead path: a healthy path kept over the page's ${STOP_MS / 1000} s freeze (pinged ` +
    `${pingedAfter.toFixed(1)} s into the quiet); a dead one pinged ${deadPingedAfter.toFixed(1)} s after the ` +
    `relay froze, given up ${noticed.toFixed(1)} s after the page's thaw, reconnected, played on ` +
    `(${((Date.now() - T0) / 1000).toFixed(1)} s)`);
  lb.close();
} catch (e) {
  failures.push(e.message);
}

if (errors.length) failures.push(`errors in the page: ${errors.join('; ')}`);
await browser.close();
for (const l of links) { l.down.destroy(); l.up.destroy(); }
relay.close();
if (failures.length) {
  console.error(`FAIL: deadpath.mjs\n  ${failures.join('\n  ')}\n--- kriegd log (tail):\n${readFileSync(log, 'utf8').split('\n').slice(-30).join('\n')}`);
  finish(1);
}
finish(0);
