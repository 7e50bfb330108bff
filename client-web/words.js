// words.js — how the page words what it shows.  An announcement's words
// are the server's (`say`, from the rule set's wording table in
// common/ruleset.c: english's "File check", insurance's "You cannot do
// that").  The terminal client words announcements its own way, one
// wording for every rule set with the same information (client-cli/krieg/
// words.c), and uses the table only for a player's own impossible try.
// Only the notices that are not the referee's (an umpire's actions, draw
// offers, adjournment, presence, chat), who heard an announcement, and
// move numbers are worded here, as words.c words them for the terminal.
// (A null-prototype map: a colour from the wire, "constructor" say, finds nothing.)
const SIDE = Object.assign(Object.create(null), { white: 'White', black: 'Black' });

// What a user wrote (words, a reason, a note) or a user's name, in its own
// element isolated from the line around it (<bdi>): its direction marks
// (an unclosed U+202E) reorder nothing outside it.  Said text is styled as
// a quotation, a wrapped line of it visibly part of it (style.css .said).
// Only ever textContent: whatever it holds stays text.
const plain = (x) => (typeof x === 'string' ? x : x === undefined || x === null ? '' : JSON.stringify(x));
export function said(text) {
  const q = document.createElement('bdi');
  q.className = 'said';
  q.textContent = plain(text);
  return q;
}
export function who(name) {
  const n = document.createElement('bdi');
  n.className = 'who';
  n.textContent = plain(name);
  return n;
}

// "12. " or "12... ": the half-move an event belongs to, numbered as chess
// (and krieg's record) does.  `ply` counts the half-moves played when it was
// said: an event of the side that just moved (a capture, a check) belongs
// to that half-move, any other (tries, pawn-try counts) to the next one.
const MOVE_ENDS = new Set(['checkmate', 'stalemate', 'repetition', 'fifty_moves', 'insufficient_material']);
export function moveNumber(ev) {
  if (!Number.isInteger(ev.ply)) return '';
  const by = ev.by === 'white' ? 0 : ev.by === 'black' ? 1 : -1;
  // An end a move made belongs to that move; a resignation, a flag, an
  // agreement to the turn in progress (rules probe: "4. White resigns" on
  // Black's turn), as client-cli/krieg/words.c words_half numbers them.
  // A quiet sequence stopped: in the turn that stopped it, as words_half.
  const half = ev.event === 'game_over' ? (MOVE_ENDS.has(ev.reason) && ev.ply > 0 ? ev.ply : ev.ply + 1)
    : ev.event !== 'quiet_ended' && ev.ply > 0 && by === (ev.ply - 1) % 2 ? ev.ply : ev.ply + 1;
  return `${Math.floor((half + 1) / 2)}${half % 2 === 0 ? '...' : '.'} `;
}

// An umpire's reason or note (their own words), quoted: parts of a line.
function umpireText(ev, key) {
  const t = typeof ev[key] === 'string' ? ev[key] : '';
  return t ? [': ', said(t)] : [];
}

// A side's name ("White"), or `none` for a colour the page does not know.
export const side = (c, none) => SIDE[c] || none;

