// Format: turns cents into a display string such as "€2.50".
export const euros = (cents) => `€${(cents / 100).toFixed(2)}`;
