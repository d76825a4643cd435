// The organiser's "Tournament" tab: the form for a new one while none is running (or the last one
// is finished), else the day; and the penalties question the End button asks for a level
// knockout match.

import { $, h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { TEXT } from "./tournament-text.js";
import { teamById } from "./tournament.js";
import { TournamentCreate } from "./organiser-tournament-create.js";
import { TournamentDay } from "./organiser-tournament-day.js";

const WORDS = {
  newOne: t("tour.new_tournament"),
  penaltiesTitle: t("tour.penalties_question"),
  penaltiesText: t("tour.penalties_explained"),
  penaltiesFor: (name) => t("tour.penalties_of", { name }),
  penaltiesLevel: t("tour.penalties_level"),
};

export class TournamentTab {
  constructor(live, perform, openPitch) {
    this.live = live;
    this.create = new TournamentCreate(live, perform);
    this.day = new TournamentDay(live, perform, openPitch);
    this.heading = h("h2", { id: "tournament-title" });
    this.phase = h("p", { id: "tournament-phase", class: "phase" });
    this.newButton = h("button", { type: "button", id: "tournament-new", class: "secondary", onclick: () => { this.wantNew = true; this.render(this.live.state); } }, WORDS.newOne);
    this.header = h("section", { class: "card", "aria-labelledby": "tournament-title" }, this.heading, this.phase, this.newButton);
    this.wantNew = false;
  }

  render(state) {
    const root = $("#tournament-root");
    const tournament = state.tournament;
    this.create.render(state);
    if (!tournament) {
      this.wantNew = false;
      if (root.firstChild !== this.create.root || root.children.length !== 1) replace(root, this.create.root);
      return;
    }
    const finished = tournament.phase === "finished";
    const champion = teamById(tournament, tournament.champion);
    this.heading.textContent = tournament.name;
    this.phase.textContent = champion ? TEXT.championIs(champion.name) : TEXT.phases[tournament.phase] || tournament.phase;
    this.newButton.hidden = !finished || this.wantNew;
    const parts = [this.header, ...(finished && this.wantNew ? [this.create.root] : []), this.day.root];
    if (parts.length !== root.children.length || parts.some((part, index) => root.children[index] !== part)) replace(root, parts);
    this.day.render(state);
  }
}

/**
 * Asks the penalty shoot-out's result for a level knockout match: resolves with {A, B}, or null
 * when the organiser cancels.
 */
export function askPenalties(names) {
  const dialog = $("#penalties-dialog");
  const form = dialog.querySelector("form");
  $("#penalties-title").textContent = WORDS.penaltiesTitle;
  $("#penalties-text").textContent = WORDS.penaltiesText;
  $("#penalties-a-label").textContent = WORDS.penaltiesFor(names.A);
  $("#penalties-b-label").textContent = WORDS.penaltiesFor(names.B);
  $("#penalties-error").textContent = "";
  form.elements.a.value = "";
  form.elements.b.value = "";
  return new Promise((resolve) => {
    const finish = (value) => {
      form.removeEventListener("submit", onSubmit);
      dialog.removeEventListener("cancel", onCancel);
      $("#penalties-cancel").removeEventListener("click", onCancel);
      dialog.close();
      resolve(value);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      const a = Number(form.elements.a.value), b = Number(form.elements.b.value);
      if (a === b) { $("#penalties-error").textContent = WORDS.penaltiesLevel; return; }
      finish({ A: a, B: b });
    };
    const onCancel = (event) => { event.preventDefault(); finish(null); };
    form.addEventListener("submit", onSubmit);
    dialog.addEventListener("cancel", onCancel);
    $("#penalties-cancel").addEventListener("click", onCancel);
    dialog.showModal();
    form.elements.a.focus();
  });
}
