// The gather.v2 state as one snapshot then small patches (a goal is a few dozen bytes instead of
// the whole state, on a crowded pitch-side Wi-Fi), and its copy in localStorage, so a page
// reopened without the Wi-Fi shows the last state it knew (marked "reconnecting").

import { applyPatch } from "./patch.js";
import { readJSON, removeKey, writeJSON } from "./storage.js";

// A new key: the first release cached gather.v1 states (a top-level `gather`, no pitches).
const SNAPSHOT_KEY = "gather.lastState.v2";
const OLD_SNAPSHOT_KEY = "gather.lastSnapshot";
const SAVE_DELAY_MS = 300;

export class StateCache {
  constructor(onChange) {
    this.onChange = onChange;
    this.state = null;
    this.version = -1;
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

  /// A patch applies only to the version it was made from; any other is dropped (the server
  /// sends a snapshot). Returns false for one that does not apply (a bug): the caller ends the
  /// connection and a new one starts with a snapshot.
  patch(message) {
    if (!this.state || message.from !== this.version || typeof message.version !== "number") return true;
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

  /// The last snapshot this browser saved, without telling anyone; false when there is none or
  /// a state already arrived.
  restore() {
    if (this.state) return false;
    const saved = readJSON(localStorage, SNAPSHOT_KEY);
    if (!saved || !saved.state || !Array.isArray(saved.state.pitches) || typeof saved.version !== "number") return false;
    this.state = saved.state;
    this.version = saved.version;
    return true;
  }

  save() {
    clearTimeout(this.saveTimer);
    if (this.state) writeJSON(localStorage, SNAPSHOT_KEY, { version: this.version, state: this.state });
  }
}
