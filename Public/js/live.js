// The gather.v2 client shared by every page: one WebSocket to /live that reconnects by itself,
// follows the state as one snapshot then small patches (a goal is a few dozen bytes instead of
// the whole state, on a crowded pitch-side Wi-Fi), restores the organiser session and resends
// unanswered commands with their original ids (the server answers a repeated id instead of
// applying it twice). The last state is kept in localStorage so a page reopened without the
// Wi-Fi shows the last state it knew (marked "reconnecting") instead of an empty page.
//
// The state is gather.v2's: `players`, `pitches` (each with its `gather` or null) and `history`;
// pages find a pitch's gather with state.js.

import { applyPatch } from "./patch.js";

const TOKEN_KEY = "gather.token";
const PENDING_KEY = "gather.pending";
// A new key: the first release cached gather.v1 states (a top-level `gather`, no pitches).
const SNAPSHOT_KEY = "gather.lastState.v2";
const OLD_SNAPSHOT_KEY = "gather.lastSnapshot";
const SESSION_KEY = "gather.lastSession";
const SAVE_DELAY_MS = 300;

export class LiveClient {
  constructor({ onChange = () => {}, onTick = () => {}, onPresence = () => {}, onSession = () => {},
                onStatus = () => {}, onNotice = () => {} } = {}) {
    Object.assign(this, { onChange, onTick, onPresence, onSession, onStatus, onNotice });
    this.state = null;
    this.version = -1;
    this.role = "spectator";
    this.username = null;
    this.inviteCode = null;
    this.status = "connecting";
    this.offsetMs = 0;          // server clock minus ours, from welcome.serverTime
    this.attempt = 0;
    this.pending = new Map();   // command id -> { message, resolve }
    this.auth = null;           // { id, resolve } while register/login/resume is in flight
    this.requests = new Map();  // account/activity request id -> resolve
    this.owner = false;
    this.restorePending();
    try { localStorage.removeItem(OLD_SNAPSHOT_KEY); } catch { /* storage blocked */ }
    // The cache is written a moment after a change (never in the way of showing it), and at once
    // when the page goes away.
    addEventListener("pagehide", () => this.saveState());
    document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") this.saveState(); });
    this.connect();
  }

  /// Shows the last snapshot (and organiser session) this browser saw, until the server answers.
  /// Called by the page once its views exist; does nothing when a snapshot already arrived.
  restoreLastState() {
    if (this.state) return false;
    const saved = readJSON(localStorage, SNAPSHOT_KEY);
    if (!saved || !saved.state || !Array.isArray(saved.state.pitches) || typeof saved.version !== "number") return false;
    this.state = saved.state;
    this.version = saved.version;
    const session = readJSON(localStorage, SESSION_KEY);
    if (session && localStorage.getItem(TOKEN_KEY)) {
      this.username = session.username;
      this.owner = session.owner === true;
      this.onSession({ type: "session", role: "organiser", username: session.username, inviteCode: session.inviteCode,
                       owner: this.owner, restored: true });
    }
    this.onChange(this.state, this.version);
    return true;
  }

  // MARK: - Connection

