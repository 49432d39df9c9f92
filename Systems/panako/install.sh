#!/usr/bin/env bash
# Builds Panako (Joren Six, https://github.com/JorenSix/Panako) at a pinned commit, unchanged, with its own
# Gradle build (./gradlew shadowJar) and a JDK from Debian, into Systems/panako/installed/panako.jar.
# Panako decodes with ffmpeg (Debian).
#   Systems/panako/install.sh                       clones the pinned commit from GitHub
#   PANAKO_SOURCE=DIR Systems/panako/install.sh     from a local copy (source folder or git repository)
# The build needs the network twice over: the Gradle wrapper downloads Gradle 7.2 from services.gradle.org,
# and the build downloads Panako's libraries (TarsosDSP from mvn.0110.be; lmdbjava, JGaborator and others
# from Maven Central). None of them is packaged by Debian, so where those hosts cannot be reached this
# script stops there (exit 4) and says so; set GRADLE_USER_HOME to a Gradle home that already holds them
# to build offline.
set -euo pipefail
cd "$(dirname "$0")"
commit=b602429b683e6b79f0c9dc529c3b5bb0d3667d43   # master, 2023-12-19 (version 2.1)
if grep -qs "$commit" installed/VERSION; then echo "panako: already installed ($(cat installed/VERSION))" >&2; exit 0; fi
source ../fetch-source.sh
fetch_source "${PANAKO_SOURCE:-}" https://github.com/JorenSix/Panako "$commit" installed/source PANAKO_SOURCE
../../scripts/setup.sh ffmpeg default-jdk-headless
chmod +x installed/source/gradlew
if ! (cd installed/source && timeout 600 ./gradlew --no-daemon -q shadowJar) > installed/build.log 2>&1; then
    echo "panako: the Gradle build failed: $(grep -m1 -E 'Exception|Could not|FAILURE' installed/build.log || tail -1 installed/build.log)" >&2
    if grep -qiE "services.gradle.org|Could not resolve|UnknownHost|unable to resolve|Connection|Could not GET" installed/build.log; then
        echo "panako: the build could not download Gradle or Panako's libraries (no network to services.gradle.org, Maven Central, mvn.0110.be)" >&2
    fi
    exit 4
fi
cp installed/source/build/libs/*-all.jar installed/panako.jar
echo "panako commit $fetched_commit, $(java -version 2>&1 | head -1)" > installed/VERSION
echo "panako: installed $(cat installed/VERSION)" >&2
