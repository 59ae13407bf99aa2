#!/bin/bash
node --test tests/*.test.js
