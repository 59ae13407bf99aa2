#!/bin/bash
set -e
# Only the timeout inside the prod block: the line after its url.
sed -i '/url: "https:\/\/shop.example"/{n;s/timeoutMs: 1000/timeoutMs: 5000/}' src/config.ts
