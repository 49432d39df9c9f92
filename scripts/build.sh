#!/usr/bin/env bash
# The release build every script runs, and the one to run by hand: `swift build -c release` without debug
# information, which no figure or test reads; the program is the same and the build 10-24 % shorter (docs/speed.md,
# "The tool's own loop"). Arguments go to `swift build` (--product fpbench, --scratch-path ...). A build with other
# flags in the same folder compiles everything again.
exec swift build -c release -debug-info-format none "$@"
