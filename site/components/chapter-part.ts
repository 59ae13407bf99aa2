// One part of a chapter page (site/lib/chapter-parts.ts). site/lib/rehype-chapter-parts.ts wraps
// every section of a chapter page in one, as
//   <LahChapterPart part="run" shown={props.lahPart} server:root>…</LahChapterPart>
// where `props.lahPart` is the part the page renders (site/pages/[...part].astro passes it to the
// page's Content; Starlight's own route passes none: Learn). A plain function, called with its
// children unrendered (`server:root`): the sections of the other parts are never rendered at all,
// so their components neither run nor leave scripts behind. (An Astro component's slot, or a
// function component without `server:root`, is rendered before the component decides.)
import type { Part } from "../lib/chapter-parts";

export default function LahChapterPart(props: { part: Part; shown?: Part; children?: unknown }) {
  return props.part === (props.shown ?? "learn") ? props.children : null;
}
