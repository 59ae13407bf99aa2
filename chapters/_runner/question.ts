// A question shows everything it asks about. The model (or a workspace's config) writes what goes
// into a permission or trust question; a real action, 2,400 spaces and then `git status` would
// push the action off an 80×24 screen, leaving a harmless question to say yes to. So before a
// question is asked: what a terminal obeys or a reader cannot see is shown (visible.js), runs of
// blanks and of invisible characters are collapsed and counted, and a question too long for the
// screen keeps its start and its end and names what it leaves out.
import stringWidth from "string-width";
import { oneLine } from "../_shared/visible.js";

/** Blanks a reader cannot count: every space separator (U+0020, U+00A0, U+3000 …) and the
 *  letters and symbols that draw nothing (Hangul fillers, the braille blank). */
const BLANKS = /[\p{Zs}\u115F\u1160\u3164\uFFA0\u2800]+/gu;
/** Three or more characters shown as their codes in a row: `\u{200b}` as visible.js writes a
 *  character a terminal obeys or draws as nothing, `\u001b` or `\n` as JSON writes one (s07
 *  shows a call's input as JSON). A run of them is counted instead of spelled out. */
const ESCAPE = String.raw`\\(?:u\{[0-9a-f]+\}|u[0-9a-fA-F]{4}|[nrtbf])`;
const ESCAPE_RUN = new RegExp(`(?:${ESCAPE}){3,}`, "g");

const count = (n: number) => n.toLocaleString("en-US");

/** `text` on one line with nothing hidden: characters a terminal obeys are shown (visible.js),
 *  a run of them or of blanks becomes one counted mark (`⟪2,400 spaces⟫`), and a lone odd blank
 *  (U+00A0, U+3000 …) is shown as its code. */
export function collapsed(text: string): string {
  return oneLine(text)
    .replace(ESCAPE_RUN, (run) => {
      const codes = run.match(new RegExp(ESCAPE, "g"))!;
      const kinds = [...new Set(codes)];
      const named = kinds.slice(0, 4).join(" ") + (kinds.length > 4 ? " …" : "");
      return `⟪${count(codes.length)} invisible characters: ${named}⟫`;
    })
    .replace(BLANKS, (run) => {
      const n = [...run].length;
      if (/^ {1,2}$/.test(run)) return run;
      if (/^ +$/.test(run)) return `⟪${count(n)} spaces⟫`;
      if (n === 1) return `\\u{${run.codePointAt(0)!.toString(16)}}`;
      return `⟪${count(n)} blank characters⟫`;
    });
}

/** `text` made to fit `columns` terminal columns: collapsed, then, if still too wide, its start
 *  and its end with the middle named (`⟪… 1,234 characters not shown …⟫`). The end is kept too:
 *  what runs last in a command matters as much as what runs first. */
export function fitted(text: string, columns: number): string {
  const whole = collapsed(text);
  if (stringWidth(whole) <= columns) return whole;
  const chars = [...whole];
  const mark = (n: number) => ` ⟪… ${count(n)} characters not shown …⟫ `;
  const room = Math.max(20, columns - stringWidth(mark(chars.length)));
  const take = (list: string[], width: number) => {
    const kept: string[] = [];
    let used = 0;
    for (const ch of list) {
      used += stringWidth(ch);
      if (used > width) break;
      kept.push(ch);
    }
    return kept;
  };
  const head = take(chars, Math.ceil(room * 0.6));
  const tail = take([...chars].reverse(), room - Math.ceil(room * 0.6)).reverse();
  return `${head.join("")}${mark(chars.length - head.length - tail.length)}${tail.join("")}`;
}

/** How many columns a question may take on a terminal of `columns` × `rows`: every row but a few
 *  (the answer's line and the lines above it that give the question its context). */
export const questionRoom = (columns = 80, rows = 24) =>
  Math.max(200, columns * Math.max(4, rows - 4));
