// net.js — the protocol over a WebSocket: one JSON line per text message
// (proto/PROTOCOL.md, "WebSocket transport").  Requests get ids; replies are
// matched by id; events go to the listener.

// A dead path (a phone's network gone, a NAT that forgot the connection: no
// FIN, no RST) closes no socket: only the server's silence tells, as it
// does krieg (client-cli/krieg/client.h, the same values).  When a request
// has waited QUIET_MS for its answer, or a live game here has heard nothing
// for that long, a `ping` is sent; nothing at all from the server within
// DEAD_MS after it, and the connection is taken for lost: the socket is
// closed and the page reconnects as after any drop.  A socket still
// connecting (or opened, its greeting awaited) is given QUIET_MS + DEAD_MS.
// The silence is the server's only while the page could hear it.  A page
// that does not run for a while (frozen by the browser: a background tab;
// its process stopped: a phone's suspended tab; the machine asleep) runs no
// timer and no handler, while performance.now() may go on (it does in
// Chromium for a frozen or stopped page).  At the thaw the overdue check can
// run before what came meanwhile, or what comes just after (the network back
// a moment after the wake), is delivered: the ping would be found DEAD_MS
// old and a healthy path given up.  So a check that comes late (more than
// LATE_MS after the one before: the page did not run meanwhile) restarts
// the wait it finds: the ping out counts as sent now (DEAD_MS from the
// thaw), a socket connecting has its QUIET_MS + DEAD_MS from now.  A quiet
// live game (or a request) past QUIET_MS is pinged at once, as ever.  A
// dead path is still given up DEAD_MS (or QUIET_MS + DEAD_MS) after the
// thaw.  Once per wait: a page whose every check comes late (Chromium runs
// the timers of a tab hidden for 5 minutes once a minute) but which hears
// what comes meanwhile would else never give a dead path up; its next late
// check judges as ever.  The lateness is the rule, not the Page Lifecycle's
// `resume` event: a machine's sleep fires none.
export const QUIET_MS = 15000;
export const DEAD_MS = 10000;
const ALIVE_CHECK_MS = 1000;   // how often the silence is measured
const LATE_MS = 3 * ALIVE_CHECK_MS;   // a check this late: the page was not running
// The messages kept as received (the tests compare them): the last
// FRAMES_KEPT at least, so that a long session does not grow without end.
const FRAMES_KEPT = 5000;
export class Net {
  constructor(onEvent, onClose) {
    this.nextId = 1;
    this.pending = new Map();
    this.onEvent = onEvent;
    this.onClose = onClose;
    this.frames = [];   // every message received, as sent: the tests compare them
    // Whether a game here goes on (set by the page): its silence is a question.
    this.live = () => false;
    this.lastRx = 0;      // when the last message came (or the socket was made): performance.now()
    this.probeAt = null;  // when the liveness `ping` went out; null: none out
    this.sentAt = new Map();   // request id → when it was sent
    this.types = new Map();    // request id → its type (asking())
    this.timer = null;
    this.tickAt = 0;       // when alive() last ran (or the socket was made)
    this.excused = false;  // the wait measured now was restarted by a late check
  }
  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
      this.ws = ws;
      this.greeting = null;
      this.refusal = null;
      this.lastRx = performance.now();   // a new connection: its silence counts from here
      this.tickAt = this.lastRx;
      this.probeAt = null;
      this.excused = false;
      clearInterval(this.timer);
      this.timer = setInterval(() => this.alive(), ALIVE_CHECK_MS);
      ws.onmessage = (m) => {
        this.lastRx = performance.now();   // whatever it is, the path carries
        this.probeAt = null;
        this.excused = false;
        this.frames.push(m.data);
        if (this.frames.length > 2 * FRAMES_KEPT) this.frames.splice(0, this.frames.length - FRAMES_KEPT);
        const msg = parse(m.data);
        this.refusal = null;   // one said before the close is its last message (a review: a stale one)
        if (!msg) return;   // not a JSON object: nothing the protocol sends
        if (msg.event === 'greeting') { this.greeting = msg; resolve(msg); }
        // A refusal said unasked ("id": null: server_full instead of the
        // greeting, before the server closes): kept for the close to say
        // (the page said only "connection lost": the browser probe).
        if (msg.id === null && msg.ok === false && msg.error && typeof msg.error.message === 'string') {
          this.refusal = msg.error;
          return;
        }
        if ('id' in msg && 'ok' in msg && this.pending.has(msg.id)) {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          this.sentAt.delete(msg.id);
          this.types.delete(msg.id);
          p(msg);
          return;
        }
        if (typeof msg.event === 'string') this.onEvent(msg);
      };
      // The end of this socket: closed, or its path found dead (alive()).
      this.ended = (e) => {
        clearInterval(this.timer);
        this.timer = null;
        this.ended = null;
        this.probeAt = null;
        // Nothing more will answer: each request waiting is answered here.
        const lost = { ok: false, error: { code: 'disconnected', message: 'the connection was lost' } };
        for (const p of this.pending.values()) p(lost);
        this.pending.clear();
        this.sentAt.clear();
        this.types.clear();
        const said = this.refusal;
        this.refusal = null;
        this.onClose(e, said);
        reject(e);
      };
      ws.onclose = (e) => { if (this.ws === ws && this.ended) this.ended(e); };
    });
  }
  // Is the connection alive?  Run every ALIVE_CHECK_MS while a socket is
  // open (see QUIET_MS).  A dead one is given up at once: its close would
  // wait for a closing handshake the dead path never carries (a minute in
  // Chromium), so its handlers are dropped and the drop is told now, as
  // {silent: true, silentMs} (the page says so, and reconnects).  A late
  // check (LATE_MS) restarts the wait it finds, once (see QUIET_MS).
  alive() {
    const ws = this.ws;
    if (!ws || !this.ended) return;
    const t = performance.now();
    const thawed = t - this.tickAt > LATE_MS && !this.excused;
    this.tickAt = t;
    if (ws.readyState !== WebSocket.OPEN || !this.greeting) {
      // connecting, or the greeting awaited: nothing to ping with yet
      if (thawed) { this.lastRx = t; this.excused = true; }
      if (t - this.lastRx >= QUIET_MS + DEAD_MS) this.dead(t);
      return;
    }
    if (this.probeAt !== null) {
      if (thawed) { this.probeAt = t; this.excused = true; }
      if (t - this.probeAt >= DEAD_MS) this.dead(t);
      return;
    }
    // quiet since when: the last message received, or the oldest request's
    // sending if it came after that (its answer is awaited from then on)
    let due = this.live(), since = this.lastRx;
    if (!due && this.sentAt.size) {
      since = Math.max(since, Math.min(...this.sentAt.values()));
      due = true;
    }
    if (!due || t - since < QUIET_MS) return;
    // the answer, or any message at all, says the path still carries
    this.probeAt = t;
    this.excused = false;
    this.call('ping');
  }
  dead(t) {
    const ws = this.ws, ended = this.ended;
    ws.onmessage = null;
    ws.onclose = null;
    try { ws.close(); } catch { /* closing already */ }
    ended({ silent: true, silentMs: t - this.lastRx });
  }
  // A paged request (PROTOCOL.md: `next` while more remain) read to its end:
  // the first reply with every page's `key` items (or text) joined.  A
  // `next` that does not move on (a broken server's) ends the reading: the
  // page never asks for the same page twice, nor more than MAX_PAGES.
  async callAll(type, fields, key) {
    const first = await this.call(type, fields);
    let r = first, from = fields.from ?? 0;
    for (let pages = 1; r.ok && advances(r.next, from) && pages < MAX_PAGES; pages++) {
      from = r.next;
      r = await this.call(type, { ...fields, from });
      if (!r.ok) return r;
      if (Array.isArray(first[key]) || typeof first[key] === 'string') first[key] = first[key].concat(r[key] ?? []);
    }
    delete first.next;
    return first;
  }
  // Is a request of one of these types awaiting its answer?  (A game that
  // starts while this page's accept, seek or rematch waits is its own doing.)
  asking(...types) { return [...this.types.values()].some((t) => types.includes(t)); }
  call(type, fields = {}) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        resolve({ ok: false, error: { code: 'disconnected', message: 'not connected' } });
        return;
      }
      this.pending.set(id, resolve);
      this.sentAt.set(id, performance.now());
      this.types.set(id, type);
      this.ws.send(JSON.stringify({ id, type, ...fields }));
    });
  }
}

// One frame's message: a JSON object, or null (not JSON, or a JSON null,
// number, string or array).
function parse(data) {
  try {
    const msg = JSON.parse(data);
    return msg !== null && typeof msg === 'object' && !Array.isArray(msg) ? msg : null;
  } catch {
    return null;
  }
}

// A page's `next`: an index past the one just asked for.
const advances = (next, from) => Number.isSafeInteger(next) && next > from;
const MAX_PAGES = 10000;
