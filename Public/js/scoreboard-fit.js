// Team names that fit their box on a projector: shrunk, never cut with an ellipsis.

/**
 * Shrinks a long name until it fits its box (at most two lines, the box's max-height), in at
 * most 20 steps; a single word too long for that breaks anywhere. Returns the size it settled on.
 */
function fitName(box) {
  box.style.fontSize = "";
  box.classList.remove("fallback");
  const overflows = () => box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
  let size = parseFloat(getComputedStyle(box).fontSize);
  for (let step = 0; step < 20 && overflows(); step += 1) {
    size *= 0.94;
    box.style.fontSize = `${size}px`;
  }
  if (overflows()) box.classList.add("fallback");
  return size;
}

/** All the boxes at the same size, the one the longest name needs: a scoreboard, not a ransom note. */
export function fitNames(boxes) {
  const list = [...boxes];
  if (!list.length) return;
  const size = Math.min(...list.map(fitName));
  for (const box of list) box.style.fontSize = `${size}px`;
}

/**
 * The projector's now-and-next lines ("Home 2–1 Away"): each on one line, all at the size the
 * longest needs, never below `floorPx` (the smallest text readable from the back of the hall).
 * Returns whether they fit so; when they do not, the caller stacks them (each name on a line of its
 * own, beside its goals) rather than cut a name: the inline sizes are then taken off again.
 */
export function fitLines(lines, floorPx) {
  const list = [...lines];
  if (!list.length) return true;
  for (const line of list) line.style.fontSize = "";
  // Strictly: a fraction of a pixel too wide is already a cut letter.
  const overflows = (line) => [...line.children].some((part) => part.scrollWidth > part.clientWidth);
  let size = parseFloat(getComputedStyle(list[0]).fontSize);
  for (let step = 0; step < 20 && size > floorPx && list.some(overflows); step += 1) {
    size = Math.max(floorPx, size * 0.94);
    for (const line of list) line.style.fontSize = `${size}px`;
  }
  if (!list.some(overflows)) return true;
  for (const line of list) line.style.fontSize = "";
  return false;
}

let measuring = null;

/** The width in px that `text` takes on one line in the board's bold type at `px`: to plan pages before drawing them. */
export function boldWidth(text, px) {
  measuring = measuring || document.createElement("canvas").getContext("2d");
  measuring.font = `700 ${px}px ${getComputedStyle(document.body).fontFamily}`;
  return measuring.measureText(text).width;
}
