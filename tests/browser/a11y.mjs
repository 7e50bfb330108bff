// a11y.mjs — the web client by keyboard alone and as a screen reader hears
// it, in a real browser (Debian's /usr/bin/chromium, headless,
// playwright-core) against a real kriegd.  No mouse and no tap: every
// action below is a key pressed (Tab, Shift+Tab, Enter, Space, the arrows,
// letters typed).  Two guests sign in, seek and accept an english game, and
// play tries: from the board as a grid (arrow keys to the square, Enter to
// pick a man up and Enter to try it) and from the Try field; they ask
// "Any?", talk, offer a draw and decline it; a third guest watches; a
// player resigns and reads what really happened.  Checked:
//   - each control reached by Tab shows that it has the focus (the
//     browser's ring, the board's outline of its square);
//   - a view shown takes the focus (its heading), not left on the page's body;
//   - the board is a grid of 64 squares named by square and what the player
//     sees there ("e2, white pawn", "e4, empty"), only their own men: the
//     opponent's are named nowhere in the accessibility tree;
//   - the turn and both clocks are in the accessibility tree;
//   - an announcement arriving is put in a polite live region (it reaches a
//     screen reader as it arrives), and a page reloaded mid-game does not
//     put its whole list of announcements there again;
//   - a try made by keyboard is answered; a button that hides once pressed
//     (an offer answered) leaves the focus on the board, not the body;
//   - the spectator's board names no man; the finished game's true board
//     names both sides' men;
//   - (the keyboard probe) no heading holds a control; the buttons of the
//     lobby's lists are told apart by their names; a draw offer is in one
//     live region, not two; "Your move" is said when the turn comes back;
//     a challenge arriving during a game is said; "Possible tries" says how
//     many and takes the focus to them; the record's Lobby lists the game
//     just read.
// Every failing check is reported, then the test fails.
// KRIEG_WEB_ROOT=DIR serves the page from DIR instead of the copy built
// into kriegd (to run this test against another client-web).
// Usage: node a11y.mjs KRIEGD
import { check, findBrowser, launchBrowser, sleep, startKriegd, until } from './daemon.mjs';

const [kriegd] = process.argv.slice(2);
const browserPath = findBrowser();
const T0 = Date.now();
const { port, finish } = await startKriegd(kriegd, 'krieg-a11y-', [],
  process.env.KRIEG_WEB_ROOT ? ['--set', `web_root=${process.env.KRIEG_WEB_ROOT}`] : []);
const browser = await launchBrowser(browserPath);
const errors = [], problems = [];
const problem = (p, what) => problems.push(`${p.name}: ${what}`);

const newPage = async (name) => {
  const ctx = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1100, height: 900 } });
  const p = await ctx.newPage();
  p.setDefaultTimeout(5000);
  p.name = name;
  p.on('pageerror', (e) => errors.push(`${name}: ${e}`));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(`${name}: ${m.text()}`); });
  p.on('dialog', (d) => d.accept());   // "Offer a draw?", "Resign?": the browser's own dialog, answered yes
  await p.goto(`https://127.0.0.1:${port}/`);
  await p.waitForSelector('#btn-guest:visible', { timeout: 10000 });
  return p;
};

// The element with the focus: what it is, its role and name as a screen
// reader has them, and whether the focus is shown on it (the browser's
// ring, an outline; a board's square: its own outline drawn over it).
const focus = (p) => p.evaluate(() => {
  const e = document.activeElement;
  const cs = getComputedStyle(e);
  const sq = e.dataset?.square;
  let shown = e.matches(':focus-visible') && cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0;
  if (sq) {
    const ring = [...e.ownerSVGElement.querySelectorAll('rect')].find((r) => !r.dataset.square && r.getClientRects().length);
    const a = e.getBoundingClientRect(), b = ring?.getBoundingClientRect();
    shown = !!b && b.width > 0 && b.left >= a.left - 1 && b.right <= a.right + 1 && b.top >= a.top - 1 && b.bottom <= a.bottom + 1;
  }
  return { tag: e.tagName.toLowerCase(), id: e.id, square: sq || null, role: e.getAttribute('role'),
    name: (e.getAttribute('aria-label') || e.textContent || e.value || '').trim().replace(/\s+/g, ' ').slice(0, 60),
    view: e.closest('main > section')?.id || null, shown };
});
const desc = (f) => `${f.tag}${f.id ? `#${f.id}` : ''}${f.role ? `[${f.role}]` : ''} "${f.name}"`;

