// Both databases keep JSON as text, and no JSON function is spelled the same in both. A repository that
// searches inside JSON narrows with LIKE over the text (what `jsonText` gives is a substring of the stored
// text wherever the value contains the searched text) and decides on the parsed value.

/** How `text` appears inside a JSON string value: quotes, backslashes and control characters escaped. */
export function jsonText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
