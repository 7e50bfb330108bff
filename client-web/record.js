// record.js — reading games back (PROTOCOL.md "History"): one audience's
// record of a game, numbered by move, and its PGN as a download.  A
// finished game may be read in every view; a live one of one's own only in
// one's own colour (the server refuses the rest, and the page says so).
import { announce } from './words.js';

const $ = (id) => document.getElementById(id);

export class RecordView {
  constructor(net, show, status) {
    this.net = net;
    this.show = show;
    this.status = status;
    this.game = null;
    this.view = null;
    $('btn-pgn').addEventListener('click', () => this.downloadPgn());
    $('btn-record-back').addEventListener('click', () => this.show('lobby'));
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
    r.events.forEach((ev) => announce(ol, ev, view === 'umpire'));
    this.show('record');
    return r;
  }

  // The whole PGN text, every chunk of it.
  async pgn(game, view) {
    const r = await this.net.callAll('pgn', view ? { game, view } : { game }, 'pgn');
    if (!r.ok) { this.status(r.error.message); return null; }
    return r.pgn;
  }

  async downloadPgn() {
    const text = await this.pgn(this.game, this.view);
    if (text === null) return;
    // A Blob URL: the page fetches nothing from anywhere, the CSP holds.
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-chess-pgn' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `krieg-${this.game}-${this.view}.pgn`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }
}
