// app.js — the browser client: sign in (resuming after a reload with the
// token kept in sessionStorage), the lobby, and one's games.  The words of
// every announcement are the server's ("say", from the rule set's wording
// table in common/ruleset.c): the page never words an event itself.
import { Net } from './net.js';
import { Board, fenPieces } from './board.js';

const $ = (id) => document.getElementById(id);
const show = (id) => ['login', 'lobby', 'game'].forEach((s) => { $(s).hidden = s !== id; });
const status = (t) => { $('status').textContent = t; };

const state = { game: null, color: null, clock: null, toMove: null, ticked: 0 };
const board = new Board($('board'), tryMove);
let promoPending = null;

const net = new Net(onEvent, () => status('disconnected — reload to reconnect'));
window.krieg = { net, state, board };   // for the browser tests

async function start() {
  const g = await net.open();
  g.rulesets.forEach((r) => $('rules').add(new Option(r, r)));
  await net.call('hello', { version: g.protocol });
  const token = sessionStorage.getItem('krieg.token');
  if (token) {
    const r = await net.call('resume', { token });
    if (r.ok) return signedIn(r);
    sessionStorage.removeItem('krieg.token');
  }
  status('connected');
  show('login');
}

function signedIn(r) {
  if (r.token) sessionStorage.setItem('krieg.token', r.token);
  state.user = r.user;
  $('me').textContent = `— ${r.user}`;
  status(`signed in as ${r.user}`);
  if (!state.game) { show('lobby'); refreshSeeks(); }
}

async function auth(type) {
  const r = await net.call(type, { user: $('user').value, password: $('password').value });
  if (!r.ok) return status(r.error.message);
  if (type === 'register') return auth('login');
  signedIn(r);
}
$('login-form').addEventListener('submit', (e) => { e.preventDefault(); auth('login'); });
$('btn-register').addEventListener('click', () => auth('register'));
$('btn-guest').addEventListener('click', async () => {
  const r = await net.call('guest');
  if (r.ok) signedIn(r); else status(r.error.message);
});

async function refreshSeeks() {
  const r = await net.call('seeks');
  const ul = $('seeks');
  ul.replaceChildren();
  for (const o of r.offers || []) {
    const li = document.createElement('li');
    li.textContent = `${o.user}: ${o.rules} ${o.time.base / 60}+${o.time.inc} ${o.color} `;
    if (o.user !== state.user) {
      const b = document.createElement('button');
      b.textContent = 'Accept';
      b.dataset.offer = o.offer;
      b.addEventListener('click', () => net.call('accept', { offer: o.offer }));
      li.appendChild(b);
    }
    ul.appendChild(li);
  }
}
$('btn-refresh').addEventListener('click', refreshSeeks);
$('seek-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await net.call('seek', { rules: $('rules').value,
    time: { base: +$('base').value * 60, inc: +$('inc').value } });
  status(r.ok ? `seeking (offer ${r.offer})` : r.error.message);
  refreshSeeks();
});

function say(ev) {
  if (!ev.say) return;
  const li = document.createElement('li');
  li.textContent = (ev.ply !== undefined ? `${Math.floor(ev.ply / 2) + 1}. ` : '') + ev.say;
  $('announcements').appendChild(li);
  li.scrollIntoView({ block: 'nearest' });
}

function enterGame(g) {
  state.game = g.game;
  state.color = g.color;
  state.clock = g.clock || null;
  state.toMove = g.to_move || 'white';
  state.ticked = performance.now();
  board.color = g.color;
  board.pieces = fenPieces(g.fen || 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', g.color);
  board.ghosts = new Map();
  $('announcements').replaceChildren();
  $('game-title').textContent = `Game ${g.game}: ${g.white} – ${g.black} (${g.rules}), you play ${g.color}`;
  show('game');
  (g.events || []).forEach((ev) => gameEvent(ev, false));
  board.render();
  turn();
}

function gameEvent(ev, live = true) {
  if (ev.event === 'move' && ev.by === state.color && ev.move) board.applyOwn(ev.move);
  if (ev.event === 'capture' && ev.by !== state.color && ev.square) board.lose(ev.square);
  if (ev.clock) { state.clock = ev.clock; state.ticked = performance.now(); }
  if (ev.event === 'move' || ev.event === 'moved') state.toMove = ev.by === 'white' ? 'black' : 'white';
  if (ev.event === 'game_over') state.toMove = null;
  say(ev);
  if (live) { board.render(); turn(); }
}

function onEvent(ev) {
  if (ev.event === 'game_start') {
    net.call('game', { game: ev.game }).then((g) => enterGame(g));
    return;
  }
  if (ev.event === 'game_state') { enterGame(ev); return; }
  if (ev.event === 'game_events') { ev.events.forEach((e) => gameEvent(e, false)); board.render(); return; }
  if (ev.event === 'draw_offer' && ev.by !== state.color) {
    const yes = confirm('Your opponent offers a draw. Accept?');
    net.call('draw', { game: state.game, action: yes ? 'accept' : 'decline' });
    return;
  }
  if (ev.event === 'ping') { net.call('ping'); return; }
  if (ev.game !== undefined && ev.game === state.game) gameEvent(ev);
}

function turn() {
  $('turn').textContent = state.toMove === null ? 'Game over'
    : state.toMove === state.color ? 'Your move' : "Opponent's move";
}

async function tryMove(uci, promotes) {
  if (promotes) { promoPending = uci; $('promo').hidden = false; return; }
  const r = await net.call('move', { game: state.game, move: uci });
  if (!r.ok) status(r.error.message);
}
$('promo').addEventListener('click', (e) => {
  const p = e.target.dataset.p;
  if (!p || !promoPending) return;
  $('promo').hidden = true;
  const uci = promoPending + p;
  promoPending = null;
  tryMove(uci, false);
});
$('move-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  // Several tries separated by commas are a preference list (nost).
  const moves = $('move').value.split(',').map((s) => s.trim()).filter(Boolean);
  const r = await net.call('move', moves.length > 1 ? { game: state.game, moves } : { game: state.game, move: moves[0] });
  if (!r.ok) status(r.error.message); else $('move').value = '';
});
const confirmed = (what, f) => () => { if (confirm(`${what}?`)) f(); };
$('btn-any').addEventListener('click', async () => {
  const r = await net.call('any', { game: state.game });
  if (!r.ok) status(r.error.message);
});
$('btn-draw').addEventListener('click', confirmed('Offer a draw', () => net.call('draw', { game: state.game, action: 'offer' })));
$('btn-resign').addEventListener('click', confirmed('Resign', () => net.call('resign', { game: state.game })));
$('btn-abort').addEventListener('click', confirmed('Abort the game', () => net.call('abort', { game: state.game })));
$('btn-lobby').addEventListener('click', () => { state.game = null; show('lobby'); refreshSeeks(); });

function fmt(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
setInterval(() => {
  if (!state.clock) return;
  const el = performance.now() - state.ticked;
  for (const side of ['white', 'black']) {
    const ms = state.clock[side] - (side === state.toMove ? el : 0);
    const e = $(`clock-${side}`);
    e.textContent = `${side} ${fmt(ms)}`;
    e.classList.toggle('tomove', side === state.toMove);
  }
}, 250);

start().catch(() => status('could not connect'));
