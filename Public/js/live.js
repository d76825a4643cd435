// The gather.v2 client shared by every page: it puts together the socket (live-socket.js), the
// state and its offline copy (live-state.js), signing in (live-session.js) and the commands
// waiting for an answer (live-commands.js), and routes each server message to the one that
// handles it. Pages see one object: `state`, `username`, `command`, `login`, `remainingMs`, …
//
// The state is gather.v2's: `players`, `pitches` (each with its `gather` or null) and `history`;
// pages find a pitch's gather with state.js.

import { serverText, t } from "./i18n.js";
import { LiveSocket } from "./live-socket.js";
import { StateCache } from "./live-state.js";
import { Session } from "./live-session.js";
import { CommandQueue } from "./live-commands.js";

export class LiveClient {
  /** `refereeCode`: a referee's page (organiser.html#referee=CODE), which signs in with the link's code. */
  constructor({ onChange = () => {}, onTick = () => {}, onPresence = () => {}, onSession = () => {},
                onStatus = () => {}, onNotice = () => {}, onPending = () => {}, onLink = () => {}, onReferees = () => {},
                refereeCode = null } = {}) {
    Object.assign(this, { onTick, onPresence, onNotice, onLink, onReferees });
    this.referees = null; // organisers: the last `referees` message (the live links, those with a phone on them)
    this.relay = false;        // welcome.relay: a read-only relay of the venue's stream
    this.offsetMs = 0; // server clock minus ours, from welcome.serverTime
    this.requests = new Map(); // account/activity request id -> resolve
    this.socket = new LiveSocket({
      onMessage: (text) => this.receive(text),
      onClose: () => this.session.dropped(),
      onStatus,
      resumeQuery: () => this.cache.resumeQuery(),
    });
    this.cache = new StateCache(onChange);
    this.session = new Session({ send: (message) => this.socket.send(message), onSession, refereeCode });
    this.commands = new CommandQueue((message) => this.session.canCommand && this.socket.send(message), onPending);
    this.socket.connect();
  }

  get state() { return this.cache.state; }
  get version() { return this.cache.version; }
  /** Organisers only: the club's verified lists, a member of their state (docs/PROTOCOL.md §21.3). */
  get clubDates() {
    const lists = this.cache.state && this.cache.state.clubDates;
    return Array.isArray(lists) ? lists.slice(0, 20) : [];
  }
  get status() { return this.socket.status; }
  get role() { return this.session.role; }
  get username() { return this.session.username; }
  get inviteCode() { return this.session.inviteCode; }
  get owner() { return this.session.owner; }
  /** A referee's pitch (its session's `pitch`), else null. */
  get refereePitch() { return this.session.pitch; }

  /**
   * Shows the last snapshot (and organiser session) this browser saw, until the server answers.
   * Called by the page once its views exist; does nothing when a snapshot already arrived.
   */
  restoreLastState() {
    if (!this.cache.restore()) return false;
    this.session.restore();
    this.cache.onChange(this.cache.state, this.cache.version);
    return true;
  }

  // MARK: - Messages from the server

  receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    // What the server says in words, in the page's language (its English `message` when no catalogue knows the key).
    if ((message.type === "rejected" || message.type === "error") && message.reason) {
      message.message = serverText(message.reason, message.params, message.message);
    }
    if (message.type === "activity" && Array.isArray(message.items)) {
      for (const item of message.items) item.summary = serverText(item.reason, item.params, item.summary);
    }
    switch (message.type) {
      case "welcome":
        this.offsetMs = message.serverTime - Date.now();
        this.socket.welcomed();
        // A relay is for following: nobody logs in there (it would answer tls_required).
        this.relay = message.relay === true;
        this.cache.welcomed(message);
        this.session.welcomed({ resume: !this.relay });
        break;
      case "snapshot":
        // Never back: not to an older version of the epoch held, nor to an epoch that started
        // earlier; on a relay a moment behind, the newer state is kept and its patches catch up.
        this.cache.snapshot(message, { relay: this.relay });
        break;
      case "link":
        // A relay lost (or found again) the venue: the state shown is the last it heard.
        this.onLink(message);
        break;
      case "patch":
        if (!this.cache.patch(message)) this.socket.drop();
        break;
      case "tick":
        // The clocks count down from `endsAt`; a tick only says "redraw now". The state of a
        // version never changes (so no patch would meet a timer the page had edited).
        this.onTick(message.pitch, message.timer);
        break;
      case "presence":
        this.onPresence(message);
        break;
      case "referees":
        this.referees = message;
        this.onReferees(message);
        break;
      case "session":
        this.session.received(message);
        if (this.session.canCommand) this.commands.resendAll();
        break;
      case "ack":
      case "rejected":
        this.commands.settle(message);
        break;
      case "account":
      case "activity":
        this.answer(message);
        break;
      case "error":
        if (this.session.receivedError(message)) break;
        if (message.id && this.requests.has(message.id)) this.answer(message);
        else if (message.id && this.commands.has(message.id)) this.commands.settle(message);
        else this.onNotice(message.message);
        break;
    }
  }

  // MARK: - Signing in and commands

  register(username, password, inviteCode) { return this.session.register(username, password, inviteCode); }
  login(username, password) { return this.session.login(username, password); }

  logout() {
    this.commands.clear();
    this.session.logout();
  }

  /** A referee's page asks again with its link's code (after "in use" or "too many attempts", or after leaving). */
  refereeAgain() {
    this.session.ended = null;
    if (this.socket.status === "live") this.session.openAsReferee();
  }

  /** Resolves with the server's `ack` or `rejected`; survives reconnects and page reloads. */
  command(action) {
    return this.commands.add({ type: "command", id: crypto.randomUUID(), base: Math.max(0, this.version), action });
  }

  // MARK: - Account messages (organisers, activity)

  /**
   * Sends an account message and resolves with its `account`/`activity` reply or its `error`
   * (never rejects: a page shows `message`). Not resent after a reconnect: a person asks again.
   */
  request(fields, timeoutMs = 10000) {
    const id = crypto.randomUUID();
    return new Promise((resolve) => {
      if (!this.socket.send({ ...fields, id })) {
        resolve({ type: "error", code: "offline", message: t("page.not_connected") });
        return;
      }
      const timer = setTimeout(() => this.answer({ type: "error", id, code: "timeout",
                                                   message: t("page.no_answer") }), timeoutMs);
      this.requests.set(id, (reply) => { clearTimeout(timer); resolve(reply); });
    });
  }

  answer(message) {
    const resolve = this.requests.get(message.id);
    if (!resolve) return;
    this.requests.delete(message.id);
    resolve(message);
  }

  // MARK: - Time

  serverNow() { return Date.now() + this.offsetMs; }

  /** Milliseconds left on a timer now, counted down locally from `endsAt`. */
  remainingMs(timer) {
    if (!timer) return null;
    if (timer.status === "running" && typeof timer.endsAt === "number") {
      return Math.max(0, timer.endsAt - this.serverNow());
    }
    return timer.remainingMs;
  }
}
