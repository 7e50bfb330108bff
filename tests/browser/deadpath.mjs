// deadpath.mjs — the web client notices a dead path (a phone's network
// gone, a NAT that forgot the connection: no FIN, no RST), in a real
// browser (Debian's /usr/bin/chromium, headless, playwright-core) against a
// real kriegd.  The page reaches kriegd's web door through a TCP relay run
// here; mid-game the relay freezes every connection it holds (nothing
// forwarded either way, nothing closed), while new connections are
// forwarded as before.  The page, its game live and the server silent,
// pings, hears nothing, and must take the connection for lost within
// ~30 s (net.js QUIET_MS + DEAD_MS, as krieg's), say so in the status
// line, reconnect through the relay, resume its session, and play on: a
// try answered, the opponent told of it.  A client that waits for the
// socket's close waits for ever.  KRIEG_WEB_ROOT=DIR serves the page from
// DIR instead of the copy built into kriegd (to run this against another
// client-web).
// Usage: node deadpath.mjs KRIEGD
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { LineClient } from './line.mjs';
import { check, findBrowser, launchBrowser, signIn, sleep, startKriegd, until } from './daemon.mjs';

const NOTICE_MS = 30000;   // the page's QUIET_MS + DEAD_MS (25 s), and some room

const [kriegd] = process.argv.slice(2);
const browserPath = findBrowser();
const T0 = Date.now();
const { log, port, linePort, finish } = await startKriegd(kriegd, 'krieg-deadpath-', [],
  process.env.KRIEG_WEB_ROOT ? ['--set', `web_root=${process.env.KRIEG_WEB_ROOT}`] : []);

// The relay: each connection accepted is joined to a new one to kriegd's
// web door.  freeze() turns every connection held now into a dead path:
// what arrives from either end is dropped, and neither end is closed (a
// close from kriegd's side is not passed on either).  Connections made
// after it are forwarded normally.
const links = [];
const relay = net.createServer((down) => {
  const up = net.connect(port, '127.0.0.1');
  const link = { down, up, frozen: false, bytes: 0 };
  links.push(link);
  const pass = (from, to) => {
    from.on('data', (d) => { if (!link.frozen) { link.bytes += d.length; to.write(d); } });
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
  const held = links.length;
  check(held >= 1, 'the page reached kriegd through the relay');

  // The path dies: alice's connection stays open at both ends, silent.
  freeze();
  const frozeAt = Date.now();
  try {
    await statusIs(/connection lost.*no answer from the server/, 'the dead path noticed', NOTICE_MS);
  } catch (e) {
    throw new Error(`the page did not notice a dead path within ${NOTICE_MS / 1000} s (${e.message})`);
  }
  const noticed = (Date.now() - frozeAt) / 1000;
  await statusIs(/reconnected as /, 'the reconnection', 15000);
  check(links.length > held, 'the reconnection went through the relay');
  check(links.slice(0, held).every((l) => l.frozen), 'the frozen connections stayed frozen');
  await until(p, (g) => window.krieg.state.game === g && !document.getElementById('game').hidden, game,
    `game ${game} shown again`);

  // The game goes on: alice's try answered, bob told of it.
  await typeMove('d2d4');
  const st = await statusText();
  check(!/lost|not connected/.test(st), `the try after the reconnection: "${st}"`);
  const whiteMoves = () => lb.lines.map((l) => JSON.parse(l))
    .filter((m) => m.event === 'moved' && m.game === game && m.by === 'white').length;
  for (const end = Date.now() + 10000; whiteMoves() < 2 && Date.now() < end;) await sleep(50);
  check(whiteMoves() === 2, "bob was not told of alice's try after the reconnection");
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
  console.log(`browser dead path: noticed ${noticed.toFixed(1)} s after the freeze, reconnected, played on ` +
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
