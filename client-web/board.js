// board.js — one's own pieces on an SVG board, the ghosts one places for
// the opponent, and tries by click then click, or by drag.  With no onTry
// it only shows a board (the spectator's, or the umpire's true one).  Knows no rules:
// the referee (kriegd) decides; the board only shows what one was told.
const GLYPH = { K: '♔', Q: '♕', R: '♖', B: '♗', N: '♘', P: '♙', k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };
const NS = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefgh';
export const sqName = (f, r) => FILES[f] + (r + 1);

// A square's coordinate label at (x, y), in the other square colour's ink.
function coord(x, y, anchor, label, light) {
  const t = document.createElementNS(NS, 'text');
  Object.entries({ x, y, 'text-anchor': anchor, 'dominant-baseline': anchor === 'end' ? 'auto' : 'hanging' })
    .forEach(([k, v]) => t.setAttribute(k, v));
  t.setAttribute('class', light ? 'coord on-light' : 'coord on-dark');
  t.textContent = label;
  return t;
}

// color null: both sides' pieces (the umpire's chair, a finished game's fen).
export function fenPieces(fen, color) {
  const out = new Map();
  const rows = fen.split(' ')[0].split('/');
  rows.forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (ch === '[') break;   // crazyhouse FEN: the reserves follow the last rank ("RNBQKBNR[Pp]")
      if (/\d/.test(ch)) { f += +ch; continue; }
      const white = ch === ch.toUpperCase();
      if (color === null || (color === 'white') === white) out.set(sqName(f, 7 - i), ch);
      f++;
    }
  });
  return out;
}

// A move of side `by` on the true board (both sides' men, a Map as
// fenPieces gives): castling as the king's two squares, en passant (a pawn
// onto an empty square of another file takes the pawn beside it), promotion,
// a drop ("N@f3", crazykrieg).  The umpire's record replayed (record.js).
export function applyTrue(pieces, uci, by) {
  const side = (p) => (by === 'white' ? p.toUpperCase() : p.toLowerCase());
  if (uci[1] === '@') { pieces.set(uci.slice(2, 4), side(uci[0])); return; }
  const from = uci.slice(0, 2), to = uci.slice(2, 4), promo = uci[4];
  let p = pieces.get(from);
  if (!p) return;
  if (p.toLowerCase() === 'p' && from[0] !== to[0] && !pieces.has(to)) pieces.delete(to[0] + from[1]);
  pieces.delete(from);
  if (promo) p = side(promo);
  pieces.set(to, p);
  if (p.toLowerCase() === 'k' && Math.abs(from.charCodeAt(0) - to.charCodeAt(0)) === 2) {
    const [rf, rt] = to[0] === 'g' ? ['h', 'f'] : ['a', 'd'];
    const rook = pieces.get(rf + from[1]);
    if (rook) { pieces.delete(rf + from[1]); pieces.set(rt + from[1], rook); }
  }
}

