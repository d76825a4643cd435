// The projector page: `?pitch=N` is that pitch's board (pitch 1 without a query), `?pitch=all`
// the venue overview for a second projector.

import { LiveClient } from "./live.js";
import { $, connectionPill } from "./dom.js";
import { statusText } from "./format.js";
import { Announcer } from "./announce.js";
import { ScreenWake } from "./wake.js";
import { keepShellOffline } from "./offline.js";
import { shownPitches, requestedPitch } from "./state.js";
import { PitchBoard } from "./scoreboard-pitch.js";
import { VenueBoard } from "./scoreboard-venue.js";

keepShellOffline();
const announcer = new Announcer();
const wanted = requestedPitch();

const live = new LiveClient({
  onStatus: (status) => connectionPill($("#connection"), status, statusText),
  onChange: (state) => {
    board.render(state);
    const shown = wanted === "all" ? shownPitches(state).map((pitch) => pitch.id) : [board.pitchId];
    announcer.update(state, shown, { namePitches: wanted === "all" });
  },
  onTick: () => board.renderClock(),
});
const board = wanted === "all" ? new VenueBoard(live) : new PitchBoard(live, wanted || 1);

setInterval(() => { if (live.state) board.renderClock(); }, 200);
window.addEventListener("resize", () => board.resize());
live.restoreLastState();

// MARK: - Projector comforts

const fullscreen = $("#fullscreen");
fullscreen.hidden = !document.fullscreenEnabled; // iPhones have no full screen for pages
fullscreen.addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
});

new ScreenWake().want(true);
