// The spectator page. `/?pitch=N` follows that pitch; `/` follows the venue: a card per pitch
// when several have a gather, else the one match there is (pitch 1 when none has).

import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { watchingText, linkLostText } from "./format.js";
import { startPage } from "./page.js";
import { Announcer } from "./announce.js";
import { shownPitches, requestedPitch } from "./state.js";
import { renderMatch, renderMatchClock } from "./spectator-match.js";
import { renderCards, renderCardClocks } from "./spectator-cards.js";
import { StandingsTable, renderResults } from "./spectator-table.js";
import { SpectatorTournament } from "./spectator-tournament.js";

const wanted = requestedPitch();

function chooseView(state) {
  if (typeof wanted === "number") return { cards: false, pitches: [wanted] };
  const busy = shownPitches(state).map((pitch) => pitch.id);
  if (busy.length > 1) return { cards: true, pitches: busy };
  return { cards: false, pitches: busy.length ? busy : [1] };
}

startPage((live) => {
  const announcer = new Announcer();
  const table = new StandingsTable();
  const tournament = new SpectatorTournament();
  let view = { cards: false, pitches: [wanted === null || wanted === "all" ? 1 : wanted] };

  function renderClocks() {
    if (!live.state) return;
    if (view.cards) renderCardClocks(live);
    else renderMatchClock(live, view.pitches[0]);
  }

  function onChange(state) {
    view = chooseView(state);
    const severalPitches = state.pitches.length > 1;
    $("#venue").hidden = !view.cards;
    $("#single").hidden = view.cards;
    $("#all-pitches").hidden = !severalPitches || view.cards;
    if (view.cards) {
      renderCards(state, view.pitches);
      // "Live now" only over a match being played: cards that all say Full time are results.
      const playing = view.pitches.filter((id) => (state.pitches.find((pitch) => pitch.id === id) || {}).gather).length;
      $("#venue-title").textContent = t(playing === view.pitches.length ? "page.live_now" : playing ? "page.live_and_finished" : "page.full_time");
    }
    else renderMatch(state, view.pitches[0], severalPitches);
    table.render(state);
    tournament.render(state);
    renderResults(state, severalPitches);
    $("#scoreboard-link").href = view.cards ? "/scoreboard.html?pitch=all" : `/scoreboard.html?pitch=${view.pitches[0]}`;
    announcer.update(state, view.pitches, { namePitches: view.cards });
    renderClocks();
  }

  return {
    onChange,
    renderClocks,
    onPresence: (presence) => { $("#watching").textContent = watchingText(presence); },
    // On a relay: the last state stays, with when the pitch went quiet, until it is heard again.
    onLink: (link) => {
      $("#link-lost").hidden = link.live;
      if (!link.live) $("#link-lost").textContent = linkLostText(link.since);
    },
  };
});
