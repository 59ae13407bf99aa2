/// <reference types="astro/client" />

// For plain `tsc` (npm run typecheck): .astro files are components. `astro dev/build` type them fully.
declare module "*.astro" {
  const Component: (props: Record<string, unknown>) => unknown;
  export default Component;
}
