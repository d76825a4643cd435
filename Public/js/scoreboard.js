// The projector page: `?pitch=N` is that pitch's board (pitch 1 without a query), `?pitch=all`
// the venue overview for a second projector, `?tournament` the tournament day's pages.

import { $ } from "./dom.js";
import { startPage } from "./page.js";
import { Announcer } from "./announce.js";
import { ScreenWake } from "./wake.js";
import { shownPitches, requestedPitch } from "./state.js";
import { PitchBoard } from "./scoreboard-pitch.js";
import { VenueBoard } from "./scoreboard-venue.js";
import { TournamentBoard } from "./scoreboard-tournament.js";

const wanted = requestedPitch();
const tournamentDay = new URLSearchParams(location.search).has("tournament");

startPage((live) => {
  const announcer = new Announcer();
  const board = tournamentDay ? new TournamentBoard(live) : wanted === "all" ? new VenueBoard(live) : new PitchBoard(live, wanted || 1);
  window.addEventListener("resize", () => board.resize());
  return {
    onChange: (state) => {
      board.render(state);
      // A pitch's board or the venue overview on a tournament day: one click to the day's own screen.
      $("#tournament-link").hidden = tournamentDay || !state.tournament;
      const shown = wanted === "all" || tournamentDay ? shownPitches(state).map((pitch) => pitch.id) : [board.pitchId];
      announcer.update(state, shown, { namePitches: wanted === "all" || tournamentDay });
    },
    // On a relay that lost the venue, page.js says "Delayed" and the board "Score as of …".
    renderClocks: () => board.renderClock(),
  };
});

// MARK: - Projector comforts

/** The spectator address in letters beside the QR code, for phones that will not scan it. */
fetch("/api/join.json", { cache: "no-store" }).then((response) => (response.ok ? response.json() : null)).then((join) => {
  if (join && typeof join.spectatorURL === "string") {
    $("#join-address").textContent = join.spectatorURL.replace(/^https?:\/\//, "").replace(/\/$/, "");
  }
}).catch(() => { /* offline: the QR code still works */ });

const fullscreen = $("#fullscreen");
fullscreen.hidden = !document.fullscreenEnabled; // iPhones have no full screen for pages
fullscreen.addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
});

new ScreenWake().want(true);