// The words of one event or notice as a line's parts (strings, and the
// users' words and names in their own elements), or null for one with
// nothing to say.
export function words(ev) {
  switch (ev.event) {
  case 'clock_paused': return ['The umpire paused the clocks', ...umpireText(ev, 'reason')];
  case 'clock_unpaused': return ['The umpire restarted the clocks', ...umpireText(ev, 'reason')];
  case 'time_added':
    return [`The umpire gave ${side(ev.color, 'a side')} ${ev.seconds} more second${ev.seconds === 1 ? '' : 's'}`
      + (Number.isInteger(ev.seconds) && ev.seconds > 60 ? ` (${fmtClock(ev.seconds * 1000)})` : ''), ...umpireText(ev, 'reason')];
  case 'umpire_note':
    return [ev.private ? "Umpire's note (umpires only)" : 'The umpire says', ...umpireText(ev, 'text')];
  case 'draw_offer': return [`${side(ev.by, 'A player')} offers a draw`];
  case 'draw_declined': return [`${side(ev.by, 'A player')} declines the draw`];
  case 'adjourn_offer': return [`${side(ev.by, 'A player')} offers to adjourn`];
  case 'adjourn_declined': return [`${side(ev.by, 'A player')} declines to adjourn`];
  case 'adjourned': return ['The game is adjourned: the clocks are stopped'];
  case 'unadjourned': return [`${side(ev.by, 'A player')} resumes the adjourned game`];
  case 'opponent_away': return [`${side(ev.color, 'Your opponent')} ${ev.again ? 'is still away: a new deadline' : 'has left'}`];
  case 'opponent_back': return [`${side(ev.color, 'Your opponent')} is back`];
  // Chat is a player's words, quoted and named, never the umpire's voice.
  case 'chat':
    return ev.channel === 'spectators'
      ? [ev.user ? who(ev.user) : 'a spectator', ' (spectator) says: "', said(ev.text), '"']
      : [`${side(ev.color, 'A player')} says: "`, said(ev.text), '"'];
  default: break;
  }
  if (typeof ev.say !== 'string' || !ev.say) return null;
  const parts = ev.event === 'game_over' && typeof ev.note === 'string' && ev.note
    ? [`${ev.say} (`, said(ev.note), ')'] : [ev.say];   // the umpire's reason
  // a game's end with its result: "Black resigns" said no one won (the
  // page probe, a spectator's), as krieg says "White wins (1-0)"
  if (ev.event === 'game_over' && RESULTS[ev.result])
    parts.push(/wins|draw/i.test(ev.say) ? ` (${ev.result})` : `. ${RESULTS[ev.result]} (${ev.result})`);
  return parts;
}
const RESULTS = Object.assign(Object.create(null), { '1-0': 'White wins', '0-1': 'Black wins', '1/2-1/2': 'Drawn' });

