// watch.js — the spectator's seat and the umpire's chair (PROTOCOL.md
// "Watching").  A spectator hears the public announcements only and sees no
// pieces; the umpire sees the true board (`fen`, then a `board` event after
// each move), every announcement with who heard it, both sides' tries, the
// players' connections, and acts from the chair (pause, add time,
// adjudicate, abort, notes).  What arrives is what the server chose to
// send this seat: the page adds nothing.
import { Board, fenPieces } from './board.js';
import { announce, awayDeadline, awayText, botMark, fmtClock, moveNumber, speak, tagsText } from './words.js';
import { Hands } from './hands.js';
import { savePgn } from './record.js';

const $ = (id) => document.getElementById(id);
const other = (c) => (c === 'white' ? 'black' : 'white');
const TRIES = new Set(['illegal', 'impossible', 'umpire_move']);
const plies = (n) => `${n} ${n === 1 ? 'ply' : 'plies'}`;

export class WatchView {
  constructor(net, show, status, onLeave, note) {
    this.net = net;
    this.show = show;
    this.status = status;
    this.onLeave = onLeave;
    this.note = note;           // a line for the page's log, which stays (status lines are overwritten)
    this.left = new Set();      // games whose seat was given up for one's own game (drop), until unwatched
    this.board = new Board($('watch-board'), null, { label: 'the board', help: 'view-board-help' });
    this.hands = new Hands();
    this.opening = new Map();   // game → its live events held while its seat's pages are read (open)
    this.reset();
    $('btn-unwatch').addEventListener('click', () => this.leave());
    $('umpire-form').addEventListener('click', (e) => this.act(e.target));
    // The round's PGN as played so far (a director's export mid-round).
    $('btn-umpire-pgn').addEventListener('click', () => savePgn(this.net, this.status, this.game, 'umpire'));
    $('spec-form').addEventListener('submit', (e) => { e.preventDefault(); this.spec(); });
    setInterval(() => this.tick(), 250);
  }

  reset() {
    this.game = null;
    this.seat = null;
    this.clock = null;
    this.toMove = null;
    this.paused = false;
    this.adjourned = false;
    this.ticked = 0;
    this.connected = null;
    this.rules = null;
    this.away = new Map();   // colour → deadline (ms since the epoch, or null): the players away
    this.hands.reset();
  }

  // The seat kept for a reload of the page (app.js start), or null; and
  // forgotten (its seat left, its game over, the session gone).
  kept() {
    try {
      const k = JSON.parse(sessionStorage.getItem('krieg.seat'));
      return k && Number.isSafeInteger(k.game) && (k.seat === 'spectator' || k.seat === 'umpire') ? k : null;
    } catch { return null; }
  }

  forget() { sessionStorage.removeItem('krieg.seat'); }

  // The seat given up without a word to the server (the session is gone):
  // nothing of it kept, the umpire's true board least of all.
  clear() {
    this.forget();
    this.reset();
    this.board.pieces = new Map();
    this.board.render();
    ['watch-title', 'watch-announcements', 'tries-white', 'tries-black', 'watch-connected', 'watch-hands', 'watch-away',
      'watch-clock-white', 'watch-clock-black'].forEach((id) => $(id).replaceChildren());
    $('umpire-text').value = '';
    $('spec-text').value = '';
    $('umpire-form').hidden = true;
    $('tries').hidden = true;
  }

