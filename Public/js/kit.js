// The eight kit colours an organiser can pick for a team (setTeamColour), as pages paint them:
// `solid` for a swatch or stripe, `onDark` for a team's name on the projector's dark board,
// `ink` for text drawn on the solid colour. Without a pick Team A is blue and Team B red.

export const KIT_COLOURS = {
  blue: { label: "Blue", solid: "#1f5fbf", onDark: "#7fb2ff", ink: "#ffffff" },
  red: { label: "Red", solid: "#c0392b", onDark: "#ff8f7f", ink: "#ffffff" },
  white: { label: "White", solid: "#ffffff", onDark: "#ffffff", ink: "#14201a" },
  black: { label: "Black", solid: "#1b1b1b", onDark: "#d5dbd8", ink: "#ffffff" },
  yellow: { label: "Yellow", solid: "#f2c14e", onDark: "#ffd966", ink: "#14201a" },
  green: { label: "Green", solid: "#1a7a43", onDark: "#7ee0a3", ink: "#ffffff" },
  orange: { label: "Orange", solid: "#e67e22", onDark: "#ffb470", ink: "#14201a" },
  purple: { label: "Purple", solid: "#7d3cc0", onDark: "#c9a2ff", ink: "#ffffff" },
};

export function kitName(team, side) {
  const name = team && team.colour;
  return KIT_COLOURS[name] ? name : side === "A" ? "blue" : "red";
}

export function kitOf(team, side) { return KIT_COLOURS[kitName(team, side)]; }

/** Sets --kit-a / --kit-b (and their dark-board and ink variants) on `element` for `teams`. */
export function paintKits(element, teams) {
  for (const side of ["A", "B"]) {
    const kit = kitOf(teams && teams[side], side);
    const low = side.toLowerCase();
    element.style.setProperty(`--kit-${low}`, kit.solid);
    element.style.setProperty(`--kit-${low}-on-dark`, kit.onDark);
    element.style.setProperty(`--kit-${low}-ink`, kit.ink);
  }
}
