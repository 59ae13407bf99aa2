#!/bin/bash
set -e
rm logs/*.log
