// Commands waiting for the server's answer. Each keeps its id, so one resent after a reconnect
// or a reload is answered, not applied twice; the queue lives in sessionStorage for the reload.

import { readJSON, writeJSON } from "./storage.js";

const PENDING_KEY = "gather.pending";

export class CommandQueue {
  /**
   * `send(message)` writes to the socket when organiser; returns whether it could.
   * `onPending(messages)` hears every change of what waits (a page marks those actions).
   */
  constructor(send, onPending = () => {}) {
    Object.assign(this, { send, onPending });
    this.pending = new Map(); // command id -> { message, resolve }
    this.restore();
  }

  /** Resolves with the server's `ack` or `rejected`; survives reconnects and page reloads. */
  add(message) {
    return new Promise((resolve) => {
      this.pending.set(message.id, { message, resolve });
      this.save();
      this.send(message);
    });
  }

  has(id) { return this.pending.has(id); }

  settle(reply) {
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    if (reply.code === "rate_limited") {
      // Not a final answer: the same id is judged afresh when sent again.
      setTimeout(() => { if (this.pending.has(reply.id)) this.send(entry.message); }, 1000);
      return;
    }
    this.pending.delete(reply.id);
    this.save();
    entry.resolve(reply);
  }

  resendAll() {
    for (const { message } of this.pending.values()) this.send(message);
  }

  /** Logging out forgets what this organiser had not yet had answered. */
  clear() {
    this.pending.clear();
    this.save();
  }

  save() {
    const waiting = [...this.pending.values()].map((entry) => entry.message);
    writeJSON(sessionStorage, PENDING_KEY, waiting);
    this.onPending(waiting);
  }

  restore() {
    const saved = readJSON(sessionStorage, PENDING_KEY);
    for (const message of Array.isArray(saved) ? saved : []) {
      if (message && message.type === "command" && message.id) this.pending.set(message.id, { message, resolve: () => {} });
    }
  }
}
