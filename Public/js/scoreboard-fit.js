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
