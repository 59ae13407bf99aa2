// Where the shop's backend is, per environment.
export const config = {
  dev: {
    url: "http://localhost:8080",
    timeoutMs: 1000,
  },
  prod: {
    url: "https://shop.example",
    timeoutMs: 1000,
  },
};