// Tab (or Shift+Tab) until the focus is on what `want` accepts; each
// control passed on the way must show its focus.  The focused element, or
// null (reported) if `max` presses never reach it.
async function tabTo(p, want, what, { max = 60, back = false } = {}) {
  const seen = [];
  for (let i = 0; i < max; i++) {
    await p.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const f = await focus(p);
    if (f.tag !== 'body' && !f.shown && !seen.some((s) => s.includes('focus not shown')))
      problem(p, `Tab to ${what}: the focus is not shown on ${desc(f)}`), seen.push('focus not shown');
    if (want(f)) return f;
    seen.push(desc(f));
  }
  problem(p, `${what} not reached by ${back ? 'Shift+Tab' : 'Tab'} in ${max} presses (passed ${[...new Set(seen)].slice(0, 12).join(', ')}...)`);
  return null;
}
const press = async (p, ...keys) => { for (const k of keys) await p.keyboard.press(k); };
const answered = (p) => until(p, () => window.krieg.net.pending.size === 0, null, 'the answers');

// The page's polite live regions (aria-live="polite", role=log; the status
// line is a region of its own: role=status): what they hold.
const liveText = (p) => p.evaluate(() => [...document.querySelectorAll('[aria-live="polite"], [role="log"]')]
  .filter((e) => e.id !== 'status').map((e) => e.textContent).join(' | '));
