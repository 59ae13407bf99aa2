#!/bin/bash
set -e
git merge -q --no-edit alice bob
