// Starlight route middleware: a splash page's hero actions ("Start with s01") are links written
// in frontmatter, which Starlight renders as they are; under a base path they go under it too.
import { defineRouteMiddleware } from "@astrojs/starlight/route-data";
import { withBase } from "./base-path";

export const onRequest = defineRouteMiddleware((context) => {
  const route = context.locals.starlightRoute;
  const hero = route.entry.data.hero;
  if (!hero?.actions?.length) return;
  const base = import.meta.env.BASE_URL;
  const actions = hero.actions.map((action) => ({ ...action, link: withBase(action.link, base) }));
  route.entry = { ...route.entry, data: { ...route.entry.data, hero: { ...hero, actions } } };
});
