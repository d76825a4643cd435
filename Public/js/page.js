// The start-up every page shares: the offline shell, the live client with its connection pill,
// the page's views, one clock that redraws the countdowns, then the last state this browser saw.

import { LiveClient } from "./live.js";
import { $, connectionPill } from "./dom.js";
import { statusText } from "./format.js";
import { keepShellOffline } from "./offline.js";
import { linkChanged, isDelayed } from "./link-delay.js";
import { localisePage } from "./i18n.js";

/** How often the countdowns are redrawn between ticks: often enough that a second never shows late. */
export const CLOCK_MS = 250;

/**
 * `build(live)` makes the page's views and returns its handlers: `onChange(state)`,
 * `renderClocks()` (called every CLOCK_MS once a state is known), and optionally `onTick`,
 * `onSession`, `onPresence`, `onNotice`, `onPending`, `onLink` (a relay's link to the venue), `onReferees`
 * (organisers: the referee links). Returns the live client.
 * `refereeCode`: the page is a referee's, signing in with that link's code (live-session.js).
 */
export function startPage(build, { refereeCode = null } = {}) {
  keepShellOffline();
  localisePage();
  let page = {};
  let status = "connecting";
  // The pill says "Delayed" while the connection is up but its relay has lost the venue.
  const showPill = () => connectionPill($("#connection"), status === "live" && isDelayed() ? "delayed" : status, statusText);
  const live = new LiveClient({
    onStatus: (next) => {
      status = next;
      if (next === "live") linkChanged(null); // a new connection: its relay says again if it is without the venue
      showPill();
    },
    onChange: (state, version) => page.onChange && page.onChange(state, version),
    onTick: (pitch, timer) => (page.onTick || page.renderClocks)(pitch, timer),
    onSession: (session) => page.onSession && page.onSession(session),
    onPresence: (presence) => page.onPresence && page.onPresence(presence),
    onNotice: (text) => page.onNotice && page.onNotice(text),
    onPending: (messages) => page.onPending && page.onPending(messages),
    onReferees: (message) => page.onReferees && page.onReferees(message),
    onLink: (link) => {
      linkChanged(link);
      showPill();
      if (page.onLink) page.onLink(link);
      if (live.state) page.onChange(live.state, live.version); // the "as of" lines, and back to the truth
    },
    refereeCode,
  });
  page = build(live);
  setInterval(() => { if (live.state) page.renderClocks(); }, CLOCK_MS);
  live.restoreLastState();
  return live;
}
