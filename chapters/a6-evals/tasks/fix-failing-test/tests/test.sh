#!/bin/bash
# Passes when mean([]) is 0 and the mean of a non-empty list is still right.
node --test tests/*.test.js
