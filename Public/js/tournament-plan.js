// The organiser's preview before "Create": the same draw, round robin and slot schedule as the
// server's (Sources/Model/Tournament/TournamentSchedule.swift, TournamentSetup.swift), computed in
// the page so the organiser sees the day before it exists. Our own code because it must give
// exactly the server's answer; the e2e test compares the two match by match.

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
  const seeds = [];
  for (let rank = 1; rank <= rules.advance; rank += 1) for (let group = 0; group < groupCount; group += 1) seeds.push(`${groupName(group)}${rank}`);
  const order = bracketOrder(seeds.length);
  const firstRound = [];
  for (let index = 0; index < order.length; index += 2) firstRound.push([seeds[order[index] - 1], seeds[order[index + 1] - 1]]);
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
 * What the server's NFKC, case-folded, invisible-free comparison makes of a name (close enough
 * to warn before sending: the server has the last word).
 */
function comparisonKey(name) {
  return name.normalize("NFKC").replace(/[\u200B-\u200F\u2060-\u2064\uFEFF\u00AD]/g, "").toLowerCase().trim();
}

/** Every rule the form breaks, one sentence each (the server's sentences): [] when it may be sent. */
export function planProblems(form, venuePitches) {
  const problems = [];
  const { name, teams, groups, advance, matchMinutes, breakMinutes, pitches, thirdPlace } = form;
  const length = [...name].length;
  if (length < 1 || length > 60) problems.push("The tournament's name is 1 to 60 characters.");
  if (teams.length < 2 || teams.length > 64) problems.push("List 2 to 64 teams (\"teams\", one name each).");
  else {
    const seen = new Map();
    teams.forEach((team, index) => {
      const count = [...team].length;
      if (count > 30) problems.push(`Team ${index + 1}'s name is longer than 30 characters.`);
      const key = comparisonKey(team);
      if (seen.has(key)) problems.push(`Teams ${seen.get(key) + 1} and ${index + 1} have the same name (${team}).`);
      else seen.set(key, index);
    });
  }
  const validGroups = GROUP_COUNTS.includes(groups);
  if (!validGroups) problems.push("Choose 1, 2, 4, 8 or 16 groups (\"groups\").");
  else if (teams.length >= 2 && teams.length <= 64 && teams.length < groups * 2) problems.push(`${groups} groups need at least ${groups * 2} teams (two in each).`);
  const smallest = validGroups ? Math.floor(teams.length / groups) : 0;
  if (!Number.isInteger(advance) || advance < 1) problems.push("Say how many teams of each group go through (\"advance\", at least 1).");
  else {
    if (smallest >= 2 && advance > smallest - 1) {
      problems.push(`At most ${smallest - 1} team${smallest - 1 === 1 ? "" : "s"} per group can go through: the smallest group has ${smallest}.`);
    }
    if (validGroups && !BRACKET_SIZES.includes(groups * advance)) {
      problems.push(`Groups × teams going through must be 2, 4, 8, 16 or 32 (now ${groups} × ${advance} = ${groups * advance}).`);
    }
  }
  if (!Number.isInteger(matchMinutes) || matchMinutes < 1 || matchMinutes > 90) problems.push("A match lasts 1 to 90 minutes (\"matchMinutes\").");
  if (!Number.isInteger(breakMinutes) || breakMinutes < 0 || breakMinutes > 60) problems.push("The break between matches is 0 to 60 minutes (\"breakMinutes\").");
  if (thirdPlace && validGroups && Number.isInteger(advance) && groups * advance < 4) problems.push("A third-place match needs at least 4 teams going through.");
  if (!pitches.length) problems.push("Choose at least one pitch to play on.");
  for (const pitch of pitches) if (!venuePitches.includes(pitch)) { problems.push(`There is no pitch ${pitch}.`); break; }
  const more = problems.length > SENTENCE_LIMIT ? [`(and ${problems.length - SENTENCE_LIMIT} more)`] : [];
  return [...problems.slice(0, SENTENCE_LIMIT), ...more];
}
