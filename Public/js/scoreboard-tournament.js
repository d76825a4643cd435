// `/scoreboard.html?tournament`: the hall's screen on a tournament day. Pages that turn by
// themselves so the whole day is seen within 30 s: every pitch now (score, clock) and next (who,
// when, how late), the group tables, the bracket; at the end a "Champion" screen first. Every
// line is at least 3% of the screen's height (readable from 10 m).

import { $, h, replace, setText } from "./dom.js";
import { clock } from "./format.js";
import { shownRemainingMs } from "./link-delay.js";
import { paintKits } from "./kit.js";
import { t } from "./i18n.js";
import { boldWidth, fitLines, fitNames } from "./scoreboard-fit.js";
import { TEXT } from "./tournament-text.js";
import { delayText, fateClass, knockoutRounds, pitchLines, pitchName, sideName, stageText, teamById, timeText } from "./tournament.js";

/** The whole cycle of pages takes at most this long. */
export const CYCLE_MS = 30_000;
const MIN_PAGE_MS = 3_500;
const PITCHES_PER_PAGE = 4;
const MATCHES_PER_PAGE = 8;
/** Lines (caption, heading, teams) one column of tables holds on a page; two columns per page. */
const TABLE_LINES_PER_PAGE = 13;
/** Characters of the longest name that fits on one line of a table in half the screen. */
const LONG_NAME = 16;
/** A knockout card's text width, as a share of the screen's (two columns of cards, less padding). */
const CARD_SHARE = 0.45;
/** A column of the bracket loses this share of the screen's width to the gap and a card's padding. */
const ROUND_GAPS = 0.04;

const WORDS = {
  now: t("tour.now_and_next"),
  free: t("tour.free"),
  next: (time) => t("tour.next_at", { time }),
  late: (text) => ` · ${text}`,
  tables: TEXT.tables,
  bracket: TEXT.bracket,
  champion: TEXT.champion,
  noTournament: TEXT.noTournament,
  page: (index, count) => `${index} / ${count}`,
  cols: ["played", "won", "drawn", "lost", "goalDifference", "points"],
};

function chunk(list, size) {
  const out = [];
  for (let index = 0; index < list.length; index += size) out.push(list.slice(index, index + size));
  return out;
}

export class TournamentBoard {
  constructor(live) {
    this.live = live;
    this.index = 0;
    this.pages = [];
    $("#board").dataset.mode = "tournament";
    $("#tournament-board").hidden = false;
    $("#status").textContent = "";
    $("#board-title").textContent = t("tour.scoreboard");
    $("#join-qr").alt = t("page.qr_of_spectator_page");
    this.turn = (by = 1) => {
      this.index = (this.index + by + this.pages.length) % Math.max(1, this.pages.length);
      if (this.live.state) this.render(this.live.state);
    };
    // A presenter's clicker (or the laptop's arrows) turns the page at once; the next turn by
    // itself then waits a whole page again. Not while the language picker has the keys.
    window.addEventListener("keydown", (event) => {
      const by = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[event.key];
      const typing = event.target instanceof Element && event.target.closest("input, select, textarea");
      if (!by || typing || event.altKey || event.ctrlKey || event.metaKey || this.pages.length < 2) return;
      event.preventDefault();
      this.turn(by);
    });
  }

  /** The pages for this state, each { kind, title, build() }. */
  plan(state) {
    const tournament = state.tournament;
    if (!tournament) return [{ kind: "none", title: "", build: () => h("p", { class: "tb-empty" }, WORDS.noTournament) }];
    const pages = [];
    if (tournament.phase === "finished") pages.push({ kind: "champion", title: TEXT.phases.finished, build: () => this.championPage(tournament) });
    else {
      for (const lines of chunk(pitchLines(tournament), PITCHES_PER_PAGE)) {
        pages.push({ kind: "now", title: WORDS.now, build: () => this.nowPage(state, tournament, lines) });
      }
    }
    // A long name does not fit half the screen's width (30 "W"s need 1100 px at the smallest type):
    // its tables take the whole width, one under the other, so as many fit a page as two columns of
    // names on two lines did.
    const wide = tournament.teams.some((team) => [...team.name].length > LONG_NAME);
    const biggest = Math.max(...tournament.groups.map((group) => 2 + group.teams.length));
    const perPage = Math.max(1, (wide ? 1 : 2) * Math.floor(TABLE_LINES_PER_PAGE / biggest));
    for (const groups of chunk(tournament.groups, perPage)) {
      pages.push({ kind: "tables", title: WORDS.tables, build: () => this.tablesPage(tournament, groups, wide) });
    }
    const rounds = knockoutRounds(tournament);
    const count = rounds.reduce((sum, round) => sum + round.matches.length, 0);
    const widest = this.widestSide(tournament, rounds);
    if (count <= MATCHES_PER_PAGE && widest <= innerWidth * (0.96 / rounds.length - ROUND_GAPS)) {
      pages.push({ kind: "bracket", title: WORDS.bracket, build: () => this.bracketPage(state, tournament, rounds) });
    } else {
      // Cards in two columns; a name wider than a card even at the smallest type takes two lines:
      // then each name has a line of its own and a page holds half as many cards.
      const wider = widest > CARD_SHARE * innerWidth;
      const all = rounds.flatMap((round) => round.matches);
      for (const matches of chunk(all, wider ? MATCHES_PER_PAGE / 2 : MATCHES_PER_PAGE)) {
        pages.push({ kind: "bracket", title: WORDS.bracket, build: () => this.matchGrid(state, tournament, matches, wider) });
      }
    }
    return pages;
  }

