// Components a chapter page imports: `import { Diagram, ... } from "../../site/components/chapter"`.
export { default as Changes } from "./Changes.astro";
export { default as Diagram } from "./Diagram.astro";
export { default as Excerpt } from "./Excerpt.astro";
export { default as Mermaid } from "./Mermaid.astro";
export { default as Player } from "./Player.astro";
export { default as RunIt } from "./RunIt.astro";
export { default as Source } from "./Source.astro";
export { default as ToolTable } from "./ToolTable.astro";
export { default as TraceSequence } from "./TraceSequence.astro";
export { default as Exercises } from "./Exercises.astro";
export { default as EvalResults } from "./EvalResults.astro";