// Until a polite live region holds a line matching re (or the words of the
// list #id's newest line, given as { last: id }).
async function spoken(p, re, what) {
  const src = re.last ? (await lastLine(p, re.last)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : re.source;
  try {
    await until(p, (x) => [...document.querySelectorAll('[aria-live="polite"], [role="log"]')]
      .some((e) => e.id !== 'status' && new RegExp(x).test(e.textContent)), src, what);
  } catch (e) {
    problem(p, `${what}: not put in a polite live region (they hold "${(await liveText(p)).slice(-200)}")`);
  }
}
// The last announcement listed in #id.
const lastLine = (p, id) => p.evaluate((i) => document.getElementById(i).lastElementChild?.textContent ?? '', id);

// The board as the accessibility tree has it: the grid's name and its cells' names.
const gridCells = (p, sel) => p.evaluate((s) => {
  const grid = document.querySelector(`${s} [role="grid"]`);
  return { grid: grid?.getAttribute('aria-label') ?? null, rows: grid ? grid.querySelectorAll('[role="row"]').length : 0,
    cells: grid ? [...grid.querySelectorAll('[role="gridcell"]')].map((c) => c.getAttribute('aria-label')) : [] };
}, sel);
async function boardNamed(p, sel, want, what) {
  const g = await gridCells(p, sel);
  if (!g.grid || g.rows !== 8 || g.cells.length !== 64) {
    problem(p, `${what}: not a named grid of 8 rows of 8 squares (grid "${g.grid}", ${g.rows} rows, ${g.cells.length} cells)`);
    return false;
  }
  for (const [name, re] of Object.entries(want))
    if (!g.cells.some((c) => re.test(c) && c.startsWith(`${name},`)))
      problem(p, `${what}: square ${name} is not named as ${re} (it is "${g.cells.find((c) => c?.startsWith(name))}")`);
  return g;
}
// Every name in the page's accessibility tree (playwright's snapshot).
async function treeNames(p) {
  const out = [];
  const walk = (n) => { if (n.name) out.push(`${n.role}: ${n.name}`); (n.children || []).forEach(walk); };
  walk(await p.accessibility.snapshot({ interestingOnly: false }));
  return out;
}

// From the square with the focus to `to`, by the arrow keys (the board as
// the player sees it: White's from below, Black's from above).
async function arrowTo(p, to, color) {
  const f = await focus(p);
  if (!f.square) return false;
  const df = to.charCodeAt(0) - f.square.charCodeAt(0), dr = +to[1] - +f.square[1];
  const s = color === 'black' ? -1 : 1;
  for (let i = 0; i < Math.abs(df); i++) await p.keyboard.press(df * s > 0 ? 'ArrowRight' : 'ArrowLeft');
  for (let i = 0; i < Math.abs(dr); i++) await p.keyboard.press(dr * s > 0 ? 'ArrowUp' : 'ArrowDown');
  const g = await focus(p);
  if (g.square !== to) { problem(p, `the arrow keys from ${f.square} led to ${desc(g)}, not ${to}`); return false; }
  if (!g.shown) problem(p, `the focus on square ${to} is not shown`);
  return true;
}
// Into the board from where the focus is (Tab), to `from`, Enter, to `to`, Enter.
async function boardTry(p, from, to, color) {
  let f = await focus(p);
  if (!f.square) f = await tabTo(p, (x) => x.square !== null, 'a square of the board', { max: 20 });
  if (!f) return false;
  if (!await arrowTo(p, from, color)) return false;
  await p.keyboard.press('Enter');
  const sel = await focus(p);
  if (!/selected/.test(sel.name)) problem(p, `Enter on ${from}: the square's name does not say it is picked up ("${sel.name}")`);
  if (!await arrowTo(p, to, color)) return false;
  await p.keyboard.press('Enter');
  return true;
}
const toMove = (p, c, what) => until(p, (x) => window.krieg.net.pending.size === 0 && window.krieg.state.toMove === x, c, what);

let code = 0;
try {
  // Signing in as a guest, and the lobby, by keyboard.
  const a = await newPage('a'), b = await newPage('b');
  for (const p of [a, b]) {
    if (!await tabTo(p, (f) => f.id === 'btn-guest', 'Play as a guest')) throw new Error('no way in');
    await p.keyboard.press('Enter');
    await p.waitForSelector('#lobby:visible', { timeout: 10000 });
    const f = await focus(p);
    if (f.view !== 'lobby') problem(p, `signed in, the focus is on ${desc(f)}, not in the lobby`);
  }
  // a seeks an english game as White: the selects chosen by typing their options' first letters.
  await tabTo(a, (f) => f.id === 'rules', 'the rule set');
  await a.keyboard.type('english');
  await tabTo(a, (f) => f.id === 'color', 'the colour');
  await a.keyboard.type('w');
  check(await a.inputValue('#rules') === 'english' && await a.inputValue('#color') === 'white',
    `the seek's terms by keyboard: ${await a.inputValue('#rules')}, ${await a.inputValue('#color')}`);
  await tabTo(a, (f) => f.id === 'btn-seek', 'Seek a game');
  await a.keyboard.press('Enter');
  await until(a, () => /^seeking/.test(document.getElementById('status').textContent), null, 'the seek made');
  const aName = await a.evaluate(() => window.krieg.state.user);
  // b refreshes the seeks and takes a's by its Accept button.
  await tabTo(b, (f) => f.id === 'btn-refresh', 'the seeks\' Refresh');
  await b.keyboard.press('Enter');
  await until(b, (n) => document.getElementById('seeks').textContent.includes(n), aName, "a's seek listed");
  await tabTo(b, (f) => f.tag === 'button' && f.name.startsWith('Accept'), "Accept on a's seek");
  await b.keyboard.press('Space');
  for (const p of [a, b]) {
    await p.waitForSelector('#game:visible', { timeout: 10000 });
    await answered(p);
    const f = await focus(p);
    if (f.view !== 'game') problem(p, `the game shown, the focus is on ${desc(f)}, not in the game`);
  }

  // The board: a named grid, only one's own men named; the turn and clocks readable.
  await boardNamed(a, '#board', { e2: /^e2, white pawn$/, e1: /^e1, white king$/, e4: /^e4, empty$/, e7: /^e7, empty$/ }, "a's board");
  await boardNamed(b, '#board', { e7: /^e7, black pawn$/, e8: /^e8, black king$/, e2: /^e2, empty$/ }, "b's board");
  for (const [p, theirs] of [[a, 'black'], [b, 'white']]) {
    await until(p, () => /\d:\d\d/.test(document.getElementById('game').textContent), null, 'the clocks shown');
    const names = await treeNames(p);
    const leak = names.filter((n) => new RegExp(`${theirs} (king|queen|rook|bishop|knight|pawn)`, 'i').test(n));
    if (leak.length) problem(p, `the opponent's men are named in the accessibility tree: ${leak.slice(0, 3).join('; ')}`);
    const all = names.join('\n');
    if (!/white \d+:\d\d/.test(all) || !/black \d+:\d\d/.test(all)) problem(p, `the clocks are not in the accessibility tree (${names.filter((n) => /\d:\d\d/.test(n)).join('; ')})`);
    if (!/Your move|Opponent's move/.test(all)) problem(p, 'the turn is not in the accessibility tree');
  }

  // a's try from the board: Tab from the game's heading into the grid, the arrows, Enter, Enter.
  const heardBefore = await liveText(b);
  if (await boardTry(a, 'e2', 'e4', 'white')) {
    await toMove(a, 'black', "a's try e2-e4, made from the board by keyboard, answered");
    await boardNamed(a, '#board', { e4: /^e4, white pawn$/, e2: /^e2, empty$/ }, "a's board after e2-e4");
    if ((await focus(a)).square !== 'e4') problem(a, `after the try, the focus left the board: ${desc(await focus(a))}`);
    await spoken(a, { last: 'announcements' }, "a's answer to e2-e4");
  } else {
    // Not from the board: from the Try field, so that the rest is checked.
    await tabTo(a, (f) => f.id === 'move', 'the Try field');
    await a.keyboard.type('e2e4');
    await a.keyboard.press('Enter');
    await toMove(a, 'black', "a's try e2-e4, typed, answered");
  }
  await until(b, () => window.krieg.state.toMove === 'black', null, "b told of a's move");
  const bLast = await lastLine(b, 'announcements');
  await spoken(b, { last: 'announcements' }, `b hearing "${bLast}"`);
  if ((await liveText(b)).length > heardBefore.length + bLast.length + 200) problem(b, 'the live region grew by more than the announcements that arrived');

  // b's try typed in the Try field (reached by Tab), Enter: answered, a hears it.
  await tabTo(b, (f) => f.id === 'move', 'the Try field');
  await b.keyboard.type('e7e5');
  await b.keyboard.press('Enter');
  await toMove(b, 'white', "b's typed try e7-e5 answered");
  await toMove(a, 'white', "a told of b's move");
  await spoken(a, /Your move/, '"Your move" said when the turn came back');
  // a asks "Any?" (english has it): Shift+Tab back from the Try field... Tab on to the button.
  await tabTo(a, (f) => f.id === 'btn-any', 'Any?');
  const anyBefore = await a.evaluate(() => document.getElementById('announcements').children.length);
  await a.keyboard.press('Enter');
  await until(a, (n) => document.getElementById('announcements').children.length > n, anyBefore, 'the answer to Any?');
  await spoken(a, { last: 'announcements' }, 'the answer to Any?');
  // "Possible tries": how many said, the list where the focus goes.
  await tabTo(a, (f) => f.id === 'btn-possible', 'Possible tries');
  await a.keyboard.press('Enter');
  await until(a, () => !document.getElementById('possible').hidden, null, 'the possible tries shown');
  if ((await focus(a)).id !== 'possible') problem(a, `the possible tries shown, the focus is on ${desc(await focus(a))}`);
  if (!/\d+ possible tr/.test(await a.textContent('#status'))) problem(a, `the possible tries not said: "${await a.textContent('#status')}"`);
  // a's knight from the board, Shift+Tab back into it.
  const bk = await tabTo(a, (f) => f.square !== null, 'the board, backwards', { back: true, max: 20 });
  if (bk && await boardTry(a, 'g1', 'f3', 'white')) await toMove(a, 'black', "a's try g1-f3 answered");
  else { await tabTo(a, (f) => f.id === 'move', 'the Try field'); await a.keyboard.type('g1f3'); await a.keyboard.press('Enter'); await toMove(a, 'black', 'g1f3 typed'); }
  // b's try from the board (seen from above: the arrows go as Black sees them).
  await b.keyboard.press('Shift+Tab');
  if (await boardTry(b, 'b8', 'c6', 'black')) {
    await toMove(b, 'white', "b's try b8-c6, from the board by keyboard, answered");
    await boardNamed(b, '#board', { c6: /^c6, black knight$/, b8: /^b8, empty$/ }, "b's board after b8-c6");
  } else { await tabTo(b, (f) => f.id === 'move', 'the Try field'); await b.keyboard.type('b8c6'); await b.keyboard.press('Enter'); await toMove(b, 'white', 'b8c6 typed'); }
  // the count of possible tries is no longer said once the game moved on (a review)
  await until(a, () => !/possible tr/.test(document.getElementById('status').textContent), null,
    'the possible tries\' count gone from the status line after the moves');

  // Words to the opponent, heard as they arrive.
  await tabTo(a, (f) => f.id === 'say-text', 'the Say field');
  await a.keyboard.type('good luck');
  await a.keyboard.press('Enter');
  await spoken(b, /good luck/, "a's words heard by b");

  // A spectator, by keyboard from the lobby's Live games.
  const c = await newPage('c');
  await tabTo(c, (f) => f.id === 'btn-guest', 'Play as a guest');
  await c.keyboard.press('Enter');
  await c.waitForSelector('#lobby:visible', { timeout: 10000 });
  await tabTo(c, (f) => f.id === 'btn-live', "Live games' Refresh", { max: 80 });
  await c.keyboard.press('Enter');
  await until(c, () => document.querySelector('#live button[data-watch]') !== null, null, 'a live game listed');
  await until(c, () => document.querySelectorAll('#who li').length >= 3, null, 'who is online listed');
  const lobbyA11y = await c.evaluate(() => {
    const inHeads = [...document.querySelectorAll('h1, h2, h3')].filter((h) => h.querySelector('button, select, input'))
      .map((h) => h.textContent.trim());
    const names = [...document.querySelectorAll('#lobby li button')].map((b) => b.getAttribute('aria-label') || b.textContent);
    return { inHeads, twice: names.filter((n, i) => names.indexOf(n) !== i) };
  });
  if (lobbyA11y.inHeads.length) problem(c, `headings hold controls: ${lobbyA11y.inHeads.join('; ')}`);
  if (lobbyA11y.twice.length) problem(c, `the lobby's buttons are not told apart: ${[...new Set(lobbyA11y.twice)].join('; ')}`);
  // A challenge to a while a plays: said to a, where the lobby is out of sight.
  await c.evaluate((u) => window.krieg.net.call('challenge', { user: u, rules: 'english' }), aName);
  await until(a, () => /challenges you/.test(document.getElementById('status').textContent), null,
    'a challenge during a game said in the status line');
  await tabTo(c, (f) => f.tag === 'button' && f.name.startsWith('Watch'), 'Watch');
  await c.keyboard.press('Enter');
  await c.waitForSelector('#watch:visible', { timeout: 10000 });
  await answered(c);
  if ((await focus(c)).view !== 'watch') problem(c, `watching, the focus is on ${desc(await focus(c))}, not in the watch view`);
  const w = await boardNamed(c, '#watch-board', { e4: /^e4, empty$/ }, "the spectator's board");
  if (w && w.cells.some((n) => !/, empty$/.test(n))) problem(c, `the spectator's board names a man: ${w.cells.filter((n) => !/, empty$/.test(n)).join('; ')}`);
  // a's bishop from the board (Shift+Tab back into it from the Say field); the spectator hears it.
  const heardC = await c.evaluate(() => document.getElementById('watch-announcements').children.length);
  const back = await tabTo(a, (f) => f.square !== null, 'the board, backwards', { back: true, max: 30 });
  if (back && await boardTry(a, 'f1', 'c4', 'white')) await toMove(a, 'black', "a's try f1-c4 answered");
  else { await tabTo(a, (f) => f.id === 'move', 'the Try field'); await a.keyboard.type('f1c4'); await a.keyboard.press('Enter'); await toMove(a, 'black', 'f1c4 typed'); }
  await until(c, (n) => document.getElementById('watch-announcements').children.length > n, heardC, "the spectator told of a's try");
  await spoken(c, { last: 'watch-announcements' }, "the spectator hearing a's try");

  // b moves and at once offers a draw: a still hears "Your move" after both
  // (a review: the later event cancelled it); a declines by the wire.
  const yours = () => a.evaluate(() => [...document.querySelectorAll('#heard p')].filter((p) => p.textContent === 'Your move').length);
  const yoursBefore = await yours();
  await b.evaluate(async () => {
    const k = window.krieg;
    const m = k.net.call('move', { game: k.state.game, move: 'g8f6' });
    k.net.call('draw', { game: k.state.game, action: 'offer' });
    await m;
  });
  await toMove(a, 'white', "a told of b's g8f6");
  await until(a, () => window.krieg.state.drawOffer === 'black', null, "b's draw offer after its move");
  await until(a, (n) => [...document.querySelectorAll('#heard p')].filter((p) => p.textContent === 'Your move').length > n,
    yoursBefore, '"Your move" said after a move and a draw offer');
  await a.evaluate(() => window.krieg.net.call('draw', { game: window.krieg.state.game, action: 'decline' }));
  await until(b, () => window.krieg.state.drawOffer === null, null, "b's offer declined");
  // a moves again so that it is b's move, as before
  await a.evaluate(() => window.krieg.net.call('move', { game: window.krieg.state.game, move: 'b1c3' }));
  await toMove(a, 'black', "a's b1c3");

  // a offers a draw (the browser's own question, answered yes); b hears it and declines by keyboard.
  await tabTo(a, (f) => f.id === 'btn-draw', 'Offer draw');
  await a.keyboard.press('Enter');
  await spoken(b, /offers a draw/, "a's draw offer heard by b");
  const offerLive = await b.evaluate(() => [...document.querySelectorAll('[aria-live], [role="status"], [role="log"], [role="alert"]')]
    .filter((e) => /offers? a draw/i.test(e.textContent) && !e.closest('[hidden]')).map((e) => e.id || e.tagName));
  if (offerLive.length !== 1) problem(b, `the draw offer is in ${offerLive.length} live regions (${offerLive.join(', ')}): read more than once`);
  await tabTo(b, (f) => f.id === 'btn-draw-decline', 'Decline the draw');
  await b.keyboard.press('Enter');
  await until(b, () => document.getElementById('btn-draw-decline').hidden, null, 'the offer declined');
  await sleep(100);
  const fd = await focus(b);
  if (fd.view !== 'game') problem(b, `the offer declined, its button hidden, the focus fell to ${desc(fd)}`);

  // a reloads mid-game (F5; headless chromium takes no browser shortcut from
  // a synthetic key, so the reload is asked of it): the game's list
  // refilled, and not read out again (what was said live before is gone with the old page).
  await a.reload();
  await a.waitForSelector('#game:visible', { timeout: 10000 });
  await answered(a);
  await until(a, () => document.querySelectorAll('#announcements li').length > 3, null, 'the record read again');
  await sleep(300);
  const history = await a.evaluate(() => [...document.querySelectorAll('#announcements li')].map((li) => li.textContent));
  const again = await liveText(a);
  const reread = history.filter((l) => again.includes(l));
  if (reread.length > 1) problem(a, `reloaded, the whole list of announcements is in a live region again (${reread.length} lines: "${reread.slice(0, 3).join('", "')}"...)`);

  // b resigns (yes to the browser's question); a reads what really happened.
  await tabTo(b, (f) => f.id === 'btn-resign', 'Resign');
  await b.keyboard.press('Enter');
  await spoken(a, /resign/i, "b's resignation heard by a");
  // and who won (the page probe: "Black resigns" said no result)
  await spoken(c, /resigns\. (White|Black) wins \((1-0|0-1)\)/, "b's resignation and its result heard by the spectator");
  await a.waitForSelector('#btn-truth:visible', { timeout: 10000 });
  await tabTo(a, (f) => f.id === 'btn-truth', 'What really happened');
  await a.keyboard.press('Enter');
  await a.waitForSelector('#record:visible', { timeout: 10000 });
  await until(a, () => window.krieg.records.board.pieces.size > 0, null, 'the true board');
  if ((await focus(a)).view !== 'record') problem(a, `the record shown, the focus is on ${desc(await focus(a))}, not in the record`);
  await boardNamed(a, '#record-board', { e4: /^e4, white pawn$/, e5: /^e5, black pawn$/, c6: /^c6, black knight$/ }, 'the true board of the finished game');
  // The replay's buttons and the record's lines by keyboard.
  await tabTo(a, (f) => f.id === 'btn-replay-start', 'the replay\'s start');
  await a.keyboard.press('Enter');
  check(/^move 0 of/.test(await a.textContent('#replay-at')), `the replay's start: ${await a.textContent('#replay-at')}`);
  await a.keyboard.press('Tab');
  await a.keyboard.press('Tab');   // past "a move back" to "a move on"
  await a.keyboard.press('Enter');
  check(/^move 1 of/.test(await a.textContent('#replay-at')), `a move on: ${await a.textContent('#replay-at')}`);
  // Back to the lobby from the record: the game just read is in Your games, with its Rematch.
  await tabTo(a, (f) => f.id === 'btn-record-back', 'the record\'s Lobby', { back: true });
  await a.keyboard.press('Enter');
  await a.waitForSelector('#lobby:visible', { timeout: 10000 });
  await until(a, () => document.querySelector('#history button[data-rematch]') !== null, null,
    'the game just read listed in Your games, with its Rematch');

  if (errors.length) problems.push(`errors in the pages: ${errors.join('; ')}`);
} catch (e) {
  problems.push(`stopped: ${e.stack || e}`);
}
if (problems.length) {
  console.error(`FAIL: the web client by keyboard and screen reader:\n  ${problems.join('\n  ')}`);
  code = 1;
} else {
  console.log(`a11y: by keyboard alone, two guests signed in, sought and accepted, tried from the board's grid (named squares, own men only) and the Try field, asked Any?, talked, offered and declined a draw; a spectator watched; the record read; each announcement in a polite live region as it came, not again on a reload (${((Date.now() - T0) / 1000).toFixed(1)} s)`);
}
await browser.close();
finish(code);