  /**
   * The width in px of the widest side the knockout shows ("Real Sociedad de Amigos del Ba", or
   * "Winner of match 25" while unknown) in bold at the smallest type: a column per round holds only
   * sides that fit it on one line.
   */
  widestSide(tournament, rounds) {
    const floorPx = Math.ceil(0.031 * innerHeight);
    const sides = rounds.flatMap((round) => round.matches.flatMap((match) => [sideName(tournament, match, "home"), sideName(tournament, match, "away")]));
    return Math.max(0, ...sides.map((side) => boldWidth(side, floorPx)));
  }

  render(state) {
    this.pages = this.plan(state);
    const pageMs = Math.max(MIN_PAGE_MS, Math.floor(CYCLE_MS / this.pages.length));
    const kinds = this.pages.map((page) => page.kind).join(",");
    if (kinds !== this.kinds) this.index = 0; // a new set of pages (the champion, a new tournament): from the start
    this.kinds = kinds;
    this.index %= this.pages.length;
    const page = this.pages[this.index];
    const tournament = state.tournament;
    const board = $("#board");
    Object.assign(board.dataset, { page: page.kind, pageIndex: this.index, pages: this.pages.length, pageMs });
    $("#tb-name").textContent = tournament ? tournament.name : "";
    $("#tb-title").textContent = page.title;
    $("#tb-count").textContent = this.pages.length > 1 ? WORDS.page(this.index + 1, this.pages.length) : "";
    replace($("#tb-page"), page.build());
    this.renderClock();
    this.fit();
    this.fitChampion();
    // One timer for the page on screen: a patch redraws it without making it stay longer.
    if (this.shown !== `${kinds}|${this.index}`) {
      this.shown = `${kinds}|${this.index}`;
      clearTimeout(this.timer);
      if (this.pages.length > 1) this.timer = setTimeout(this.turn, pageMs);
    }
  }

  nowPage(state, tournament, lines) {
    return h("ul", { class: "tb-pitches" }, lines.map(({ pitch, live, next }) => {
      const gather = live ? ((state.pitches.find((candidate) => candidate.id === pitch) || {}).gather || null) : null;
      const row = h("li", { class: "tb-pitch", dataset: { pitch } },
        h("h2", { class: "tb-pitch-name" }, pitchName(state, pitch)),
        live ? h("p", { class: "tb-live" },
          h("span", { class: "tb-team a" }, sideName(tournament, live, "home")),
          // Each side's goals on its own: a stacked line (names too long for one) puts them beside their names.
          h("span", { class: "tb-score" }, h("span", {}, String(gather ? gather.score.A : 0)), h("span", { class: "tb-dash" }, "–"),
            h("span", {}, String(gather ? gather.score.B : 0))),
          h("span", { class: "tb-team b" }, sideName(tournament, live, "away")))
          : h("p", { class: "tb-live tb-free" }, WORDS.free),
        live ? h("p", { class: "tb-clock", dataset: { clockPitch: pitch } }, "--:--") : null,
        next ? h("p", { class: "tb-next", dataset: { match: next.id } },
          h("strong", {}, WORDS.next(timeText(next.expectedAt))),
          delayText(next) ? h("span", { class: "tb-late" }, WORDS.late(delayText(next))) : null,
          `: ${sideName(tournament, next, "home")} ${TEXT.versus} ${sideName(tournament, next, "away")}`)
          : h("p", { class: "tb-next" }, TEXT.nothingNext));
      if (gather) paintKits(row, gather.teams);
      return row;
    }));
  }