export class Board {
  // onTry null: a board to look at (spectator, umpire), no tries, no ghosts.
  constructor(el, onTry) {
    this.el = el;
    this.onTry = onTry;
    this.pieces = new Map();
    this.ghosts = new Map();
    this.color = 'white';
    this.sel = null;
    this.drag = null;   // { from, glyph, moved } while a piece is dragged
  }
  // A move of one's own, in coordinates ("e2e4", "e7e8q", castling as the king's move).
  applyOwn(uci) {
    if (uci[1] === '@') {   // a drop (crazykrieg): "N@f3"
      const to = uci.slice(2, 4);
      this.pieces.set(to, this.color === 'white' ? uci[0].toUpperCase() : uci[0].toLowerCase());
      this.ghosts.delete(to);
      return;
    }
    const from = uci.slice(0, 2), to = uci.slice(2, 4), promo = uci[4];
    let p = this.pieces.get(from);
    if (!p) return;
    this.pieces.delete(from);
    if (promo) p = this.color === 'white' ? promo.toUpperCase() : promo;
    this.pieces.set(to, p);
    this.ghosts.delete(to);
    if (p.toLowerCase() === 'k' && Math.abs(from.charCodeAt(0) - to.charCodeAt(0)) === 2) {
      const rank = from[1];
      const [rf, rt] = to[0] === 'g' ? ['h', 'f'] : ['a', 'd'];
      const rook = this.pieces.get(rf + rank);
      if (rook) { this.pieces.delete(rf + rank); this.pieces.set(rt + rank, rook); }
    }
  }
  lose(square) { this.pieces.delete(square); }
  render() {
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '0 0 400 400');
    svg.setAttribute('role', 'img');
    const flip = this.color === 'black';
    for (let r = 0; r < 8; r++) for (let f = 0; f < 8; f++) {
      const x = (flip ? 7 - f : f) * 50, y = (flip ? r : 7 - r) * 50;
      const name = sqName(f, r);
      const rect = document.createElementNS(NS, 'rect');
      Object.entries({ x, y, width: 50, height: 50, 'data-square': name }).forEach(([k, v]) => rect.setAttribute(k, v));
      rect.setAttribute('class', name === this.sel ? 'sq-sel' : (f + r) % 2 ? 'sq-light' : 'sq-dark');
      if (this.onTry) {
        rect.addEventListener('click', () => this.click(name));
        rect.addEventListener('contextmenu', (e) => { e.preventDefault(); this.ghost(name); });
        rect.addEventListener('pointerdown', (e) => this.dragStart(e, svg, name));
      }
      svg.appendChild(rect);
      // Coordinates on the edge squares, as on a printed board: the files
      // along the bottom, the ranks up the left, whichever side is below.
      if (r === (flip ? 7 : 0)) svg.appendChild(coord(x + 47, y + 47, 'end', FILES[f], (f + r) % 2));
      if (f === (flip ? 7 : 0)) svg.appendChild(coord(x + 3, y + 3, 'start', String(r + 1), (f + r) % 2));
      const p = this.pieces.get(name) || this.ghosts.get(name);
      if (p) {
        const t = document.createElementNS(NS, 'text');
        t.setAttribute('x', x + 25); t.setAttribute('y', y + 27);
        t.setAttribute('class', this.pieces.has(name) ? 'piece' : 'piece ghost');
        t.textContent = GLYPH[p];
        t.dataset.on = name;
        svg.appendChild(t);
      }
    }
    if (this.onTry) {
      svg.addEventListener('pointermove', (e) => this.dragMove(e, svg));
      svg.addEventListener('pointerup', (e) => this.dragEnd(e, svg));
      svg.addEventListener('pointercancel', () => { this.drag = null; this.render(); });
    }
    this.el.replaceChildren(svg);
  }
  // The square under a pointer, from the board's own geometry.
  squareAt(e, svg) {
    const r = svg.getBoundingClientRect();
    let f = Math.floor(((e.clientX - r.left) / r.width) * 8);
    let rank = 7 - Math.floor(((e.clientY - r.top) / r.height) * 8);
    if (f < 0 || f > 7 || rank < 0 || rank > 7) return null;
    if (this.color === 'black') { f = 7 - f; rank = 7 - rank; }
    return sqName(f, rank);
  }
  // Drag to move: press on an own piece, let go on the target square.  A
  // press and release on the same square stays a click (select, then click).
  dragStart(e, svg, name) {
    if (!this.pieces.has(name) || e.button !== 0) return;
    const glyph = [...svg.querySelectorAll('text')].find((t) => t.dataset.on === name);
    this.drag = { from: name, glyph, moved: false, x: e.clientX, y: e.clientY };
  }
  dragMove(e, svg) {
    if (!this.drag || !this.drag.glyph) return;
    // A few pixels of jitter in a click is not a drag.
    if (!this.drag.moved && Math.hypot(e.clientX - this.drag.x, e.clientY - this.drag.y) < 6) return;
    const r = svg.getBoundingClientRect();
    this.drag.moved = true;
    this.drag.glyph.setAttribute('x', ((e.clientX - r.left) / r.width) * 400);
    this.drag.glyph.setAttribute('y', ((e.clientY - r.top) / r.height) * 400);
  }
  dragEnd(e, svg) {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    const to = this.squareAt(e, svg);
    if (!to || to === d.from || !d.moved) { if (d.moved) this.render(); return; }
    this.sel = null;
    this.render();
    this.tryTo(d.from, to);
  }
  tryTo(from, to) {
    const p = this.pieces.get(from);
    const last = this.color === 'white' ? '8' : '1';
    this.onTry(from + to, p.toLowerCase() === 'p' && to[1] === last);
  }
  // Right click cycles a ghost of the opponent's on an empty square.
  ghost(name) {
    if (this.pieces.has(name)) return;
    const cycle = this.color === 'white' ? ['p', 'n', 'b', 'r', 'q', 'k', null] : ['P', 'N', 'B', 'R', 'Q', 'K', null];
    const next = cycle[(cycle.indexOf(this.ghosts.get(name) ?? null) + 1) % cycle.length];
    if (next) this.ghosts.set(name, next); else this.ghosts.delete(name);
    this.render();
  }
  click(name) {
    if (this.sel === null) {
      if (this.pieces.has(name)) this.sel = name;
    } else if (this.sel === name) {
      this.sel = null;
    } else if (this.pieces.has(name)) {
      this.sel = name;
    } else {
      const from = this.sel;
      this.sel = null;
      this.render();
      this.tryTo(from, name);
      return;
    }
    this.render();
  }
}
