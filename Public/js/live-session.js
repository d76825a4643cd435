// Signing in: register, login, resume with the saved token after every (re)connection, logout.
// The token and who signed in are kept in localStorage so a reopened page is still organising.

import { t } from "./i18n.js";
import { readJSON, removeKey, writeJSON } from "./storage.js";

const TOKEN_KEY = "gather.token";
const SESSION_KEY = "gather.lastSession";

export class Session {
  /** `send(message)` returns false when offline; `onSession(message)` tells the page. */
  constructor({ send, onSession }) {
    Object.assign(this, { send, onSession });
    this.role = "spectator";
    this.username = null;
    this.inviteCode = null;
    this.owner = false;
    this.auth = null; // { id, resolve } while register/login/resume is in flight
  }

  get token() { try { return localStorage.getItem(TOKEN_KEY); } catch { return null; } }

  /** The session the page showed last, shown again before the server answers (a reopened page). */
  restore() {
    const session = readJSON(localStorage, SESSION_KEY);
    if (!session || !this.token) return;
    this.username = session.username;
    this.owner = session.owner === true;
    this.onSession({ type: "session", role: "organiser", username: session.username, inviteCode: session.inviteCode,
                     owner: this.owner, restored: true });
  }

  /** A new connection starts as a spectator and resumes with the saved token (not on a relay). */
  welcomed({ resume = true } = {}) {
    this.role = "spectator";
    const token = this.token;
    if (resume && token) this.resume(token);
  }

  /** The connection dropped: a sign-in in flight will get no answer. */
  dropped() {
    if (this.auth) { this.auth.resolve({ type: "error", code: "disconnected", message: t("page.connection_dropped") }); this.auth = null; }
  }

  received(message) {
    this.role = message.role;
    this.username = message.username || null;
    this.inviteCode = message.inviteCode || null;
    this.owner = message.owner === true;
    if (message.role === "organiser" && message.token) {
      try { localStorage.setItem(TOKEN_KEY, message.token); } catch { /* storage blocked: this tab only */ }
    }
    if (message.role === "organiser") writeJSON(localStorage, SESSION_KEY, { username: this.username, inviteCode: this.inviteCode, owner: this.owner });
    if (message.role !== "organiser") { removeKey(localStorage, TOKEN_KEY); removeKey(localStorage, SESSION_KEY); }
    this.onSession(message);
    if (this.auth) { this.auth.resolve(message); this.auth = null; }
  }

  /** True when the error answers the sign-in in flight. */
  receivedError(message) {
    if (!this.auth || message.id !== this.auth.id) return false;
    if (message.code === "unauthorized") removeKey(localStorage, TOKEN_KEY);
    this.auth.resolve(message);
    this.auth = null;
    return true;
  }

  authenticate(fields) {
    const id = crypto.randomUUID();
    return new Promise((resolve) => {
      if (this.auth) this.auth.resolve({ type: "error", code: "superseded", message: t("page.sign_in_superseded") });
      this.auth = { id, resolve };
      if (!this.send({ ...fields, id })) {
        this.auth = null;
        resolve({ type: "error", code: "offline", message: t("page.not_connected_yet") });
      }
    });
  }

  /** A token the server no longer knows ends the session the page may have restored from storage. */
  async resume(token) {
    const reply = await this.authenticate({ type: "resume", token });
    if (reply.type === "error" && reply.code === "unauthorized") {
      removeKey(localStorage, SESSION_KEY);
      this.role = "spectator";
      this.onSession({ type: "session", role: "spectator" });
    }
  }

  register(username, password, inviteCode) { return this.authenticate({ type: "register", username, password, inviteCode }); }
  login(username, password) { return this.authenticate({ type: "login", username, password }); }

  logout() {
    removeKey(localStorage, TOKEN_KEY);
    removeKey(localStorage, SESSION_KEY);
    this.send({ type: "logout", id: crypto.randomUUID() });
  }
}
