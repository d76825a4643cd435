// The organiser's preview before "Create": the same draw, round robin and slot schedule as the
// server's (Sources/Model/Tournament/TournamentSchedule.swift, TournamentSetup.swift), computed in
// the page so the organiser sees the day before it exists. Our own code because it must give
// exactly the server's answer; the e2e test compares the two match by match.

import { t } from "./i18n.js";

export const GROUP_COUNTS = [1, 2, 4, 8, 16];
const BRACKET_SIZES = [2, 4, 8, 16, 32];
const SENTENCE_LIMIT = 8;

/** Team number i (0-based) goes to group i mod groups; ids are i + 1. */
export function groupTeams(teamCount, groups) {
  return Array.from({ length: groups }, (_, group) => {
    const ids = [];
    for (let index = group; index < teamCount; index += groups) ids.push(index + 1);
    return ids;
  });
}

export function groupName(index) { return String.fromCharCode(65 + index); }

/** The circle method: each round a set of pairs, the higher seed (smaller id) at home. */
export function roundRobin(teams, group = 0) {
  if (teams.length < 2) return [];
  const circle = teams.length % 2 === 0 ? [...teams] : [...teams, null];
  const size = circle.length;
  const place = (position, round) => (position === 0 ? circle[0] : circle[1 + ((position - 1 + round) % (size - 1))]);
  const rounds = [];
  for (let round = 0; round < size - 1; round += 1) {
    const pairs = [];
    for (let index = 0; index < size / 2; index += 1) {
      const first = place(index, round), second = place(size - 1 - index, round);
      if (first === null || second === null) continue;
      pairs.push({ group, home: Math.min(first, second), away: Math.max(first, second) });
    }
    rounds.push(pairs);
  }
  return rounds;
}

/**
 * The group stage in slots: rounds of every group interleaved, each slot filled from the earliest
 * pairing whose two teams are free in it, at most one match per pitch.
 */
export function groupSlots(groups, pitchCount) {
  const rounds = groups.map((teams, index) => roundRobin(teams, index));
  const pending = [];
  const roundCount = Math.max(0, ...rounds.map((group) => group.length));
  for (let round = 0; round < roundCount; round += 1) {
    const widest = Math.max(0, ...rounds.map((group) => (round < group.length ? group[round].length : 0)));
    for (let index = 0; index < widest; index += 1) {
      for (const group of rounds) if (round < group.length && index < group[round].length) pending.push(group[round][index]);
    }
  }
  const slots = [];
  const placed = new Array(pending.length).fill(false);
  let first = 0;
  while (first < pending.length) {
    const slot = [];
    const playing = new Set();
    for (let index = first; index < pending.length; index += 1) {
      if (placed[index]) continue;
      const pairing = pending[index];
      if (playing.has(pairing.home) || playing.has(pairing.away)) continue;
      slot.push(pairing);
      placed[index] = true;
      playing.add(pairing.home).add(pairing.away);
      if (slot.length === pitchCount) break;
    }
    while (first < pending.length && placed[first]) first += 1;
    slots.push(slot);
  }
  return slots;
}

/** order(2) = [1, 2]; order(2k) = each s of order(k) followed by 2k + 1 − s. */
export function bracketOrder(count) {
  let order = [1, 2];
  while (order.length < count) {
    const size = order.length * 2;
    order = order.flatMap((seed) => [seed, size + 1 - seed]);
  }
  return order;
}

const ROUND_STAGE = { 16: "roundOf32", 8: "roundOf16", 4: "quarterFinal", 2: "semiFinal", 1: "final" };

/**
 * Every match of the day, as the server will create them: { id, stage, group, home, away,
 * homeFrom, awayFrom, pitch, slot, plannedAt }.
 */
export function planMatches(teamCount, groupCount, rules) {
  const groups = groupTeams(teamCount, groupCount);
  const pitches = rules.pitches;
  const slotMs = (rules.matchMinutes + rules.breakMinutes) * 60000;
  const matches = [];
  const add = (fields, slot, pitchIndex) => {
    const id = matches.length + 1;
    matches.push({ id, group: null, home: null, away: null, homeFrom: null, awayFrom: null, ...fields,
      pitch: pitches[pitchIndex], slot, plannedAt: rules.startsAt + slot * slotMs });
    return id;
  };
  const stage = groupSlots(groups, pitches.length);
  stage.forEach((pairings, slot) => pairings.forEach((pairing, pitchIndex) =>
    add({ stage: "group", group: groupName(pairing.group), home: pairing.home, away: pairing.away }, slot, pitchIndex)));
  let slot = stage.length;
  const round = (stageName, places) => {
    const ids = places.map(([homeFrom, awayFrom], index) =>
      add({ stage: stageName, homeFrom, awayFrom }, slot + Math.floor(index / pitches.length), index % pitches.length));
    slot += Math.ceil(places.length / pitches.length);
    return ids;
  };
  const firstRound = firstRoundPlaces(groupCount, rules.advance);
  let previous = round(ROUND_STAGE[firstRound.length] || "final", firstRound);
  while (previous.length > 1) {
    const winners = [];
    for (let index = 0; index < previous.length; index += 2) winners.push([`W${previous[index]}`, `W${previous[index + 1]}`]);
    if (winners.length === 1 && rules.thirdPlace) round("thirdPlace", [[`L${previous[0]}`, `L${previous[1]}`]]);
    previous = round(ROUND_STAGE[winners.length] || "final", winners);
  }
  return { groups, matches, groupSlots: stage.length, slots: slot };
}