// Who heard an announcement, for the umpire's record ("everyone", "White").
export function audience(list) {
  if (!Array.isArray(list)) return '';
  const heard = ['white', 'black', 'spectator'].filter((a) => list.includes(a));
  if (heard.length === 3) return 'everyone';
  if (!heard.length) return 'umpire only';
  const names = heard.map((a) => (a === 'spectator' ? 'spectators' : side(a)));
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

// Who heard an announcement of the umpire's list: its audience, or for the
// detailed copy of a try the others heard without its move (a refused try
// told to both: the server lists all who heard it, in either form) "White;
// Black and spectators without the move" (the browser probe: "No: Qe8 —
// everyone" read as if everyone had heard Qe8).  As krieg's words_heard.
export function heardBy(ev) {
  const mover = ev.by === 'white' || ev.by === 'black' ? ev.by : null;
  const others = Array.isArray(ev.audience) ? ev.audience.filter((a) => a !== mover && a !== 'umpire') : [];
  if (!mover || !(ev.move || ev.san) || !ev.audience.includes(mover) || !others.length) return audience(ev.audience);
  return `${side(mover)}; ${audience(others)} without the move`;
}

// Append one numbered line to an announcement list (said as it arrives: speak).
export function announce(ol, ev, withAudience = false) {
  const parts = words(ev);
  if (!parts) return null;
  const li = document.createElement('li');
  // (not an umpire_move's: the mover heard that move, and the others that
  // one was made, each in its own copy, so "umpire only" was untrue: the
  // second browser probe)
  li.append(moveNumber(ev), ...parts,
    withAudience && ev.audience && ev.event !== 'umpire_move' ? ` — ${heardBy(ev)}` : '');
  li.dataset.event = ev.event;
  ol.appendChild(li);
  reveal(ol, li);
  return li;
}

// An announcement as it arrives, said to a screen reader: its words put in
// the page's polite live region (#heard, out of sight), which says each line
// added and nothing else.  The lists themselves are not live: a game opened
// again (a reload, a reconnection) refills its list, which must not be read
// out whole.  The last few lines are kept (two arriving together are both
// said); older ones are dropped (a removal is not said).
// Each line goes after HEARD_MS too: the region is in the accessibility
// tree, and a reader going down the page met old announcements before the
// game (the a11y probe).
const HEARD_KEPT = 5;
const HEARD_MS = 15000;
export function speakText(text) {
  const out = document.getElementById('heard');
  if (!out || !text) return;
  const p = document.createElement('p');
  p.textContent = text;
  out.append(p);
  while (out.children.length > HEARD_KEPT) out.firstElementChild.remove();
  setTimeout(() => p.remove(), HEARD_MS);
}
export function speak(li) {
  if (li) speakText(li.textContent);
}

// Bring li into sight inside its own scrolling list (a max-height one),
// the page left where it is: scrollIntoView scrolls the page too, and on a
// phone, where the lists sit under the board, every announcement took the
// board from under the player's finger (tests/browser/phone.mjs).
export function reveal(ol, li) {
  const o = ol.getBoundingClientRect(), r = li.getBoundingClientRect();
  if (r.bottom > o.bottom) ol.scrollTop += r.bottom - o.bottom;
  else if (r.top < o.top) ol.scrollTop -= o.top - r.top;
}

// An offer's or a game's time control in words, as krieg writes them:
// "5+2" (minutes and seconds of increment), "3 days a move", "untimed".
// The base as krieg writes it (words.c base_text): minutes when they are an
// exact decimal (a whole number of seconds divisible by 3: "5", "0.5",
// "1.25"), else as a clock ("1:40", "0:00.5"); it was base / 60 as it
// came, "1.6666666666666667" for 100 s.  Seconds to the millisecond.
const secondsText = (ms) => String(ms / 1000);
export function timeText(t) {
  if (!t) return 'untimed';
  if (t.days) return `${t.days} day${t.days === 1 ? '' : 's'} a move`;
  const ms = Math.round(t.base * 1000), inc = secondsText(Math.round((t.inc || 0) * 1000));
  if (ms % 3000 === 0) return `${ms / 60000}+${inc}`;
  const sec = ms % 60000;
  return `${Math.floor(ms / 60000)}:${sec < 10000 ? '0' : ''}${secondsText(sec)}+${inc}`;
}

// Each rule set in a line, as krieg's `help RULES` opens (client-cli/krieg/
// words.c rules_help): where it comes from, and what it tells (the page
// newcomer probe: the Rules list named them and nothing said more).
export const RULESET_ABOUT = Object.assign(Object.create(null), {
  icc: 'the default (ICC wild 16, the Computer Olympiad): the number of pawn captures at each turn; a refused try is told to its mover alone; captures say pawn or piece',
  english: 'the Gambit Club, London, 1933: "Any?" asks whether a pawn can capture (after a yes try one first); refused tries heard by both; captures by square',
  insurance: 'the Insurance Chess Club, 1993: "Any?" from your second move; refused tries heard by both; the umpire says each move in a sentence',
  nost: 'NOST postal rules, 1995: whether a pawn can capture at each turn; the opponent hears how many tries you made; preference lists and "if quiet"',
  gollon: 'the Gollon / Pritchard card: "Any?" answered "Try!"; every announcement heard by both; en passant named',
  berkeley: 'Berkeley, as kriegspiel.org plays it: nothing said of pawn captures, no "Any?"; illegal tries heard by both',
  berkeley_any: 'Berkeley with "Any?": after a yes only pawn captures may be tried until one is played',
  cincinnati: 'whether a pawn can capture at each turn, heard by both; refused tries heard by both; captures say pawn or piece',
  rand: 'RAND rules: the squares of the pawns that can capture; refused tries heard by both; stalemate loses',
  crazykrieg: 'with Crazyhouse drops: a man you capture joins your reserve and may be dropped (N@f3); drops told by their man',
});

// " (a bot)" after a colour's player when a bot account plays it (a game's
// `bots`: its view, a seat's reply, the live list), else "".
export const botMark = (g, color) => (Array.isArray(g.bots) && g.bots.includes(color) ? ' (a bot)' : '');

// A director's pairing's tournament and round, as a title says them:
// ", Club Open, round 3" ("" for any other game; strings only).
export function tagsText(g) {
  const t = typeof g.tournament === 'string' ? g.tournament : '';
  const r = typeof g.round === 'string' ? `round ${g.round}` : '';
  return [t, r].filter((x) => x).map((x) => `, ${x}`).join('');
}

// A moment (ms since the epoch) as "2026-12-06 19:02" in this computer's
// own time, as every time on the page is (the log's, the away deadline's):
// messages were in UTC and the profile's date in UTC's day, the log local.
export function localStamp(ms) {
  const d = new Date(ms), two = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

// An away player's deadline by this computer's clock (ms since the epoch),
// from what the server said (`x`: an opponent_away event, a game_state's
// opponent_away, a seat's away entry) at `now`: the server's `left` from
// now, as this computer's clock may be minutes off the server's (a clock 2
// minutes fast said "in 0:00" of a minute's grace); its `until` from a
// server that sends no `left`; null for no deadline.
export function awayDeadline(x, now) {
  if (Number.isFinite(x?.left)) return now + Math.max(0, x.left);
  return Number.isFinite(x?.until) ? x.until : null;
}

// A player away (PROTOCOL.md, Presence), and their deadline: the time of
// day it falls (`until`, ms since the epoch) and what is left of it; null
// for a game without one (correspondence, an adjourned or paused game...).
// A correspondence game (`days`) has no abandonment: its clock is the
// limit (the correspondence probe: "the game waits for them" of a clock
// that runs).
export function awayText(color, until, now, days = false) {
  const name = side(color, 'Your opponent');
  if (until === null && days) return `${name} is away (a correspondence game: only its clock limits a move)`;
  if (until === null) return `${name} is away (no deadline: the game waits for them)`;
  const at = new Date(until).toTimeString().slice(0, 8);
  return `${name} is away: back by ${at} (in ${fmtClock(until - now)}) or the game is lost by abandonment`;
}

// As krieg shows a clock: "4:59", "1:02:03", a correspondence game's "2d 23:59";
// rounded up, so that 0:00 means the time is gone.
export function fmtClock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
  const two = (n) => String(n).padStart(2, '0');
  if (d) return `${d}d ${two(h)}:${two(m)}`;
  if (h) return `${h}:${two(m)}:${two(s % 60)}`;
  return `${m}:${two(s % 60)}`;
}

// A finished game's result and reason as the wire names them ("0-1",
// "resignation") in words, as krieg's words_ending: "0-1 by resignation",
// "1-0 on time", "aborted"; a reason this page does not know as it came.
const ENDINGS = Object.assign(Object.create(null), {
  checkmate: 'checkmate', stalemate: 'stalemate', repetition: 'threefold repetition',
  fifty_moves: 'the fifty-move rule', insufficient_material: 'insufficient material',
  resignation: 'resignation', agreement: 'agreement', abandoned: 'abandonment',
  adjudication: "the umpire's decision",
});
export function ending(result, reason) {
  const r = typeof result === 'string' && result ? result : '*';
  if (reason === 'aborted') return 'aborted';
  if (reason === 'time') return `${r} on time`;
  if (typeof reason === 'string' && ENDINGS[reason]) return `${r} by ${ENDINGS[reason]}`;
  return typeof reason === 'string' && reason ? `${r} (${reason})` : r;
}
