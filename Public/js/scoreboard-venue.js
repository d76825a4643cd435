// `/scoreboard.html?pitch=all`: a second projector for the hall, every pitch with a gather on
// one screen, each big enough to read from across the hall; a new goal's scorer shows on its
// pitch for a few seconds.

import { t } from "./i18n.js";
import { $, h, replace, setText } from "./dom.js";
import { clock, flashText, lastGoalText, scorerText } from "./format.js";
import { FLASH_MS, PitchWatch } from "./pitch-watch.js";
import { shownPitches, latestGoal, pitchById, playersById } from "./state.js";
import { fullTimeOf, goalLines, resultNames, winnerText } from "./full-time.js";
import { paintKits } from "./kit.js";
import { layOutVenue } from "./scoreboard-venue-layout.js";
import { asOfText, shownRemainingMs } from "./link-delay.js";
import { tournamentRunning } from "./tournament.js";

export class VenueBoard {
  constructor(live) {
    this.live = live;
    this.flashes = new Map(); // pitch id -> until
    this.watch = new PitchWatch(({ pitch, newestGoal }) => { if (newestGoal) this.celebrate(pitch.id); });
    $("#board").dataset.mode = "venue";
    $("#venue").hidden = false;
    $("#status").textContent = ""; // each card says how its match stands
    $("#board-title").textContent = t("page.scoreboard_every_pitch");
    $("#join-qr").alt = "QR code of the spectator page for every pitch";
  }

  render(state) {
    const pitches = shownPitches(state);
    this.watch.update(state, pitches.map((pitch) => pitch.id));
    const byId = playersById(state);
    const venue = $("#venue");
    replace(venue, pitches.length ? pitches.map((pitch) => this.card(pitch, byId, state))
      : [h("li", { class: "venue-empty" }, t(tournamentRunning(state) ? "page.no_tournament_match_now" : "page.no_match_now"))]);
    venue.dataset.count = pitches.length;
    this.renderClock();
    this.resize();
  }

  card(pitch, byId, state) {
    const result = fullTimeOf(pitch);
    if (result) return this.fullTimeCard(pitch, result, resultNames(result, state, byId));
    const gather = pitch.gather;
    const goal = latestGoal(gather);
    const flashing = (this.flashes.get(pitch.id) || 0) > Date.now();
    const line = !goal ? (gather.phase === "setup" ? t("page.kick_off_soon") : "")
      // The card names both teams already: the flash names the scorer, no longer than the last-goal
      // line it replaces, so a goal never reflows the whole overview.
      : flashing ? (scorerText(goal, byId, false) ? t("page.goal_flash", { team: scorerText(goal, byId, false) }) : flashText(goal, gather, byId))
      : lastGoalText(goal, gather, byId);
    const paused = gather.phase === "live" && gather.timer.status === "paused";
    // The grid puts names above scores; a screen reader gets the score as one sentence.
    const card = h("li", { class: "venue-pitch", dataset: { pitch: pitch.id, finished: String(gather.timer.status === "finished") } },
      h("h2", { class: "venue-name" }, pitch.name),
      h("p", { class: "visually-hidden" }, `${gather.teams.A.name} ${gather.score.A}, ${gather.teams.B.name} ${gather.score.B}`),
      h("div", { class: "venue-team a", "aria-hidden": "true" }, h("span", {}, gather.teams.A.name)),
      h("div", { class: "venue-team b", "aria-hidden": "true" }, h("span", {}, gather.teams.B.name)),
      h("div", { class: "venue-goals a", "aria-hidden": "true" }, gather.score.A),
      h("div", { class: "venue-goals b", "aria-hidden": "true" }, gather.score.B),
      h("p", { class: "venue-clock", dataset: { clockPitch: pitch.id } }, "--:--"),
      paused || asOfText() ? h("p", { class: "venue-paused" }, asOfText() || t("page.paused")) : null,
      h("p", { class: "venue-goal", dataset: { flash: String(flashing) } }, line));
    paintKits(card, gather.teams);
    return card;
  }

  /** A pitch whose gather ended shows "Full time", its score and scorers until the next gather. */
  fullTimeCard(pitch, result, names) {
    const goals = goalLines(result, names);
    const card = h("li", { class: "venue-pitch", dataset: { pitch: pitch.id, finished: "true", fullTime: "true" } },
      h("h2", { class: "venue-name" }, pitch.name),
      h("p", { class: "visually-hidden" }, `${t("page.full_time")}: ${result.teams.A.name} ${result.teams.A.score}, ${result.teams.B.name} ${result.teams.B.score}`),
      h("div", { class: "venue-team a", "aria-hidden": "true" }, h("span", {}, result.teams.A.name)),
      h("div", { class: "venue-team b", "aria-hidden": "true" }, h("span", {}, result.teams.B.name)),
      h("div", { class: "venue-goals a", "aria-hidden": "true" }, result.teams.A.score),
      h("div", { class: "venue-goals b", "aria-hidden": "true" }, result.teams.B.score),
      h("p", { class: "venue-clock venue-full-time" }, t("page.full_time")),
      h("p", { class: "venue-goal" }, `${winnerText(result)}${goals.length ? ` · ${goals.join(", ")}` : ""}`));
    paintKits(card, result.teams);
    return card;
  }

  celebrate(pitchId) {
    this.flashes.set(pitchId, Date.now() + FLASH_MS);
    setTimeout(() => { if (this.live.state) this.render(this.live.state); }, FLASH_MS + 50);
  }

  renderClock() {
    for (const element of document.querySelectorAll("#venue [data-clock-pitch]")) {
      const pitch = pitchById(this.live.state, Number(element.dataset.clockPitch));
      const timer = pitch && pitch.gather && pitch.gather.timer;
      // At 00:00, before an organiser ends the match, the card already says so in words.
      setText(element, timer && timer.status === "finished" ? t("page.full_time") : clock(shownRemainingMs(this.live, timer)));
    }
  }

  /** The columns, the cards' shape and the type size that show every card whole (measured). */
  resize() {
    const venue = $("#venue");
    if (!venue.querySelector(".venue-pitch")) return;
    this.layout = layOutVenue(venue);
    venue.dataset.layout = `${this.layout.columns} ${this.layout.shape} ${this.layout.size}${this.layout.dense ? " dense" : ""}`;
  }
}