/**
 * The first knockout round's pairs, as the server makes them: with exactly two through from each
 * of an even number of groups, the crossed pairing (A1–B2, C1–D2, …, then B1–A2, D1–C2, …) that
 * keeps a group's two teams apart until the final; otherwise consecutive pairs of order(K).
 */
export function firstRoundPlaces(groupCount, advance) {
  const firstRound = [];
  if (advance === 2 && groupCount % 2 === 0) {
    for (let group = 0; group < groupCount; group += 2) firstRound.push([`${groupName(group)}1`, `${groupName(group + 1)}2`]);
    for (let group = 0; group < groupCount; group += 2) firstRound.push([`${groupName(group + 1)}1`, `${groupName(group)}2`]);
    return firstRound;
  }
  const seeds = [];
  for (let rank = 1; rank <= advance; rank += 1) for (let group = 0; group < groupCount; group += 1) seeds.push(`${groupName(group)}${rank}`);
  const order = bracketOrder(seeds.length);
  for (let index = 0; index < order.length; index += 2) firstRound.push([seeds[order[index] - 1], seeds[order[index + 1] - 1]]);
  return firstRound;
}

/**
 * What the server's NFKC, case-folded, invisible-free comparison makes of a name (close enough
 * to warn before sending: the server has the last word).
 */
function comparisonKey(name) {
  return name.normalize("NFKC").replace(/[\u200B-\u200F\u2060-\u2064\uFEFF\u00AD]/g, "").toLowerCase().trim();
}

/** Every rule the form breaks, one sentence each (the server's sentences, in the page's language): [] when it may be sent. */
export function planProblems(form, venuePitches) {
  const problems = [];
  const { name, teams, groups, advance, matchMinutes, breakMinutes, pitches, thirdPlace } = form;
  const length = [...name].length;
  if (length < 1 || length > 60) problems.push(t("tour.rule_name"));
  if (teams.length < 2 || teams.length > 64) problems.push(t("tour.rule_team_count"));
  else {
    const seen = new Map();
    teams.forEach((team, index) => {
      const count = [...team].length;
      if (count > 30) problems.push(t("tour.rule_team_name_long", { team: index + 1 }));
      const key = comparisonKey(team);
      if (seen.has(key)) problems.push(t("tour.rule_team_same_name", { first: seen.get(key) + 1, second: index + 1, name: team }));
      else seen.set(key, index);
    });
  }
  const validGroups = GROUP_COUNTS.includes(groups);
  if (!validGroups) problems.push(t("tour.rule_groups"));
  else if (teams.length >= 2 && teams.length <= 64 && teams.length < groups * 2) problems.push(t("tour.rule_groups_teams", { groups, teams: groups * 2 }));
  const smallest = validGroups ? Math.floor(teams.length / groups) : 0;
  if (!Number.isInteger(advance) || advance < 1) problems.push(t("tour.rule_advance"));
  else {
    if (smallest >= 2 && advance > smallest - 1) {
      problems.push(t("tour.rule_advance_most", { count: smallest - 1, smallest }));
    }
    if (validGroups && !BRACKET_SIZES.includes(groups * advance)) {
      problems.push(t("tour.rule_bracket_size", { groups, advance, product: groups * advance }));
    }
  }
  if (!Number.isInteger(matchMinutes) || matchMinutes < 1 || matchMinutes > 90) problems.push(t("tour.rule_match_minutes"));
  if (!Number.isInteger(breakMinutes) || breakMinutes < 0 || breakMinutes > 60) problems.push(t("tour.rule_break_minutes"));
  if (thirdPlace && validGroups && Number.isInteger(advance) && groups * advance < 4) problems.push(t("tour.rule_third_place"));
  if (!pitches.length) problems.push(t("tour.rule_pitch_none"));
  for (const pitch of pitches) if (!venuePitches.includes(pitch)) { problems.push(t("tour.rule_pitch_unknown", { pitch })); break; }
  const more = problems.length > SENTENCE_LIMIT ? [t("tour.rule_more", { count: problems.length - SENTENCE_LIMIT })] : [];
  return [...problems.slice(0, SENTENCE_LIMIT), ...more];
}
