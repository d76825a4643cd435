// The projector's board for one pitch: names, score, clock, and for a few seconds after each goal
// the scorer's name in the status line.

import { t } from "./i18n.js";
import { $, setText } from "./dom.js";
import { clock, flashText } from "./format.js";
import { FLASH_MS, PitchWatch } from "./pitch-watch.js";
import { pitchById, playersById } from "./state.js";
import { fitNames } from "./scoreboard-fit.js";
import { fullTimeOf, resultNames, scorerNames, winnerText } from "./full-time.js";
import { paintKits } from "./kit.js";
import { asOfText, shownRemainingMs } from "./link-delay.js";
import { isTournamentPitch } from "./tournament.js";

export class PitchBoard {
  constructor(live, pitchId) {
    Object.assign(this, { live, pitchId });
    this.flash = null; // { text, until }
    this.watch = new PitchWatch(({ newestGoal, gather }) => { if (newestGoal) this.celebrate(newestGoal, gather); });
    $("#join-qr").src = `/qr.svg?pitch=${pitchId}`;
    $("#join-qr").alt = "QR code of this pitch's spectator page";
  }

  render(state) {
    this.watch.update(state, [this.pitchId]);
    const pitch = pitchById(state, this.pitchId);
    const gather = pitch && pitch.gather;
    $("#pitch-name").hidden = !pitch || state.pitches.length < 2;
    $("#pitch-name").textContent = pitch ? pitch.name : "";
    $("#board-title").textContent = pitch && state.pitches.length > 1 ? t("page.scoreboard_of", { pitch: pitch.name }) : t("page.scoreboard");
    // The last result of this pitch stays up ("Full time") until the next gather there.
    const result = fullTimeOf(pitch);
    this.result = result && { winner: winnerText(result), goals: scorerNames(result, resultNames(result, state, playersById(state))) };
    paintKits(document.body, (gather || result || {}).teams);
    if (!gather) {
      $("#team-a-name").textContent = result ? result.teams.A.name : t("page.team_a");
      $("#team-b-name").textContent = result ? result.teams.B.name : t("page.team_b");
      $("#score-a").textContent = result ? result.teams.A.score : 0;
      $("#score-b").textContent = result ? result.teams.B.score : 0;
      this.flash = null;
    } else {
      $("#team-a-name").textContent = gather.teams.A.name;
      $("#team-b-name").textContent = gather.teams.B.name;
      $("#score-a").textContent = gather.score.A;
      $("#score-b").textContent = gather.score.B;
    }
    this.gather = gather;
    this.tournamentPitch = isTournamentPitch(state, this.pitchId);
    document.body.dataset.result = String(!gather && !!result);
    document.body.dataset.finished = String(!!(gather && gather.timer.status === "finished") || !!result);
    this.renderStatus();
    fitNames(document.querySelectorAll(".team"));
    this.renderClock();
  }

  celebrate(goal, gather) {
    this.flash = { text: flashText(goal, gather, playersById(this.live.state)), until: Date.now() + FLASH_MS };
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => this.renderStatus(), FLASH_MS + 50);
  }

  renderStatus() {
    const status = $("#status");
    const flashing = !!this.flash && this.flash.until > Date.now();
    status.dataset.flash = String(flashing);
    status.style.fontSize = "";
    if (flashing) { status.textContent = this.flash.text; fitNames([status]); return; }
    const gather = this.gather;
    if (!gather) {
      // "Full time" is in the clock's place; the line under it says who won and who scored.
      const result = this.result;
      // A pitch of the tournament being played waits for its next match, not for a gather.
      const waiting = this.tournamentPitch ? "page.waiting_for_tournament_match" : "page.waiting_for_match";
      status.textContent = !result ? t(waiting).replace(/…$/, "")
        : `${result.winner}${result.goals.length ? ` · ${result.goals.join(", ")}` : ""}`;
      return;
    }
    const timer = gather.timer.status;
    if (asOfText()) { status.textContent = asOfText(); return; }
    status.textContent = timer === "finished" ? t("page.full_time")
      : gather.phase === "setup" ? t("page.kick_off_soon") : timer === "paused" ? t("page.paused") : timer === "running" ? "" : t("page.ready");
  }

  renderClock() {
    setText($("#clock"), !this.gather && this.result ? t("page.full_time") : clock(shownRemainingMs(this.live, this.gather && this.gather.timer)));
  }

  resize() { fitNames(document.querySelectorAll(".team")); }
}
