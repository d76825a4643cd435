// Keeps the screen on while wanted (Screen Wake Lock API, secure contexts only). The browser
// drops the lock whenever the page is hidden, so it is asked for again when the page comes back.

export class ScreenWake {
  constructor() {
    this.wanted = false;
    this.sentinel = null;
    this.requesting = false;
    document.addEventListener("visibilitychange", () => this.sync());
  }

  want(on) {
    if (this.wanted === on) return;
    this.wanted = on;
    this.sync();
  }

  async sync() {
    if (!("wakeLock" in navigator)) return;
    const held = this.sentinel && !this.sentinel.released;
    if (!this.wanted) {
      if (held) { const sentinel = this.sentinel; this.sentinel = null; await sentinel.release().catch(() => {}); }
      return;
    }
    if (held || this.requesting || document.visibilityState !== "visible") return;
    this.requesting = true;
    try {
      this.sentinel = await navigator.wakeLock.request("screen");
    } catch {
      this.sentinel = null; // refused (battery saver, no permission): the page works the same
    } finally {
      this.requesting = false;
    }
    if (!this.wanted) this.sync(); // stopped while the request was in flight
  }
}
