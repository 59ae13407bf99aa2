// A tool call's input, checked against the input_schema its tool declares, before anything acts
// on it. The model may send any JSON: a field no schema declares, or a list where a path goes,
// must not reach a handler or a permission rule that reads it as something else.
import type { Tool } from "./types.ts";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The JSON type of a value, as a schema's `type` names it. */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value; // string, boolean, object
}

/** How a sentence names a JSON type. */
const TYPE_NAMES: Record<string, string> = {
  string: "text",
  integer: "a whole number",
  number: "a number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  null: "null",
};
const named = (type: string) => (Object.hasOwn(TYPE_NAMES, type) ? TYPE_NAMES[type] : type);

/** Why `input` does not fit `tool`'s schema (one sentence), or undefined when it fits. Checked is
 *  what a harness relies on: an object, with only the fields the schema declares (unless it says
 *  `additionalProperties`), each required one present, each of its declared JSON type. */
export function inputProblem(tool: Tool, input: unknown): string | undefined {
  const schema = tool.input_schema as {
    properties?: Record<string, unknown>;
    required?: string[];
    additionalProperties?: unknown;
  };
  const declared = isObject(schema.properties) ? schema.properties : {};
  if (!isObject(input))
    return `${tool.name} takes an object of fields, not ${named(jsonType(input))}`;
  const takes = Object.keys(declared).join(", ") || "no fields";
  const extra = Object.keys(input).find((key) => !Object.hasOwn(declared, key));
  if (extra !== undefined && !schema.additionalProperties)
    return `${tool.name} does not take the field ${JSON.stringify(extra)} (it takes: ${takes})`;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const missing = required.find((key) => !Object.hasOwn(input, key));
  if (missing !== undefined) return `${tool.name} needs ${JSON.stringify(missing)}`;
  for (const [key, value] of Object.entries(input)) {
    const type = (declared[key] as { type?: unknown } | undefined)?.type;
    const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
    const actual = jsonType(value);
    const fits = types.includes(actual) || (actual === "integer" && types.includes("number"));
    if (types.length && !fits)
      return `${tool.name} needs ${JSON.stringify(key)} to be ${types.map(named).join(" or ")}, not ${named(actual)}`;
  }
  return undefined;
}
