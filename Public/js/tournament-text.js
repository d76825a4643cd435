// Every word the tournament's views share, from the pages' catalogues (Public/i18n, keys `tour.*`),
// in one place so each view keeps its short names.

import { t } from "./i18n.js";

const RANKS = { 1: "tour.group_winner", 2: "tour.group_runner_up" };

export const TEXT = {
  tournament: t("tour.tournament"),
  unknownTeam: t("tour.to_be_decided"),
  winnerOf: (match) => t("tour.winner_of", { match }),
  loserOf: (match) => t("tour.loser_of", { match }),
  groupPlace: (group, rank) => t(RANKS[rank] || "tour.group_place", { group, rank }),
  group: (group) => t("tour.group", { group }),
  stages: {
    roundOf32: t("tour.round_of_32"), roundOf16: t("tour.round_of_16"), quarterFinal: t("tour.quarter_final"),
    semiFinal: t("tour.semi_final"), thirdPlace: t("tour.third_place"), final: t("tour.final"),
  },
  penalties: (home, away) => t("tour.penalties_score", { home, away }),
  late: (minutes) => t("tour.running_late", { minutes }),
  pitchNumber: (id) => t("page.pitch_number", { id }),
  matchNumber: (id) => t("tour.match_number", { id }),
  phases: { groups: t("tour.phase_groups"), knockout: t("tour.phase_knockout"), finished: t("tour.phase_finished") },
  champion: t("tour.champion"),
  championIs: (name) => t("tour.champion_is", { name }),
  live: t("page.live"),
  nothingNext: t("tour.nothing_next"),
  nextMatch: t("tour.next_match"),
  playingNow: t("tour.playing_now"),
  noMoreMatches: t("tour.no_more_matches"),
  results: t("tour.results"),
  noResults: t("tour.no_results"),
  tables: t("tour.tables"),
  bracket: t("tour.bracket"),
  addToCalendar: t("tour.add_to_calendar"),
  following: (name) => t("tour.following", { name }),
  stopFollowing: t("tour.all_teams"),
  unknownFollowed: t("tour.unknown_followed"),
  /** "Reds v Blues" before a match has a score. */
  versus: t("tour.versus"),
  table: { team: t("tour.col_team"), played: t("tour.col_played"), won: t("tour.col_won"), drawn: t("tour.col_drawn"),
    lost: t("tour.col_lost"), goalDifference: t("tour.col_goal_difference"), points: t("tour.col_points") },
  tableFull: { played: t("tour.col_played_full"), won: t("tour.col_won_full"), drawn: t("tour.col_drawn_full"),
    lost: t("tour.col_lost_full"), goalDifference: t("tour.col_goal_difference_full"), points: t("tour.col_points_full") },
  through: t("tour.goes_through"),
  out: t("tour.is_out"),
  noTournament: t("tour.no_tournament"),
};