  connect() {
    this.setStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    let socket;
    try {
      // The plain-HTTP spectator door has no TLS: its pages talk ws:// to the same host and port.
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}/live`, ["gather.v2"]);
    } catch (error) {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onmessage = (event) => { if (this.socket === socket) this.receive(event.data); };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.auth) { this.auth.resolve({ type: "error", code: "disconnected", message: "The connection dropped; try again." }); this.auth = null; }
      this.scheduleReconnect();
    };
    socket.onerror = () => socket.close();
  }

  /// Exponential backoff with jitter, so a restarted server is not hit by every phone at once.
  scheduleReconnect() {
    this.setStatus("reconnecting");
    const delay = Math.min(10000, 500 * 2 ** Math.min(this.attempt, 5)) * (0.5 + Math.random());
    this.attempt += 1;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.onStatus(status);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  // MARK: - Messages from the server

  receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    switch (message.type) {
      case "welcome":
        this.offsetMs = message.serverTime - Date.now();
        this.attempt = 0;
        this.role = "spectator";
        this.setStatus("live");
        { const token = localStorage.getItem(TOKEN_KEY); if (token) this.resume(token); }
        break;
      case "snapshot":
        this.accept(message.state, message.version);
        break;
      case "patch":
        this.patch(message);
        break;
      case "tick":
        // The clocks count down from `endsAt`; a tick only says "redraw now". The state of a
        // version never changes (so no patch would meet a timer the page had edited).
        this.onTick(message.pitch, message.timer);
        break;
      case "presence":
        this.onPresence(message);
        break;
      case "session":
        this.role = message.role;
        this.username = message.username || null;
        this.inviteCode = message.inviteCode || null;
        this.owner = message.owner === true;
        if (message.role === "organiser" && message.token) localStorage.setItem(TOKEN_KEY, message.token);
        if (message.role === "organiser") writeJSON(localStorage, SESSION_KEY, { username: this.username, inviteCode: this.inviteCode, owner: this.owner });
        if (message.role !== "organiser") { localStorage.removeItem(TOKEN_KEY); localStorage.removeItem(SESSION_KEY); }
        this.onSession(message);
        if (this.auth) { this.auth.resolve(message); this.auth = null; }
        if (this.role === "organiser") this.resendPending();
        break;
      case "ack":
      case "rejected":
        this.settle(message);
        break;
      case "account":
      case "activity":
        this.answer(message);
        break;
      case "error":
        if (this.auth && message.id === this.auth.id) {
          if (message.code === "unauthorized") localStorage.removeItem(TOKEN_KEY);
          this.auth.resolve(message);
          this.auth = null;
        } else if (message.id && this.requests.has(message.id)) {
          this.answer(message);
        } else if (message.id && this.pending.has(message.id)) {
          this.settle(message);
        } else {
          this.onNotice(message.message);
        }
        break;
    }
  }

  // MARK: - State

  accept(state, version) {
    this.state = state;
    this.version = version;
    this.onChange(this.state, this.version);
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.saveState(), SAVE_DELAY_MS);
  }

  /// A patch applies only to the version it was made from; any other is dropped, and the server
  /// sends a snapshot. One that does not apply (a bug) ends the connection: a new one starts
  /// with a snapshot.
  patch(message) {
    if (!this.state || message.from !== this.version || typeof message.version !== "number") return;
    let next;
    try {
      next = applyPatch(this.state, message.ops);
    } catch (error) {
      console.warn("gather: a patch did not apply; reconnecting", error);
      this.version = -1;
      if (this.socket) this.socket.close();
      return;
    }
    this.accept(next, message.version);
  }

  saveState() {
    clearTimeout(this.saveTimer);
    if (this.state) writeJSON(localStorage, SNAPSHOT_KEY, { version: this.version, state: this.state });
  }

  // MARK: - Sessions

  authenticate(fields) {
    const id = crypto.randomUUID();
    return new Promise((resolve) => {
      if (this.auth) this.auth.resolve({ type: "error", code: "superseded", message: "Another sign-in started." });
      this.auth = { id, resolve };
      if (!this.send({ ...fields, id })) {
        this.auth = null;
        resolve({ type: "error", code: "offline", message: "Not connected yet; try again in a moment." });
      }
    });
  }

  /// A token the server no longer knows ends the session the page may have restored from storage.
  async resume(token) {
    const reply = await this.authenticate({ type: "resume", token });
    if (reply.type === "error" && reply.code === "unauthorized") {
      localStorage.removeItem(SESSION_KEY);
      this.role = "spectator";
      this.onSession({ type: "session", role: "spectator" });
    }
  }

  register(username, password, inviteCode) { return this.authenticate({ type: "register", username, password, inviteCode }); }
  login(username, password) { return this.authenticate({ type: "login", username, password }); }

  logout() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(SESSION_KEY);
    this.pending.clear();
    this.savePending();
    this.send({ type: "logout", id: crypto.randomUUID() });
  }

  // MARK: - Account messages (organisers, activity)

  /// Sends an account message and resolves with its `account`/`activity` reply or its `error`
  /// (never rejects: a page shows `message`). Not resent after a reconnect: a person asks again.
  request(fields, timeoutMs = 10000) {
    const id = crypto.randomUUID();
    return new Promise((resolve) => {
      if (!this.send({ ...fields, id })) {
        resolve({ type: "error", code: "offline", message: "Not connected right now; try again in a moment." });
        return;
      }
      const timer = setTimeout(() => this.answer({ type: "error", id, code: "timeout",
                                                   message: "No answer from the server; try again." }), timeoutMs);
      this.requests.set(id, (reply) => { clearTimeout(timer); resolve(reply); });
    });
  }

  answer(message) {
    const resolve = this.requests.get(message.id);
    if (!resolve) return;
    this.requests.delete(message.id);
    resolve(message);
  }

  // MARK: - Commands

  /// Resolves with the server's `ack` or `rejected`; survives reconnects and page reloads.
  command(action) {
    const message = { type: "command", id: crypto.randomUUID(), base: Math.max(0, this.version), action };
    return new Promise((resolve) => {
      this.pending.set(message.id, { message, resolve });
      this.savePending();
      if (this.role === "organiser") this.send(message);
    });
  }

  settle(reply) {
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    if (reply.code === "rate_limited") {
      // Not a final answer: the same id is judged afresh when sent again.
      setTimeout(() => { if (this.pending.has(reply.id) && this.role === "organiser") this.send(entry.message); }, 1000);
      return;
    }
    this.pending.delete(reply.id);
    this.savePending();
    entry.resolve(reply);
  }

  resendPending() {
    for (const { message } of this.pending.values()) this.send(message);
  }

  savePending() {
    writeJSON(sessionStorage, PENDING_KEY, [...this.pending.values()].map((entry) => entry.message));
  }

  restorePending() {
    const saved = readJSON(sessionStorage, PENDING_KEY);
    for (const message of Array.isArray(saved) ? saved : []) {
      if (message && message.type === "command" && message.id) this.pending.set(message.id, { message, resolve: () => {} });
    }
  }

  // MARK: - Time

  serverNow() { return Date.now() + this.offsetMs; }

  /// Milliseconds left on a timer now, counted down locally from `endsAt`.
  remainingMs(timer) {
    if (!timer) return null;
    if (timer.status === "running" && typeof timer.endsAt === "number") {
      return Math.max(0, timer.endsAt - this.serverNow());
    }
    return timer.remainingMs;
  }
}

// MARK: - Storage that may be full, blocked or hold garbage

function readJSON(storage, key) {
  try { return JSON.parse(storage.getItem(key) || "null"); } catch { return null; }
}

function writeJSON(storage, key, value) {
  try { storage.setItem(key, JSON.stringify(value)); } catch { /* storage full or blocked */ }
}