  // `watch {game}` or `umpire {game}`: take the seat, read the record so far.
  // The seat's live events come from its first reply on, and the later
  // pages end where that reply put `total` (PROTOCOL.md, Watching): those
  // that come while the pages are read are held (app.js: watch.opening)
  // and shown after them.  They were dropped (the first seat) or wiped by
  // the pages (a seat taken again after a reconnection): the browser probe.
  // Each open holds its own game's (two at once: two followed players'
  // games begun together, a review).  A later page refused (the game ended
  // meanwhile) says the game_over held, the why.
  async open(game, seat) {
    const held = [];
    this.opening.set(game, held);
    let r;
    try {
      r = await this.net.callAll(seat === 'umpire' ? 'umpire' : 'watch', { game }, 'events');
    } finally {
      if (this.opening.get(game) === held) this.opening.delete(game);
    }
    if (this.left.has(game)) {   // given up meanwhile (drop): unwatched, not shown
      this.unwatchLeft(game, r.ok);
      return { ok: false, error: { code: 'left', message: `game ${game} left for your own game` } };
    }
    if (!r.ok) {
      const over = held.find((e) => e.event === 'game_over' && typeof e.say === 'string');
      this.status(over ? `Game ${game} is over: ${over.say}` : r.error.message);
      return r;
    }
    this.reset();
    this.game = game;
    this.seat = seat;
    this.clock = r.clock || null;
    this.toMove = r.to_move || null;
    this.ticked = performance.now();
    this.connected = r.connected || null;
    this.paused = !!r.paused;
    this.adjourned = !!r.adjourned;
    // The players away now (the stream tells only the changes from here).
    for (const side of ['white', 'black']) {
      const a = r.away && typeof r.away === 'object' ? r.away[side] : null;
      if (a && typeof a === 'object') this.away.set(side, awayDeadline(a, Date.now()));
    }
    this.rules = r.rules;
    // a seat shown behind the game (a rated game's spectator, the reply's
    // `delay`): said (the page probe read the seat, its missing clocks and
    // a chat line late, unexplained)
    this.delayed = Number.isInteger(r.delay) && r.delay > 0 ? r.delay : 0;
    $('watch-hands').hidden = r.rules !== 'crazykrieg';
    const behind = this.delayed ? `, shown ${plies(this.delayed)} behind` : '';
    this.titled = `Game ${game}: ${r.white}${botMark(r, 'white')} – ${r.black}${botMark(r, 'black')} (${r.rules}`
      + `${r.rated === true ? ', rated' : ''}${tagsText(r)}${behind})`;
    $('watch-title').textContent = `${this.titled}, ${seat === 'umpire' ? "the umpire's chair" : 'watching'}`;
    $('umpire-form').hidden = seat !== 'umpire';
    $('umpire-time').hidden = !r.clock && !(r.time && r.time.base);   // an untimed game has no clock to add to
    $('spec-form').hidden = seat === 'umpire';   // the umpire speaks by notes
    $('tries').hidden = seat !== 'umpire';
    ['watch-announcements', 'tries-white', 'tries-black'].forEach((id) => $(id).replaceChildren());
    this.board.color = 'white';
    this.board.pieces = seat === 'umpire' && typeof r.fen === 'string' ? fenPieces(r.fen, null) : new Map();
    (Array.isArray(r.events) ? r.events : []).forEach((ev) => this.event(ev, false));
    this.render();
    this.show('watch');
    // kept for a reload of the page (app.js start: the seat taken again,
    // as a player's game is resumed)
    sessionStorage.setItem('krieg.seat', JSON.stringify({ game, seat }));
    held.forEach((ev) => { if (this.game === game) this.event(ev); });
    // the newest line in sight (the page probe: on a phone the list opened
    // at its top, the last line out of sight), and an earlier refusal gone
    // from the status line
    $('watch-announcements').scrollTop = $('watch-announcements').scrollHeight;
    this.status(`${seat === 'umpire' ? "In the umpire's chair of" : 'Watching'} game ${game}`);
    return r;
  }

  // One event of the watched game, live or from the seat's reply.
  event(ev, live = true) {
    if (ev.clock) { this.clock = ev.clock; this.ticked = performance.now(); }
    if (this.rules === 'crazykrieg') this.hands.event(ev);
    switch (ev.event) {
    case 'board': if (typeof ev.fen === 'string') this.board.pieces = fenPieces(ev.fen, null); break;
    case 'connection':
      this.connected = { ...this.connected, [ev.color]: ev.connected };
      if (ev.connected) this.away.delete(ev.color);   // back: no deadline runs (the director probe)
      break;
    case 'moved': case 'umpire_move': this.toMove = other(ev.by); break;
    case 'opponent_away':
      if (this.away.has(ev.color)) ev.again = true;   // a new deadline, not a second leaving (words.js)
      if (ev.color === 'white' || ev.color === 'black') this.away.set(ev.color, awayDeadline(ev, Date.now()));
      break;
    case 'opponent_back': this.away.delete(ev.color); break;
    case 'clock_paused': this.paused = true; break;
    case 'clock_unpaused': this.paused = false; break;
    case 'adjourned': this.adjourned = true; break;
    case 'unadjourned': this.adjourned = false; break;
    case 'unwatched': {
      // kept in the log: a game starting next overwrites the status line
      // at once (the page probe: "your own game started" was never read),
      // and the true board wiped, not left in the page
      this.note(`You left game ${this.game}: `, typeof ev.reason === 'string' ? ev.reason : 'the seat ended');
      this.clear();
      this.onLeave();
      return;
    }
    case 'game_over':
      this.toMove = null;
      this.away.clear();
      // nothing more to do in it: the chair's tools go, the clocks stand
      // as they ended, and a reload lands in the lobby (the director probe:
      // every button answered "no such live game")
      this.paused = false;
      this.adjourned = false;
      if (this.titled) $('watch-title').textContent = `${this.titled}, over`;
      $('umpire-form').hidden = true;
      $('spec-form').hidden = true;
      this.forget();
      if (typeof ev.fen === 'string') this.board.pieces = fenPieces(ev.fen, null);   // the game is over: public
      break;
    default: break;
    }
    const li = announce($('watch-announcements'), ev, this.seat === 'umpire');
    if (live) speak(li);   // said as it arrives, not the record read at the seat's opening
    if (this.seat === 'umpire' && TRIES.has(ev.event) && ev.move && (ev.by === 'white' || ev.by === 'black')) {
      const li = document.createElement('li');
      li.textContent = `${moveNumber(ev)}${ev.san || ev.move}${ev.event === 'umpire_move' ? '' : ` (${ev.event})`}`;
      $(`tries-${ev.by}`).appendChild(li);
    }
    if (live) this.render();
  }

