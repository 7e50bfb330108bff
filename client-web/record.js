// record.js — reading games back (PROTOCOL.md "History"): one audience's
// record of a game, numbered by move, and its PGN as a download.  A
// finished game may be read in every view; a live one of one's own only in
// one's own colour, and any live one by an umpire (the server refuses the
// rest, and the page says so).
import { announce, reveal } from './words.js';
import { Board, applyTrue, fenPieces } from './board.js';

const $ = (id) => document.getElementById(id);

export class RecordView {
  constructor(net, show, status, toLobby) {
    this.net = net;
    this.show = show;
    this.status = status;
    this.game = null;
    this.view = null;
    $('btn-pgn').addEventListener('click', () => this.downloadPgn());
    // the lobby as it is now (the a11y probe: the game just read was not
    // in Your games, nor its Rematch)
    $('btn-record-back').addEventListener('click', toLobby);
    // The umpire's view holds every move: the true board, replayed move by move.
    this.board = new Board($('record-board'), null, { label: 'the true board', help: 'view-board-help' });
    this.moves = [];
    this.moveItems = [];   // the record's line of each move (open), marked by replay
    this.at = 0;
    const go = (f) => () => this.replay(f());
    $('btn-replay-start').addEventListener('click', go(() => 0));
    $('btn-replay-back').addEventListener('click', go(() => this.at - 1));
    $('btn-replay-next').addEventListener('click', go(() => this.at + 1));
    $('btn-replay-end').addEventListener('click', go(() => this.moves.length));
    // The arrow keys step too, and Home and End, while the replay is shown
    // (not while a field has the keys, nor the board, whose squares they walk).
    const keys = { ArrowLeft: () => this.at - 1, ArrowRight: () => this.at + 1, Home: () => 0, End: () => this.moves.length };
    document.addEventListener('keydown', (e) => {
      if (!keys[e.key] || $('replay').hidden || $('record').hidden || e.target.closest('input, textarea, select, [role=grid]')) return;
      e.preventDefault();
      this.replay(keys[e.key]());
    });
  }

  // The true board after the first n moves of the record.
  replay(n) {
    this.at = Math.max(0, Math.min(n, this.moves.length));
    const pieces = fenPieces(this.fen, null);
    this.moves.slice(0, this.at).forEach((m) => applyTrue(pieces, m.move, m.by));
    this.board.pieces = pieces;
    this.board.render();
    // The record's line of the move shown, marked and scrolled to.
    this.moveItems.forEach((li, i) => li.classList.toggle('current', i === this.at - 1));
    const li = this.moveItems[this.at - 1];
    if (li) reveal(li.parentElement, li);
    const last = this.moves[this.at - 1];
    $('replay-at').textContent = `move ${this.at} of ${this.moves.length}${last ? `: ${last.by} played ${last.san || last.move}` : ''}`;
  }

  async open(game, view) {
    const r = await this.net.callAll('record', { game, view }, 'events');
    if (!r.ok) { this.status(r.error.message); return r; }
    this.game = game;
    this.view = view;
    const result = r.live ? 'in progress' : `${r.result || '*'} (${r.reason || ''})`;
    $('record-title').textContent = `Game ${game}: ${r.white} – ${r.black} (${r.rules}), ${view}'s view, ${result}`;
    const ol = $('record-events');
    ol.replaceChildren();
    this.fen = r.fen || 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
    this.moves = [];
    this.moveItems = [];
    // Every line of the umpire's record replays the board to where it was
    // said (a click); the moves' own lines are the ones marked.
    r.events.forEach((ev) => {
      const li = announce(ol, ev, view === 'umpire');
      if (ev.event === 'umpire_move' && ev.move) {
        this.moves.push(ev);
        if (li) this.moveItems[this.moves.length - 1] = li;
      }
      if (li && view === 'umpire') {
        const at = this.moves.length;
        li.dataset.at = at;
        li.addEventListener('click', () => this.replay(at));
      }
    });
    $('replay').hidden = view !== 'umpire';
    this.replay(this.moves.length);   // the end: how the game stood
    this.show('record');
    return r;
  }

  // The record read by a session now gone: off the page.
  clear() {
    this.game = null;
    this.view = null;
    this.moves = [];
    this.moveItems = [];
    ['record-title', 'record-events', 'replay-at'].forEach((id) => $(id).replaceChildren());
    this.board.pieces = new Map();
    this.board.render();
    $('replay').hidden = true;
  }

  downloadPgn() {
    return savePgn(this.net, this.status, this.game, this.view);
  }
}

// A game's whole PGN text in one view (every chunk of it), saved as a
// download: from a record's page, and from the umpire's chair mid-game.
export async function savePgn(net, status, game, view) {
  const r = await net.callAll('pgn', { game, view }, 'pgn');
  if (!r.ok) { status(r.error.message); return; }
  // A Blob URL: the page fetches nothing from anywhere, the CSP holds.
  const url = URL.createObjectURL(new Blob([r.pgn], { type: 'application/x-chess-pgn' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `krieg-${game}-${view}.pgn`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
