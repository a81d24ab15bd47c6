// X11 keysym names (the public vocabulary of press_key, as xdotool takes them) mapped to the DOM key
// events CDP dispatches: `key`, `code`, Windows virtual key code, and the text a key types.
import { invalidField } from '../errors.js';

export interface KeyDef {
  /** The canonical X11 keysym name, as xdotool takes it. */
  keysym?: string;
  key: string;
  code: string;
  keyCode: number;
  text?: string;
  /** A character that needs Shift on a US layout (`!`, `A`). */
  shift?: boolean;
  location?: number;
}

export const MODIFIER_BITS: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

const table = new Map<string, KeyDef>();
const lowerTable = new Map<string, KeyDef>();
/** The character a physical key types with Shift held, by its `code`. */
const shiftedByCode = new Map<string, KeyDef>();

/** Registers a key under several names; the first is its canonical X11 keysym. */
function add(names: string[], partial: KeyDef): void {
  const def = { keysym: names[0], ...partial };
  if (def.shift && def.text) shiftedByCode.set(def.code, def);
  for (const name of names) {
    table.set(name, def);
    if (name.length > 1) lowerTable.set(name.toLowerCase(), def);
  }
}

for (let i = 0; i < 26; i++) {
  const lower = String.fromCharCode(97 + i);
  const upper = lower.toUpperCase();
  add([lower], { key: lower, code: `Key${upper}`, keyCode: 65 + i, text: lower });
  add([upper], { key: upper, code: `Key${upper}`, keyCode: 65 + i, text: upper, shift: true });
}
const SHIFTED_DIGITS = [')', '!', '@', '#', '$', '%', '^', '&', '*', '('];
const SHIFTED_DIGIT_NAMES = ['parenright', 'exclam', 'at', 'numbersign', 'dollar', 'percent', 'asciicircum', 'ampersand', 'asterisk', 'parenleft'];
for (let d = 0; d <= 9; d++) {
  add([String(d)], { key: String(d), code: `Digit${d}`, keyCode: 48 + d, text: String(d) });
  add([SHIFTED_DIGIT_NAMES[d]!, SHIFTED_DIGITS[d]!], { key: SHIFTED_DIGITS[d]!, code: `Digit${d}`, keyCode: 48 + d, text: SHIFTED_DIGITS[d]!, shift: true });
  add([`KP_${d}`], { key: String(d), code: `Numpad${d}`, keyCode: 96 + d, text: String(d), location: 3 });
}
// [unshifted keysym, char, shifted keysym, shifted char, code, keyCode]
const PUNCTUATION: [string, string, string, string, string, number][] = [
  ['minus', '-', 'underscore', '_', 'Minus', 189],
  ['equal', '=', 'plus', '+', 'Equal', 187],
  ['bracketleft', '[', 'braceleft', '{', 'BracketLeft', 219],
  ['bracketright', ']', 'braceright', '}', 'BracketRight', 221],
  ['backslash', '\\', 'bar', '|', 'Backslash', 220],
  ['semicolon', ';', 'colon', ':', 'Semicolon', 186],
  ['apostrophe', "'", 'quotedbl', '"', 'Quote', 222],
  ['grave', '`', 'asciitilde', '~', 'Backquote', 192],
  ['comma', ',', 'less', '<', 'Comma', 188],
  ['period', '.', 'greater', '>', 'Period', 190],
  ['slash', '/', 'question', '?', 'Slash', 191],
];
for (const [name, char, shiftedName, shiftedChar, code, keyCode] of PUNCTUATION) {
  add([name, char], { key: char, code, keyCode, text: char });
  add([shiftedName, shiftedChar], { key: shiftedChar, code, keyCode, text: shiftedChar, shift: true });
}
add(['space', ' '], { key: ' ', code: 'Space', keyCode: 32, text: ' ' });
add(['Return', 'Enter', 'KP_Enter', 'Linefeed', '\n', '\r'], { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' });
add(['Tab', 'ISO_Left_Tab', '\t'], { key: 'Tab', code: 'Tab', keyCode: 9 });
add(['Escape', 'Esc'], { key: 'Escape', code: 'Escape', keyCode: 27 });
add(['BackSpace', 'Backspace'], { key: 'Backspace', code: 'Backspace', keyCode: 8 });
add(['Delete', 'KP_Delete', 'Del'], { key: 'Delete', code: 'Delete', keyCode: 46 });
add(['Insert', 'KP_Insert'], { key: 'Insert', code: 'Insert', keyCode: 45 });
add(['Home', 'KP_Home'], { key: 'Home', code: 'Home', keyCode: 36 });
add(['End', 'KP_End'], { key: 'End', code: 'End', keyCode: 35 });
add(['Page_Up', 'Prior', 'KP_Page_Up', 'KP_Prior', 'PageUp'], { key: 'PageUp', code: 'PageUp', keyCode: 33 });
add(['Page_Down', 'Next', 'KP_Page_Down', 'KP_Next', 'PageDown'], { key: 'PageDown', code: 'PageDown', keyCode: 34 });
add(['Left', 'KP_Left', 'ArrowLeft'], { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 });
add(['Up', 'KP_Up', 'ArrowUp'], { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 });
add(['Right', 'KP_Right', 'ArrowRight'], { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 });
add(['Down', 'KP_Down', 'ArrowDown'], { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 });
add(['Caps_Lock', 'CapsLock'], { key: 'CapsLock', code: 'CapsLock', keyCode: 20 });
add(['Num_Lock', 'NumLock'], { key: 'NumLock', code: 'NumLock', keyCode: 144 });
add(['Scroll_Lock', 'ScrollLock'], { key: 'ScrollLock', code: 'ScrollLock', keyCode: 145 });
add(['Pause', 'Break'], { key: 'Pause', code: 'Pause', keyCode: 19 });
add(['Print', 'PrintScreen', 'Sys_Req'], { key: 'PrintScreen', code: 'PrintScreen', keyCode: 44 });
add(['Menu', 'ContextMenu'], { key: 'ContextMenu', code: 'ContextMenu', keyCode: 93 });
add(['KP_Add'], { key: '+', code: 'NumpadAdd', keyCode: 107, text: '+', location: 3 });
add(['KP_Subtract'], { key: '-', code: 'NumpadSubtract', keyCode: 109, text: '-', location: 3 });
add(['KP_Multiply'], { key: '*', code: 'NumpadMultiply', keyCode: 106, text: '*', location: 3 });
add(['KP_Divide'], { key: '/', code: 'NumpadDivide', keyCode: 111, text: '/', location: 3 });
add(['KP_Decimal'], { key: '.', code: 'NumpadDecimal', keyCode: 110, text: '.', location: 3 });
for (let f = 1; f <= 24; f++) add([`F${f}`], { key: `F${f}`, code: `F${f}`, keyCode: 111 + f });
add(['Shift_L', 'Shift', 'shift'], { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 });
add(['Shift_R'], { key: 'Shift', code: 'ShiftRight', keyCode: 16, location: 2 });
add(['Control_L', 'Control', 'ctrl', 'control'], { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1 });
add(['Control_R'], { key: 'Control', code: 'ControlRight', keyCode: 17, location: 2 });
add(['Alt_L', 'Alt', 'alt', 'Meta_L'], { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1 });
add(['Alt_R', 'ISO_Level3_Shift', 'Meta_R'], { key: 'Alt', code: 'AltRight', keyCode: 18, location: 2 });
add(['Super_L', 'Super', 'super', 'meta', 'cmd', 'win', 'Hyper_L'], { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1 });
add(['Super_R', 'Hyper_R'], { key: 'Meta', code: 'MetaRight', keyCode: 92, location: 2 });

/** What a key types while Shift is held: `c` gives `C`, `1` gives `!`. */
export function shifted(def: KeyDef): KeyDef {
  if (def.shift || !def.text) return def;
  return shiftedByCode.get(def.code) ?? def;
}

/** Looks up a keysym: exact first (`a` vs `A` differ), then case-insensitively for named keys. */
export function lookupKey(name: string): KeyDef | undefined {
  return table.get(name) ?? (name.length > 1 ? lowerTable.get(name.toLowerCase()) : undefined);
}

/** The key typed for one character of `type` text; characters off the table are sent as text only. */
export function keyForChar(char: string): KeyDef {
  return table.get(char) ?? { key: char, code: '', keyCode: 0, text: char };
}

/** The keysym xdotool understands for a key; characters off the table by their Unicode keysym. */
export function x11Keysym(def: KeyDef): string {
  if (def.keysym) return def.keysym;
  const cp = def.key.codePointAt(0) ?? 0;
  return `U${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Splits `Ctrl+Shift+Tab` into its keys; `plus` or a lone `+` name the plus key itself. */
export function parseCombo(combo: string, field: string): KeyDef[] {
  const parts = combo === '+' ? ['+'] : combo.split('+').map((p, i, all) => (p === '' && i === all.length - 1 ? '+' : p));
  const keys: KeyDef[] = [];
  for (const part of parts.filter((p) => p !== '')) {
    const def = lookupKey(part);
    if (!def) throw invalidField(field, `unknown key '${part}' (use X11 keysym names such as Return, ctrl, F5, a)`);
    keys.push(def);
  }
  if (!keys.length) throw invalidField(field, 'must name at least one key');
  return keys;
}

export function isModifier(def: KeyDef): boolean {
  return def.key in MODIFIER_BITS;
}
