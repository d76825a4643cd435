// The gather.v2 state as one snapshot then small patches (a goal is a few dozen bytes instead of
// the whole state, on a crowded pitch-side Wi-Fi), and its copy in localStorage, so a page
// reopened without the Wi-Fi shows the last state it knew (marked "reconnecting").
//
// Versions count within an epoch (a run of the venue server, named in `welcome` and in every
// snapshot with `epoch` and `epochStartedAt`): within one epoch the version held never goes
// back, and a snapshot of another epoch replaces the state only when that epoch started later
// (a venue restored from a backup is followed at once; an old epoch replayed changes nothing).
// Without those fields (an older server) the state follows the server as it always did.

import { applyPatch } from "./patch.js";
import { readJSON, removeKey, writeJSON } from "./storage.js";

// A new key: the first release cached gather.v1 states (a top-level `gather`, no pitches).
const SNAPSHOT_KEY = "gather.lastState.v2";
const OLD_SNAPSHOT_KEY = "gather.lastSnapshot";
const SAVE_DELAY_MS = 300;
// What the server accepts in `/live?epoch=E&version=V`.
const EPOCH_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** A string epoch, or null. */
function epochOf(message) {
  return typeof message.epoch === "string" && message.epoch ? message.epoch : null;
}

/** A finite number `epochStartedAt`, or null. */
function startedAtOf(message) {
  return typeof message.epochStartedAt === "number" && Number.isFinite(message.epochStartedAt) ? message.epochStartedAt : null;
}

export class StateCache {
  constructor(onChange) {
    this.onChange = onChange;
    this.state = null;
    this.version = -1;
    this.epoch = null;          // the epoch of the state held (null: unknown)
    this.epochStartedAt = null;
    this.streamEpoch = null;    // the epoch of what this connection sends (its welcome, its last snapshot)
    removeKey(localStorage, OLD_SNAPSHOT_KEY);
    // The cache is written a moment after a change (never in the way of showing it), and at once
    // when the page goes away.
    addEventListener("pagehide", () => this.save());
    document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") this.save(); });
  }

  accept(state, version) {
    this.state = state;
    this.version = version;
    this.onChange(this.state, this.version);
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.save(), SAVE_DELAY_MS);
  }

  /** A new connection said welcome: its patches belong to the epoch it names (if any). */
  welcomed(message) {
    this.streamEpoch = epochOf(message);
  }

  /**
   * Takes a snapshot unless it would take the state back: an older version of the epoch held,
   * or an epoch that started before the one held. `relay`: a relay a moment behind (without
   * epochs, the release-3 rule: keep the newer version). Returns whether it was taken.
   */
  snapshot(message, { relay = false } = {}) {
    const epoch = epochOf(message);
    if (epoch) this.streamEpoch = epoch;
    if (this.state && epoch && this.epoch) {
      if (epoch === this.epoch) {
        if (message.version < this.version) return false;
      } else {
        // An epoch held without its start cannot be compared: the server's word is taken.
        const startedAt = startedAtOf(message);
        if (this.epochStartedAt !== null && (startedAt === null || startedAt <= this.epochStartedAt)) return false;
      }
    } else if (relay && this.state && message.version < this.version) {
      return false;
    }
    this.epoch = epoch;
    this.epochStartedAt = epoch ? startedAtOf(message) : null;
    this.accept(message.state, message.version);
    return true;
  }

  /**
   * `?epoch=E&version=V` of the state held, so a reconnect is sent only the patches it missed;
   * "" when there is nothing to resume from.
   */
  resumeQuery() {
    if (!this.state || !this.epoch || !EPOCH_PATTERN.test(this.epoch)) return "";
    if (!Number.isInteger(this.version) || this.version < 0) return "";
    return `?epoch=${encodeURIComponent(this.epoch)}&version=${this.version}`;
  }

  /**
   * A patch applies only to the version it was made from, in the epoch held; any other is
   * dropped (the server sends a snapshot). Returns false for one that does not apply (a bug):
   * the caller ends the connection and a new one starts with a snapshot.
   */
  patch(message) {
    if (!this.state || message.from !== this.version || typeof message.version !== "number") return true;
    if (this.epoch && this.streamEpoch && this.streamEpoch !== this.epoch) return true;
    let next;
    try {
      next = applyPatch(this.state, message.ops);
    } catch (error) {
      console.warn("gather: a patch did not apply; reconnecting", error);
      this.version = -1;
      return false;
    }
    this.accept(next, message.version);
    return true;
  }

  /**
   * The last snapshot this browser saved, without telling anyone; false when there is none or
   * a state already arrived.
   */
  restore() {
    if (this.state) return false;
    const saved = readJSON(localStorage, SNAPSHOT_KEY);
    if (!saved || !saved.state || !Array.isArray(saved.state.pitches) || typeof saved.version !== "number") return false;
    this.state = saved.state;
    this.version = saved.version;
    this.epoch = epochOf(saved);
    this.epochStartedAt = this.epoch ? startedAtOf(saved) : null;
    return true;
  }

  save() {
    clearTimeout(this.saveTimer);
    if (!this.state) return;
    writeJSON(localStorage, SNAPSHOT_KEY, { version: this.version, state: this.state, epoch: this.epoch,
                                            epochStartedAt: this.epochStartedAt });
  }
}