  tablesPage(tournament, groups, wide) {
    return h("div", { class: "tb-tables", dataset: wide ? { count: groups.length, wide: "true" } : { count: groups.length } }, groups.map((group) => h("table", { class: "tb-table", dataset: { group: group.name } },
      h("caption", {}, TEXT.group(group.name)),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, TEXT.table.team), WORDS.cols.map((key) => h("th", { scope: "col" }, h("abbr", { title: TEXT.tableFull[key] }, TEXT.table[key]))))),
      h("tbody", {}, group.table.map((row, index) => h("tr", { class: fateClass(row) || null },
        h("th", { scope: "row" }, `${index + 1}. ${(teamById(tournament, row.team) || { name: "?" }).name}`),
        [row.played, row.won, row.drawn, row.lost, row.goalDifference > 0 ? `+${row.goalDifference}` : row.goalDifference, row.points]
          .map((value) => h("td", {}, value))))))));
  }

  /** `withStage`: off under a round's own heading, which already names it. */
  matchCard(state, tournament, match, withStage = true) {
    const score = match.score ? `${match.score.home}–${match.score.away}` : TEXT.versus;
    const penalties = match.penalties ? ` ${TEXT.penalties(match.penalties.home, match.penalties.away)}` : "";
    const when = match.status === "live" ? TEXT.live : match.status === "finished" ? "" : `${timeText(match.expectedAt)}${delayText(match) ? ` · ${delayText(match)}` : ""}`;
    const winner = match.winner;
    const side = (key) => h("span", { class: `tb-side${winner && match[key] === winner ? " won" : ""}` }, sideName(tournament, match, key));
    return h("li", { class: "tb-match", dataset: { match: match.id, status: match.status } },
      // Its number first: other cards say "Winner of match 25".
      h("p", { class: "tb-match-stage" }, [TEXT.matchNumber(match.id), withStage ? stageText(match) : "", pitchName(state, match.pitch), when].filter(Boolean).join(" · ")),
      h("p", { class: "tb-match-teams" }, side("home"), ` ${score} `, side("away"), penalties));
  }

  bracketPage(state, tournament, rounds) {
    const page = h("div", { class: "tb-bracket" }, rounds.map((round) => h("section", { class: "tb-round", dataset: { stage: round.stage } },
      h("h2", {}, TEXT.stages[round.stage]),
      h("ol", {}, round.matches.map((match) => this.matchCard(state, tournament, match, false))))));
    page.style.setProperty("--rounds", rounds.length); // through the CSSOM: the page's CSP allows no style attribute
    return page;
  }

  /** `wide`: names too long to share a line, each on its own (the score between them). */
  matchGrid(state, tournament, matches, wide) {
    return h("ol", { class: "tb-grid", dataset: wide ? { wide: "true" } : {} }, matches.map((match) => this.matchCard(state, tournament, match)));
  }

  championPage(tournament) {
    const champion = teamById(tournament, tournament.champion);
    const final = tournament.matches.find((match) => match.stage === "final");
    return h("div", { class: "tb-champion" },
      h("p", { class: "tb-champion-word" }, WORDS.champion),
      h("p", { class: "tb-champion-name" }, champion ? champion.name : ""),
      final && final.score ? h("p", { class: "tb-champion-final" }, `${TEXT.stages.final}: ${sideName(tournament, final, "home")} ${final.score.home}–${final.score.away} ${sideName(tournament, final, "away")}${final.penalties ? ` ${TEXT.penalties(final.penalties.home, final.penalties.away)}` : ""}`) : null);
  }

  renderClock() {
    for (const element of document.querySelectorAll("#tb-page [data-clock-pitch]")) {
      const pitch = (this.live.state.pitches || []).find((candidate) => candidate.id === Number(element.dataset.clockPitch));
      const timer = pitch && pitch.gather && pitch.gather.timer;
      setText(element, timer && timer.status === "finished" ? t("page.full_time") : clock(shownRemainingMs(this.live, timer)));
    }
    // A live match's line stays one line: smaller (never under 3.1% of the height) before it would
    // wrap. Fitted after the clocks, whose text ("Full time") takes its width from the line; again
    // only when a line, a clock's width or the screen changed (this runs four times a second).
    const lines = document.querySelectorAll("#tb-page .tb-live");
    const clocks = [...document.querySelectorAll("#tb-page [data-clock-pitch]")].map((element) => element.textContent.replace(/\d/g, "0"));
    const key = [innerWidth, innerHeight, ...clocks, ...[...lines].map((line) => line.textContent)].join("|");
    if (key !== this.fitted || lines[0] !== this.fittedLine) {
      this.fitted = key;
      this.fittedLine = lines[0];
      for (const line of lines) delete line.dataset.stacked;
      // Too long for one line even at the floor: every line of the page stacks (a name per line,
      // its goals beside it), and the page is fitted again at its new height.
      if (!fitLines(lines, Math.ceil(0.031 * innerHeight))) {
        for (const line of lines) line.dataset.stacked = "true";
      }
      this.fit();
    }
  }

  /**
   * Text that spills out of its box (a longer language, long team names) is made smaller, the
   * whole page alike, down to the floor the CSS keeps (3.1vh): in at most 8 steps.
   */
  fit() {
    const page = $("#tb-page");
    const boxes = () => [page, ...page.querySelectorAll(".tb-pitch, .tb-match, .tb-round, .tb-table")];
    const spills = () => boxes().some((box) => box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1);
    let fit = 1;
    page.style.setProperty("--fit", fit);
    for (let step = 0; step < 8 && spills(); step += 1) {
      fit *= 0.92;
      page.style.setProperty("--fit", fit.toFixed(3));
    }
  }

  /** The champion's name, as big as two lines allow (one word of 30 "W"s: one line, smaller). */
  fitChampion() {
    fitNames(document.querySelectorAll("#tb-page .tb-champion-name"));
  }

  resize() {
    this.fit();
    this.fitChampion();
    if (this.live.state) this.renderClock();
  }
}
