// line.mjs — a line-protocol client for the browser tests: TLS to kriegd's
// line listener, one JSON object per line (proto/PROTOCOL.md "Framing").
// It keeps every line it received, as received, so a test can hold a
// page's WebSocket frames against the lines of a client in the same seat.
import tls from 'node:tls';

export class LineClient {
  static async open(port) {
    const c = new LineClient();
    await c.connect(port);
    return c;
  }
  connect(port) {
    this.lines = [];
    this.waiters = [];
    this.pending = new Map();
    this.nextId = 1;
    this.buf = '';
    return new Promise((resolve, reject) => {
      // The development certificate is self-signed; this is a test client.
      this.sock = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {});
      this.sock.setEncoding('utf8');
      this.sock.on('error', reject);
      this.sock.on('data', (d) => {
        this.buf += d;
        let i;
        while ((i = this.buf.indexOf('\n')) >= 0) {
          const line = this.buf.slice(0, i);
          this.buf = this.buf.slice(i + 1);
          this.lines.push(line);
          const msg = JSON.parse(line);
          if (msg.event === 'greeting') resolve(msg);
          if ('id' in msg && 'ok' in msg && this.pending.has(msg.id)) {
            this.pending.get(msg.id)(msg);
            this.pending.delete(msg.id);
          }
          this.waiters = this.waiters.filter((w) => !w(msg));
        }
      });
    });
  }
  req(type, fields = {}) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.sock.write(`${JSON.stringify({ id, type, ...fields })}\n`);
    });
  }
  async ok(type, fields = {}) {
    const r = await this.req(type, fields);
    if (!r.ok) throw new Error(`${type}: ${JSON.stringify(r.error)}`);
    return r;
  }
  // The first message (already received or still to come) that pred accepts.
  waitFor(pred, ms = 10000) {
    const seen = this.lines.map((l) => JSON.parse(l)).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('line client: no such message in time')), ms);
      this.waiters.push((m) => { if (!pred(m)) return false; clearTimeout(t); resolve(m); return true; });
    });
  }
  close() { this.sock.end(); }
}
