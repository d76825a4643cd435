// Signing in: register, login, resume with the saved token after every (re)connection, logout.
// The token and who signed in are kept in localStorage so a reopened page is still organising.
//
// A referee's page (`organiser.html#referee=CODE`) signs in with the link's code instead, and
// keeps its own token under its own key, never the organiser's: an organiser who opens a referee
// link on their own phone is still an organiser in their other tab afterwards.

import { t } from "./i18n.js";
import { readJSON, removeKey, writeJSON } from "./storage.js";

const TOKEN_KEY = "gather.token";
const SESSION_KEY = "gather.lastSession";
const REFEREE_KEY = "gather.referee"; // { code, token, pitch, label } of the link this phone referees with

/** Why a referee's page stopped: the link ended (`revoked`, `expired`), or its code is not (or no longer) valid. */
export const REFEREE_ENDED = ["revoked", "expired", "unauthorized"];

export class Session {
  /**
   * `send(message)` returns false when offline; `onSession(message)` tells the page.
   * `refereeCode`: the page is a referee's, signing in with this link's code.
   */
  constructor({ send, onSession, refereeCode = null }) {
    Object.assign(this, { send, onSession, refereeCode });
    this.role = "spectator";
    this.username = null;
    this.inviteCode = null;
    this.owner = false;
    this.pitch = null;  // a referee's pitch
    this.label = null;  // a referee's label, when the server says it
    this.ended = null;  // a referee's link that ended: no more attempts with its code from this page
    this.auth = null; // { id, resolve } while register/login/resume is in flight
  }

  /** Whether this connection may send commands now (an organiser, or a referee on its pitch). */
  get canCommand() { return this.role === "organiser" || this.role === "referee"; }

  get token() {
    if (this.refereeCode) {
      const kept = readJSON(localStorage, REFEREE_KEY);
      return kept && kept.code === this.refereeCode && typeof kept.token === "string" ? kept.token : null;
    }
    try { return localStorage.getItem(TOKEN_KEY); } catch { return null; }
  }

  /** The session the page showed last, shown again before the server answers (a reopened page). */
  restore() {
    if (this.refereeCode) {
      const kept = readJSON(localStorage, REFEREE_KEY);
      if (!kept || kept.code !== this.refereeCode || !this.token) return;
      this.pitch = kept.pitch;
      this.label = kept.label || null;
      this.onSession({ type: "session", role: "referee", pitch: kept.pitch, label: this.label, restored: true });
      return;
    }
    const session = readJSON(localStorage, SESSION_KEY);
    if (!session || !this.token) return;
    this.username = session.username;
    this.owner = session.owner === true;
    this.onSession({ type: "session", role: "organiser", username: session.username, inviteCode: session.inviteCode,
                     owner: this.owner, restored: true });
  }

  /** A new connection starts as a spectator and resumes with the saved token (not on a relay);
   *  a referee's page without one opens with its link's code, until the link has ended. */
  welcomed({ resume = true } = {}) {
    this.role = "spectator";
    const token = this.token;
    if (resume && token) this.resume(token);
    else if (resume && this.refereeCode && !this.ended) this.openAsReferee();
  }

  /** The connection dropped: a sign-in in flight will get no answer. */
  dropped() {
    if (this.auth) { this.auth.resolve({ type: "error", code: "disconnected", message: t("page.connection_dropped") }); this.auth = null; }
  }

  received(message) {
    if (this.refereeCode) {
      this.receivedAsReferee(message);
      return;
    }
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

  /** A referee's `session`: its pitch and token kept for the next connection, or the link ended. */
  receivedAsReferee(message) {
    this.role = message.role;
    if (message.role === "referee") {
      const kept = readJSON(localStorage, REFEREE_KEY) || {};
      this.pitch = message.pitch;
      this.label = message.label || null;
      this.ended = null;
      const token = message.token || (kept.code === this.refereeCode ? kept.token : null);
      writeJSON(localStorage, REFEREE_KEY, { code: this.refereeCode, token, pitch: this.pitch, label: this.label });
    } else {
      removeKey(localStorage, REFEREE_KEY);
      if (REFEREE_ENDED.includes(message.reason)) this.ended = message.reason;
    }
    this.onSession(message);
    if (this.auth) { this.auth.resolve(message); this.auth = null; }
  }

  /** The link's code, sent once per connection; a code the server refuses ends the page's attempts
   *  (each refusal counts against this phone's address like a wrong password). */
  async openAsReferee() {
    const reply = await this.authenticate({ type: "referee", code: this.refereeCode });
    if (reply.type !== "error" || ["disconnected", "superseded", "offline"].includes(reply.code)) return;
    const reason = reply.code === "unauthorized" ? "unauthorized" : reply.code;
    if (reason === "unauthorized") this.ended = reason;
    this.onSession({ type: "session", role: "spectator", reason, message: reply.message });
  }

  /** True when the error answers the sign-in in flight. */
  receivedError(message) {
    if (!this.auth || message.id !== this.auth.id) return false;
    if (message.code === "unauthorized") removeKey(localStorage, this.refereeCode ? REFEREE_KEY : TOKEN_KEY);
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
    if (reply.type === "error" && reply.code === "unauthorized" && this.refereeCode) {
      // The token ended (the link may live on: a phone logged out elsewhere): try the code once.
      if (!this.ended) this.openAsReferee();
      return;
    }
    if (reply.type === "error" && reply.code === "unauthorized") {
      removeKey(localStorage, SESSION_KEY);
      this.role = "spectator";
      this.onSession({ type: "session", role: "spectator" });
    }
  }

  register(username, password, inviteCode) { return this.authenticate({ type: "register", username, password, inviteCode }); }
  login(username, password) { return this.authenticate({ type: "login", username, password }); }

  logout() {
    if (this.refereeCode) {
      removeKey(localStorage, REFEREE_KEY);
      this.ended = "logged_out"; // this page stops; opening the link again comes back
    } else {
      removeKey(localStorage, TOKEN_KEY);
      removeKey(localStorage, SESSION_KEY);
    }
    this.send({ type: "logout", id: crypto.randomUUID() });
  }
}
