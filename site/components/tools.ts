// Components of the pages for learners and teachers (site/docs/): `import { Timeline } from ...`.
export { default as Compare } from "./Compare.astro";
export { default as Timeline } from "./Timeline.astro";
export { default as TranslationStatus } from "./TranslationStatus.astro";
export { default as Workshop } from "./Workshop.astro";
export { default as LayerCard } from "./LayerCard.astro";
export { default as OpenRecording } from "./OpenRecording.astro";
export { default as GrowthChart } from "./GrowthChart.astro";