  render() {
    this.board.render();
    const c = this.connected;
    $('watch-connected').textContent = c
      ? `White ${c.white ? 'connected' : 'away'}, Black ${c.black ? 'connected' : 'away'}` : '';
    if (this.rules === 'crazykrieg') $('watch-hands').textContent = this.hands.text();
    this.tick();
  }

  tick() {
    const away = this.game === null ? '' : [...this.away].map(([c, until]) => awayText(c, until, Date.now())).join('; ');
    if ($('watch-away').textContent !== away) $('watch-away').textContent = away;
    $('watch-away').hidden = !away;
    // An untimed game has no clock: none shown (not the last game's).
    if (!this.game || !this.clock) {
      for (const side of ['white', 'black']) { $(`watch-clock-${side}`).textContent = ''; $(`watch-clock-${side}`).classList.remove('tomove'); }
      return;
    }
    const stands = this.paused ? ' (paused)' : this.adjourned ? ' (adjourned)' : '';
    const el = stands ? 0 : performance.now() - this.ticked;   // (over: toMove null, no side runs)
    for (const side of ['white', 'black']) {
      const e = $(`watch-clock-${side}`);
      e.textContent = `${side} ${fmtClock(this.clock[side] - (side === this.toMove ? el : 0))}${stands}`;
      e.classList.toggle('tomove', side === this.toMove);
    }
  }

  // An umpire's action from the chair; the text box is its reason (or note).
  async act(btn) {
    const type = btn.dataset.act;
    if (!type || !this.game) return;
    const text = $('umpire-text').value.trim();
    if (!text) { this.status('Write a reason (or the note) first'); return; }
    // its buttons send without a submit: the field's own check (too long
    // in bytes, app.js) is asked here, as a submit would
    if (!$('umpire-text').reportValidity()) return;
    const f = { game: this.game };
    if (type === 'note') { f.text = text; f.public = btn.dataset.public === 'true'; } else f.reason = text;
    if (type === 'add_time') { f.color = btn.dataset.color; f.seconds = +$('umpire-seconds').value; }
    if (type === 'adjudicate') f.result = btn.dataset.result;
    if ((type === 'adjudicate' || type === 'umpire_abort') && !confirm(`${btn.textContent}?`)) return;
    const r = await this.net.call(type, f);
    if (!r.ok) { this.status(r.error.message); return; }
    // Said done (an earlier refusal stayed in the status line, read as this
    // action's: the director probe); the text cleared, unless the umpire
    // has typed the next one meanwhile.
    this.status(`${btn.textContent}: done`);
    if ($('umpire-text').value.trim() === text) $('umpire-text').value = '';
  }

  // A spectator's words to the other spectators and the umpires (`spec`).
  async spec() {
    const text = $('spec-text').value.trim();
    if (!text || !this.game) return;
    const r = await this.net.call('spec', { game: this.game, text });
    if (!r.ok) { this.status(r.error.message); return; }
    if ($('spec-text').value.trim() === text) $('spec-text').value = '';
    // in a delayed game it comes back with its ply (the page probe: it
    // seemed lost)
    if (this.delayed) this.status(`Sent: shown with the game, ${plies(this.delayed)} behind`);
  }

  // The seat given up for one's own game (a game began, or one's game is
  // shown): the page shows one game at a time, and the seat's words were
  // read aloud during the player's own game, its watcher counted (the page
  // probe).  Unwatched at the server (an umpire's chair has ended there
  // already: the answer is then a refusal, unread), its board wiped, its
  // events until then dropped (app.js: watch.left).
  drop() {
    // a seat being opened is given up too: open() leaves it when its
    // reply comes (a review: a followed player's game, opened as one's own
    // began, was shown over it)
    for (const o of this.opening.keys()) this.left.add(o);
    const g = this.game;
    if (g === null) return;
    this.left.add(g);
    this.note(`You left game ${g} (${this.seat === 'umpire' ? "the umpire's chair" : 'watching'}) for your own game`);
    this.unwatchLeft(g, this.toMove !== null);
    this.clear();
  }

  // A seat given up (drop), unwatched at the server when send (its game
  // live, the seat taken), and forgotten once answered.
  unwatchLeft(game, send) {
    const done = () => this.left.delete(game);
    if (send) this.net.call('unwatch', { game }).then(done, done); else done();
  }

  async leave() {
    const g = this.game;
    if (g !== null && this.toMove !== null) await this.net.call('unwatch', { game: g });
    this.forget();
    this.reset();
    this.onLeave();
  }
}
