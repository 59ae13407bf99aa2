export * from "./math.js";
export * from "./format.js";
export * from "./cart.js";
export * from "./config.js";
