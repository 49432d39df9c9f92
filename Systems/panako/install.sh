#!/usr/bin/env bash
# Builds Panako 2.1 (Joren Six, https://github.com/JorenSix/Panako) at a pinned commit, unchanged, without
# Gradle (its build needs services.gradle.org and Maven Central, which this machine kind cannot reach): javac
# from Debian's JDK over Panako's sources and its libraries' sources, each at a pinned commit, and the JNI
# library of JGaborator compiled here from its vendored Gaborator and PFFFT (its prebuilt binaries are not
# used). The other libraries come from Debian (reflections, slf4j, jnr-ffi for lmdbjava). Into installed/.
#   Systems/panako/install.sh        clones the four repositories from GitHub
#   PANAKO_SOURCE=DIR TARSOSDSP_SOURCE=DIR JGABORATOR_SOURCE=DIR LMDBJAVA_SOURCE=DIR Systems/panako/install.sh
#                                    from local copies (source folders or git repositories)
# Panako decodes through ffmpeg (Debian), which must be on PATH even for WAV input. The recipe:
# ../../../shared/panako-notes.md in the project's notes, and the table below.
set -euo pipefail
cd "$(dirname "$0")"
panako=b602429b683e6b79f0c9dc529c3b5bb0d3667d43      # master, 2023-12-19 (version 2.1)
tarsos=052f429ecd0091103cdeaa495e3f3bb46542f8dd      # TarsosDSP 2.5: core/ and jvm/ unchanged since
jgaborator=196ecb11d622987ec1894e400b31080f978b8cae  # JGaborator 0.7, Gaborator 1.7 and PFFFT vendored
lmdbjava=0025a4875c2b08645e93c8acc6f2225b2a7c4046    # tag lmdbjava-0.9.1 (Panako names 0.9.1)
version="panako commit ${panako:0:10} (built with javac; TarsosDSP ${tarsos:0:7}, JGaborator ${jgaborator:0:7}, lmdbjava ${lmdbjava:0:7})"
# What it runs with (Debian): installed after its sources are fetched, and again when its build is already here.
packages=(ffmpeg default-jdk-headless libreflections-java libslf4j-java libjnr-ffi-java libjnr-constants-java liblmdb0)
if grep -qsF "$version" installed/VERSION; then ../../scripts/setup.sh "${packages[@]}"; echo "panako: already installed ($(cat installed/VERSION))" >&2; exit 0; fi
source ../fetch-source.sh
fetch_source "${PANAKO_SOURCE:-}" https://github.com/JorenSix/Panako "$panako" installed/src/panako PANAKO_SOURCE
fetch_source "${TARSOSDSP_SOURCE:-}" https://github.com/JorenSix/TarsosDSP "$tarsos" installed/src/tarsos TARSOSDSP_SOURCE
fetch_source "${JGABORATOR_SOURCE:-}" https://github.com/JorenSix/JGaborator "$jgaborator" installed/src/jgaborator JGABORATOR_SOURCE
fetch_source "${LMDBJAVA_SOURCE:-}" https://github.com/lmdbjava/lmdbjava "$lmdbjava" installed/src/lmdbjava LMDBJAVA_SOURCE
../../scripts/setup.sh "${packages[@]}" gcc g++   # and what builds it
src=installed/src
# Java: every source but TarsosDSP's module-info and lmdbjava's optional Netty and Agrona buffer proxies.
classpath=$(ls /usr/share/java/{reflections,slf4j-api,jnr-ffi,jnr-constants,jffi,asm,asm-commons,asm-tree,asm-util,asm-analysis,jnr-x86asm,javassist}.jar | paste -sd:)
rm -rf installed/classes && mkdir -p installed/classes installed/lib
find $src/tarsos/core/src/main/java $src/tarsos/jvm/src/main/java $src/jgaborator/src/main/java $src/lmdbjava/src/main/java \
     $src/panako/src/main/java -name '*.java' ! -name module-info.java ! -name ByteBufProxy.java ! -name DirectBufferProxy.java \
     > installed/sources.txt
javac -nowarn -source 11 -target 11 --add-exports java.base/sun.nio.ch=ALL-UNNAMED -encoding UTF-8 -cp "$classpath" \
      -d installed/classes @installed/sources.txt 2> installed/javac.log || { tail -5 installed/javac.log >&2; exit 1; }
(cd installed/classes && jar cf ../panako.jar .)
# JGaborator's JNI library from its own C and C++ sources (the PANAKO strategy's spectral transform).
g=$src/jgaborator/gaborator java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
gcc -c -O3 -ffast-math -fPIC $g/pffft/pffft.c -o installed/lib/pffft.o
gcc -c -O3 -ffast-math -fPIC -DFFTPACK_DOUBLE_PRECISION $g/pffft/fftpack.c -o installed/lib/fftpack.o
g++ -std=c++11 -I$g/gaborator-1.7 -I$g/pffft -I"$java_home/include" -I"$java_home/include/linux" -fPIC -shared -O3 -ffast-math \
    -DGABORATOR_USE_PFFFT -o installed/lib/libjgaborator.so $g/jgaborator.cc installed/lib/pffft.o installed/lib/fftpack.o
echo "$version, $(java -version 2>&1 | head -1)" > installed/VERSION
echo "panako: installed $(cat installed/VERSION)" >&2
