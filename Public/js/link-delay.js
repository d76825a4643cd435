// A follower of a relay that lost the venue: what the page shows is the state as of the last
// moment the venue was heard. While that lasts the pill says "Delayed", every clock stops at that
// moment (greyed) and each match says "Score as of 11:44:12"; when the relay hears the venue
// again everything snaps back to the truth (docs/PROTOCOL.md, `link`).

import { t, timeText } from "./i18n.js";

const delay = { since: null }; // epoch ms (server time) the venue was last heard, while the link is down

/**
 * A relay's `link` message, or null when the connection itself changed (a new connection
 * starts honest: a relay still without the venue says so again after its snapshot).
 */
export function linkChanged(link) {
  const since = link && !link.live ? Date.parse(link.since) : NaN;
  delay.since = Number.isNaN(since) ? (link && !link.live ? Date.now() : null) : since;
  document.body.dataset.delayed = String(delay.since !== null);
}

export function isDelayed() { return delay.since !== null; }

/**
 * The time left on `timer` as the page should show it: stopped where it stood when the venue
 * was last heard while the link is down, else counting down.
 */
export function shownRemainingMs(live, timer) {
  if (delay.since !== null && timer && timer.status === "running" && typeof timer.endsAt === "number") {
    return Math.max(0, timer.endsAt - delay.since);
  }
  return live.remainingMs(timer);
}

/** "Score as of 11:44:12" while delayed, else "". */
export function asOfText() {
  if (delay.since === null) return "";
  const at = new Date(delay.since);
  return t("page.score_as_of", { time: timeText(at, true) });
}
