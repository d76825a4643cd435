// The players' table (top scorers, every player's record with goals and assists, sortable by any
// column) on the spectator page and the organiser's History tab, and the last results.

import { t } from "./i18n.js";
import { $, h, replace } from "./dom.js";
import { dateText, historyGoalsText, resultText } from "./format.js";
import { playersById } from "./state.js";

const TOP_SCORERS = 5;
const RESULTS = 5;

/**
 * Each column's heading (short, with the full name for screen readers where it is cut) and what
 * it sorts by; numbers start with the biggest, names with A. Both pages draw their heading from it.
 */
const COLUMNS = {
  name: { label: t("page.col_player"), first: "ascending", compare: (a, b) => a.name.localeCompare(b.name) },
  games: { label: t("page.col_games"), full: t("page.col_games_full"), first: "descending", compare: (a, b) => a.stats.games - b.stats.games },
  record: { label: t("page.col_record"), full: t("page.col_record_full"), first: "descending",
            compare: (a, b) => a.stats.wins - b.stats.wins || a.stats.draws - b.stats.draws || b.stats.losses - a.stats.losses },
  goals: { label: t("page.goals"), first: "descending", compare: (a, b) => a.stats.goals - b.stats.goals || a.stats.assists - b.stats.assists },
  assists: { label: t("page.col_assists"), full: t("page.col_assists_full"), first: "descending", compare: (a, b) => a.stats.assists - b.stats.assists || a.stats.goals - b.stats.goals },
  rating: { label: t("page.col_rating"), first: "descending", compare: (a, b) => a.rating - b.rating },
};

/** The heading row: a sort button per column. */
function headingRow() {
  return h("tr", {}, Object.entries(COLUMNS).map(([key, column]) =>
    h("th", { scope: "col", dataset: { key } },
      h("button", { type: "button", class: "sort" }, column.label,
        column.full ? h("span", { class: "visually-hidden" }, ` (${column.full})`) : null))));
}

export class StandingsTable {
  constructor() {
    this.key = "goals";
    this.direction = "descending";
    this.players = [];
    $("#standings thead").replaceChildren(headingRow());
    for (const header of document.querySelectorAll("#standings th[data-key]")) {
      header.querySelector("button").addEventListener("click", () => this.sortBy(header.dataset.key));
    }
    this.showSort();
  }

  render(state) {
    this.players = (state && state.players) || [];
    this.renderTopScorers();
    this.renderRows();
  }

  /** The same column again turns the order round; another column starts with its natural order. */
  sortBy(key) {
    this.direction = key === this.key ? (this.direction === "ascending" ? "descending" : "ascending") : COLUMNS[key].first;
    this.key = key;
    this.showSort();
    this.renderRows();
  }

  showSort() {
    for (const header of document.querySelectorAll("#standings th[data-key]")) {
      if (header.dataset.key === this.key) header.setAttribute("aria-sort", this.direction);
      else header.removeAttribute("aria-sort");
    }
  }

  renderRows() {
    const sign = this.direction === "ascending" ? 1 : -1;
    const compare = COLUMNS[this.key].compare;
    const rows = [...this.players].sort((a, b) => sign * compare(a, b) || b.rating - a.rating || a.name.localeCompare(b.name));
    replace($("#standings-rows"), rows.length ? rows.map((player) => h("tr", { dataset: { id: player.id } },
      h("th", { scope: "row" }, player.name),
      h("td", {}, player.stats.games),
      h("td", {}, `${player.stats.wins}-${player.stats.draws}-${player.stats.losses}`),
      h("td", {}, player.stats.goals),
      h("td", {}, player.stats.assists),
      h("td", {}, player.rating)))
      : [h("tr", {}, h("td", { colspan: "6", class: "empty" }, t("page.no_players_yet")))]);
  }

  renderTopScorers() {
    if (!$("#top-scorers")) return; // the organiser's page has the table only
    const scorers = this.players.filter((player) => player.stats.goals > 0)
      .sort((a, b) => COLUMNS.goals.compare(b, a) || a.name.localeCompare(b.name)).slice(0, TOP_SCORERS);
    replace($("#top-scorers"), scorers.length ? scorers.map((player) => h("li", {},
      h("span", { class: "who" }, player.name),
      h("span", { class: "count" }, `— ${t("page.goals_count", { count: player.stats.goals })}`
        + (player.stats.assists ? `, ${t("page.assists_count", { count: player.stats.assists })}` : ""))))
      : [h("li", { class: "empty" }, t("page.no_finished_goals_yet"))]);
  }
}

/** `namePitches`: the venue has several pitches, so each result says where it was played. */
export function renderResults(state, namePitches) {
  const byId = playersById(state);
  replace($("#history"), state.history.length
    ? state.history.slice(0, RESULTS).map((entry) => {
      const goals = historyGoalsText(entry, byId);
      const where = namePitches && entry.pitch ? `${entry.pitch.name} · ` : "";
      return h("li", { dataset: { key: entry.id } }, h("strong", {}, resultText(entry)),
        goals ? h("span", { class: "scorers" }, t("page.goals_list", { goals })) : null,
        h("small", {}, where + dateText(entry.endedAt)));
    })
    : [h("li", { class: "empty" }, t("page.no_results_yet"))]);
}
