// net.js — the protocol over a WebSocket: one JSON line per text message
// (proto/PROTOCOL.md, "WebSocket transport").  Requests get ids; replies are
// matched by id; events go to the listener.
export class Net {
  constructor(onEvent, onClose) {
    this.nextId = 1;
    this.pending = new Map();
    this.onEvent = onEvent;
    this.onClose = onClose;
    this.frames = [];   // every message received, as sent: the tests compare them
  }
  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
      this.ws = ws;
      ws.onmessage = (m) => {
        this.frames.push(m.data);
        const msg = parse(m.data);
        if (!msg) return;   // not a JSON object: nothing the protocol sends
        if (msg.event === 'greeting') { this.greeting = msg; resolve(msg); }
        if ('id' in msg && 'ok' in msg && this.pending.has(msg.id)) {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          p(msg);
          return;
        }
        if (typeof msg.event === 'string') this.onEvent(msg);
      };
      ws.onclose = (e) => {
        // Nothing more will answer: each request waiting is answered here.
        const lost = { ok: false, error: { code: 'disconnected', message: 'the connection was lost' } };
        for (const p of this.pending.values()) p(lost);
        this.pending.clear();
        this.onClose(e);
        reject(e);
      };
    });
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
  call(type, fields = {}) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        resolve({ ok: false, error: { code: 'disconnected', message: 'not connected' } });
        return;
      }
      this.pending.set(id, resolve);
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
