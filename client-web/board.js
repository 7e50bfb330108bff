// board.js — one's own pieces on an SVG board, the ghosts one places for
// the opponent, and tries by click then click (or drag).  Knows no rules:
// the referee (kriegd) decides; the board only shows what one was told.
const GLYPH = { K: '♔', Q: '♕', R: '♖', B: '♗', N: '♘', P: '♙', k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };
const NS = 'http://www.w3.org/2000/svg';
export const sqName = (f, r) => 'abcdefgh'[f] + (r + 1);

export function fenPieces(fen, color) {
  const out = new Map();
  const rows = fen.split(' ')[0].split('/');
  rows.forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { f += +ch; continue; }
      const white = ch === ch.toUpperCase();
      if ((color === 'white') === white) out.set(sqName(f, 7 - i), ch);
      f++;
    }
  });
  return out;
}

export class Board {
  constructor(el, onTry) {
    this.el = el;
    this.onTry = onTry;
    this.pieces = new Map();
    this.ghosts = new Map();
    this.color = 'white';
    this.sel = null;
  }
  // A move of one's own, in coordinates ("e2e4", "e7e8q", castling as the king's move).
  applyOwn(uci) {
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
      rect.addEventListener('click', () => this.click(name));
      rect.addEventListener('contextmenu', (e) => { e.preventDefault(); this.ghost(name); });
      svg.appendChild(rect);
      const p = this.pieces.get(name) || this.ghosts.get(name);
      if (p) {
        const t = document.createElementNS(NS, 'text');
        t.setAttribute('x', x + 25); t.setAttribute('y', y + 27);
        t.setAttribute('class', this.pieces.has(name) ? 'piece' : 'piece ghost');
        t.textContent = GLYPH[p];
        svg.appendChild(t);
      }
    }
    this.el.replaceChildren(svg);
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
      const p = this.pieces.get(from);
      const last = this.color === 'white' ? '8' : '1';
      this.onTry(from + name, p.toLowerCase() === 'p' && name[1] === last);
    }
    this.render();
  }
}
