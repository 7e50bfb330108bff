// hands.js — crazykrieg's reserves, as every seat may know them: both are
// public.  A capture puts the man taken (a promoted one as a pawn, as the
// server words it) in the captor's hand; a drop takes it out.  Both events
// go to everyone, so a player's page and a spectator's keep the same count.
// Queen first, as krieg's board shows them.
const LETTERS = { queen: 'Q', rook: 'R', bishop: 'B', knight: 'N', pawn: 'P' };

export class Hands {
  constructor() { this.reset(); }

  reset() { this.men = { white: {}, black: {} }; }

  // One event of the game: a capture or a drop changes a hand.
  event(ev) {
    if ((ev.event !== 'capture' && ev.event !== 'drop') || !Object.hasOwn(LETTERS, ev.what) || !Object.hasOwn(this.men, ev.by)) return;
    const h = this.men[ev.by];
    h[ev.what] = (h[ev.what] || 0) + (ev.event === 'capture' ? 1 : -1);
  }

  // "In hand: White N P | Black –"
  text() {
    const side = (c) => Object.keys(LETTERS).filter((m) => this.men[c][m] > 0)
      .map((m) => LETTERS[m].repeat(this.men[c][m])).join(' ') || '–';
    return `In hand: White ${side('white')} | Black ${side('black')}`;
  }
}
