import { gross } from "./price.ts";

export const total: number = gross(100);
