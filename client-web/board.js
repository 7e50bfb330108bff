// board.js — one's own pieces on an SVG board, the ghosts one places for
// the opponent, and tries by click then click, by drag, or from the keyboard
// (an ARIA grid: the Board class below).  With no onTry
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

// A man's name, for the square's name a screen reader says ("e4, white pawn").
const MAN = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
const manName = (p) => `${p === p.toUpperCase() ? 'white' : 'black'} ${MAN[p.toLowerCase()]}`;
// The arrow keys' steps on the board as it is seen: [files, ranks] for White below.
const STEP = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

export class Board {
  // onTry null: a board to look at (spectator, umpire), no tries, no ghosts.
  // The board is an ARIA grid (label: its name; help: the id of the words
  // that say how to play on it): each square a cell named by its square and
  // what one sees there ("e4, white pawn", "e4, empty"), one of them in the
  // Tab order, the arrow keys going from square to square; Enter or Space
  // is a click, the context-menu key (Shift+F10) a right click.
  constructor(el, onTry, { label = 'the board', help = null } = {}) {
    this.el = el;
    this.onTry = onTry;
    this.label = label;
    this.help = help;
    this.pieces = new Map();
    this.ghosts = new Map();
    this.color = 'white';
    this.sel = null;
    this.cursor = null;   // the square in the Tab order (the keyboard's)
    this.svg = null;
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
  // The squares, built once for the side below: a row of the grid for each
  // rank, top to bottom as seen, each file left to right; the coordinates
  // and the men drawn are hidden from the accessibility tree (the cells'
  // names say them).  The board is then redrawn in place (render), so the
  // square the keyboard is on keeps the focus while events arrive.
  build(flip) {
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '0 0 400 400');
    svg.setAttribute('role', 'grid');
    svg.setAttribute('aria-label', this.label);
    if (this.help) svg.setAttribute('aria-describedby', this.help);
    svg.setAttribute('tabindex', '-1');   // its squares are in the Tab order, not it (chromium's SVG with key listeners was)
    this.rects = new Map();
    for (let row = 0; row < 8; row++) {
      const g = document.createElementNS(NS, 'g');
      g.setAttribute('role', 'row');
      const r = flip ? row : 7 - row;
      for (let col = 0; col < 8; col++) {
        const f = flip ? 7 - col : col;
        const x = col * 50, y = row * 50;
        const name = sqName(f, r);
        const rect = document.createElementNS(NS, 'rect');
        Object.entries({ x, y, width: 50, height: 50, 'data-square': name, role: 'gridcell' }).forEach(([k, v]) => rect.setAttribute(k, v));
        if (this.onTry) {
          rect.addEventListener('click', () => this.click(name));
          rect.addEventListener('contextmenu', (e) => { e.preventDefault(); this.ghost(name); });
          rect.addEventListener('pointerdown', (e) => this.dragStart(e, svg, name));
        }
        g.appendChild(rect);
        this.rects.set(name, rect);
        // Coordinates on the edge squares, as on a printed board: the files
        // along the bottom, the ranks up the left, whichever side is below.
        const hide = (t) => { t.setAttribute('aria-hidden', 'true'); return t; };
        if (row === 7) g.appendChild(hide(coord(x + 47, y + 47, 'end', FILES[f], (f + r) % 2)));
        if (col === 0) g.appendChild(hide(coord(x + 3, y + 3, 'start', String(r + 1), (f + r) % 2)));
      }
      svg.appendChild(g);
    }
    // The keyboard's square outlined, inside it (only when it has the
    // focus from the keyboard: a click shows no outline).
    this.ring = document.createElementNS(NS, 'rect');
    Object.entries({ width: 44, height: 44, class: 'sq-focus', 'aria-hidden': 'true' }).forEach(([k, v]) => this.ring.setAttribute(k, v));
    this.ring.setAttribute('hidden', '');
    svg.appendChild(this.ring);
    svg.addEventListener('focusin', (e) => {
      const sq = e.target.dataset?.square;
      if (!sq) return;
      if (sq !== this.cursor) this.setCursor(sq);
      this.ring.setAttribute('x', +e.target.getAttribute('x') + 3);
      this.ring.setAttribute('y', +e.target.getAttribute('y') + 3);
      this.ring.toggleAttribute('hidden', !e.target.matches(':focus-visible'));
    });
    svg.addEventListener('focusout', () => this.ring.setAttribute('hidden', ''));
    svg.addEventListener('keydown', (e) => this.key(e));
    if (this.onTry) {
      svg.addEventListener('pointermove', (e) => this.dragMove(e, svg));
      svg.addEventListener('pointerup', (e) => this.dragEnd(e, svg));
      svg.addEventListener('pointercancel', () => { this.drag = null; this.render(); });
    }
    this.svg = svg;
    this.flip = flip;
    this.cursor = null;
    this.el.replaceChildren(svg);
  }
  // What one sees on a square, in words: one's own man (or, on a board to
  // look at, whatever the server showed there), a ghost one placed oneself.
  squareLabel(name) {
    const p = this.pieces.get(name), g = this.ghosts.get(name);
    const what = p ? manName(p) : g ? `empty, your mark: ${manName(g)}` : 'empty';
    return `${name}, ${what}${name === this.sel ? ', selected' : ''}`;
  }
  render() {
    const flip = this.color === 'black';
    if (!this.svg || this.flip !== flip) this.build(flip);
    const svg = this.svg;
    if (!this.cursor) this.cursor = flip ? 'h8' : 'a1';   // the corner below on the left
    svg.querySelectorAll('text.piece').forEach((t) => t.remove());
    for (const [name, rect] of this.rects) {
      const f = FILES.indexOf(name[0]), r = +name[1] - 1;
      rect.setAttribute('class', name === this.sel ? 'sq-sel' : (f + r) % 2 ? 'sq-light' : 'sq-dark');
      rect.setAttribute('aria-label', this.squareLabel(name));
      rect.setAttribute('tabindex', name === this.cursor ? '0' : '-1');
      const p = this.pieces.get(name) || this.ghosts.get(name);
      if (p) {
        const t = document.createElementNS(NS, 'text');
        t.setAttribute('x', +rect.getAttribute('x') + 25); t.setAttribute('y', +rect.getAttribute('y') + 27);
        t.setAttribute('class', this.pieces.has(name) ? 'piece' : 'piece ghost');
        t.setAttribute('aria-hidden', 'true');
        t.textContent = GLYPH[p];
        t.dataset.on = name;
        svg.insertBefore(t, this.ring);
      }
    }
  }
  // The keyboard's square moved (the Tab order's one with it).
  setCursor(name) {
    this.rects.get(this.cursor)?.setAttribute('tabindex', '-1');
    this.cursor = name;
    this.rects.get(name).setAttribute('tabindex', '0');
  }
  // The focus given to the keyboard's square (after the promotion chooser).
  focus() {
    if (!this.svg) this.render();
    this.rects.get(this.cursor)?.focus({ preventScroll: true });
  }
  key(e) {
    const name = e.target.dataset?.square;
    if (!name || e.altKey || e.ctrlKey || e.metaKey) return;
    const step = STEP[e.key];
    if (step) {
      const s = this.flip ? -1 : 1;
      const f = FILES.indexOf(name[0]) + step[0] * s, r = +name[1] - 1 + step[1] * s;
      e.preventDefault();
      if (f < 0 || f > 7 || r < 0 || r > 7) return;
      this.setCursor(sqName(f, r));
      this.rects.get(this.cursor).focus();
    } else if (this.onTry && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      this.click(name);
    } else if (this.onTry && e.key === 'Escape' && this.sel !== null) {
      e.preventDefault();
      this.sel = null;
      this.render();
    }
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
